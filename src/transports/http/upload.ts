import Upload from 'graphql-upload/Upload.mjs';
import { Kind, type GraphQLError, type OperationDefinitionNode, type TypeNode } from 'graphql';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { badRequest, ErrorCode, ErrorReason, GatewayError } from '../../errors/codes.js';
import { describeBytes } from '../../upstreams/http/body.js';
import { MAX_BODY_BYTES } from './requestBody.js';

/** Files one request may carry: `uploadChatDocument` takes one, and one at a time keeps the spooled bytes bounded. */
export const MAX_UPLOAD_FILES = 1;

/**
 * graphql-upload's reader, with busboy and fs-capacitor, loaded with the first multipart request: most gateways never
 * take an upload (bench/PROFILE.md, "Thirteenth pass").
 */
let uploadReader: Promise<typeof import('graphql-upload/processRequest.mjs')> | undefined;

/** Room for the multipart framing around the fields and the file (boundaries, part headers). */
const FRAMING_BYTES = 16 * 1024;

/**
 * The GraphQL multipart request specification (github.com/jaydenseric/graphql-multipart-request-spec), read by
 * graphql-upload's `processRequest`: the `operations` and `map` fields become the operation, with an `Upload` where
 * each file goes. The file itself is not read here: busboy streams it into a temporary file (fs-capacitor) as it
 * arrives, at most `maxFileBytes`, and the resolver reads it from there; it is deleted when the response closes. A
 * `Content-Length` that cannot fit is refused (413) before a byte of the body is read.
 */
export async function readUploadRequest(
  req: IncomingMessage,
  res: ServerResponse,
  maxFileBytes: number,
): Promise<Record<string, unknown> | GraphQLError> {
  const declared = Number(req.headers['content-length']);
  const most = MAX_BODY_BYTES + maxFileBytes * MAX_UPLOAD_FILES + FRAMING_BYTES;
  if (Number.isFinite(declared) && declared > most) {
    return badRequest(
      `This upload is ${describeBytes(declared)}; a file may have at most ${describeBytes(maxFileBytes)} (CHAT_DOCUMENT_MAX_BYTES). Nothing was sent upstream.`,
      413,
    );
  }
  let operations: Record<string, unknown> | Array<Record<string, unknown>>;
  try {
    const { default: processRequest } = await (uploadReader ??= import('graphql-upload/processRequest.mjs'));
    operations = await processRequest(req, res, {
      maxFieldSize: MAX_BODY_BYTES,
      maxFileSize: maxFileBytes,
      maxFiles: MAX_UPLOAD_FILES,
    });
  } catch (error) {
    const status = (error as { status?: number }).status ?? 400;
    const said = ((error as Error).message ?? String(error)).replace(/ \(https?:[^)]*\)/, '');
    if (status === 413 && /max file uploads/.test(said))
      return badRequest(
        `A multipart request may carry ${MAX_UPLOAD_FILES} file; send each file in a request of its own.`,
        413,
      );
    if (status === 499)
      return badRequest(`The request ended before its multipart fields did (${said}); send it again.`, 400);
    return badRequest(
      `${said} A GraphQL multipart request has the fields "operations" (the operation as JSON), then "map" (which variable each file fills), then the files.`,
      status,
    );
  }
  // graphql-upload releases, when the response closes, the files that have arrived by then. A refusal made from the
  // fields alone (a document that does not validate) can close the response before busboy has read the file part
  // behind them, and that file's temporary copy was never deleted (CI at e998707, Node 20: one left after 10 s).
  // So a file that arrives after the response closed is released as it arrives.
  const uploads = uploadsIn(operations);
  if (uploads.length) {
    if (res.closed) releaseWhenArrived(uploads);
    else res.once('close', () => releaseWhenArrived(uploads));
  }
  if (Array.isArray(operations))
    return badRequest(
      'A multipart request may carry one operation, not a batch; send each operation in a request of its own.',
    );
  return operations;
}

/** Releases each upload's temporary file once it exists (at once if it does); a file that never came has none. */
function releaseWhenArrived(uploads: readonly Upload[]): void {
  for (const upload of uploads)
    upload.promise.then(
      (file) => (file as { capacitor?: { release(): void } }).capacitor?.release(),
      () => undefined,
    );
}

/** Levels of the operation searched for the files `map` placed: deeper ones are refused as variables too deep. */
const MAX_MAP_DEPTH = 64;

/**
 * A file the `map` field put where the operation takes none: BAD_USER_INPUT (a malformed request, HTTP 400) naming
 * where it went and the variable it should fill. graphql-upload sets whatever path `map` names, creating it, so a
 * file mapped to `variables.document` for an operation of `$file` would otherwise surface as "$file must not be null",
 * and one mapped to `query` as "queries must be strings". Undefined when every file fills a declared variable, or
 * when the document is not known to be valid (`operation` undefined: its own error is clearer).
 */
export function misplacedUploadRefusal(
  operations: Record<string, unknown>,
  operation: OperationDefinitionNode | undefined,
): GatewayError | undefined {
  for (const path of uploadPaths(operations)) {
    const variable = /^variables\.([^.]+)/.exec(path)?.[1];
    if (variable && !operation) continue;
    const declared = operation?.variableDefinitions?.map((d) => d.variable.name.value) ?? [];
    if (variable && declared.includes(variable)) continue;
    const where = variable
      ? `in "${path}", but the operation declares no variable $${variable}`
      : `at "${path}", outside "variables"`;
    return new GatewayError(
      ErrorCode.BadUserInput,
      `The multipart "map" field puts a file ${where}: ${mapFix(operation)}`,
      {
        reason: ErrorReason.BadRequest,
        argument: 'map',
        http: { status: 400 },
      },
    );
  }
  return undefined;
}

/** How `map` should name the operation's file variables (those of type `Upload`). */
function mapFix(operation: OperationDefinitionNode | undefined): string {
  const files = (operation?.variableDefinitions ?? []).filter((d) => namedType(d.type) === 'Upload');
  if (!files.length)
    return 'declare a variable of type Upload that takes it (mutation($file: Upload!) { uploadChatDocument(file: $file) { id } }) and map the file to "variables.file".';
  // A list of files is mapped one item at a time: `variables.files.0`.
  const paths = files.map(
    (d) =>
      `"variables.${d.variable.name.value}${(d.type.kind === Kind.NON_NULL_TYPE ? d.type.type : d.type).kind === Kind.LIST_TYPE ? '.0' : ''}"`,
  );
  return `map it to ${paths.join(' or ')}, the operation's ${files.length === 1 ? 'variable' : 'variables'} of type Upload (e.g. {"0": [${paths[0]}]}).`;
}

function namedType(type: TypeNode): string {
  return type.kind === Kind.NAMED_TYPE ? type.name.value : namedType(type.type);
}

/** Where processRequest put a file: the dotted path of each `Upload` in the operation, without recursion. */
function uploadPaths(operations: unknown): string[] {
  return uploadEntries(operations).map(([path]) => path);
}

/** The `Upload`s processRequest put in the operation. */
function uploadsIn(operations: unknown): Upload[] {
  return uploadEntries(operations).map(([, upload]) => upload);
}

function uploadEntries(operations: unknown): Array<[string, Upload]> {
  const found: Array<[string, Upload]> = [];
  const stack: Array<[unknown, string, number]> = [[operations, '', 0]];
  while (stack.length) {
    const [value, path, depth] = stack.pop()!;
    if (value instanceof Upload) found.push([path, value]);
    else if (typeof value === 'object' && value !== null && depth < MAX_MAP_DEPTH) {
      for (const key of Object.keys(value))
        stack.push([(value as Record<string, unknown>)[key], path ? `${path}.${key}` : key, depth + 1]);
    }
  }
  return found;
}
