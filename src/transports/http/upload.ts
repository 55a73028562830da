import processRequest from 'graphql-upload/processRequest.mjs';
import type { GraphQLError } from 'graphql';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { badRequest } from '../../errors/codes.js';
import { describeBytes } from '../../upstreams/http/body.js';
import { MAX_BODY_BYTES } from './body.js';

/** Files one request may carry: `uploadChatDocument` takes one, and one at a time keeps the spooled bytes bounded. */
export const MAX_UPLOAD_FILES = 1;

/** Room for the multipart framing around the fields and the file (boundaries, part headers). */
const FRAMING_BYTES = 16 * 1024;

/**
 * The GraphQL multipart request specification (github.com/jaydenseric/graphql-multipart-request-spec), read by
 * graphql-upload's `processRequest`: the `operations` and `map` fields become the operation, with an `Upload` where
 * each file goes. The file itself is not read here: busboy streams it into a temporary file (fs-capacitor) as it
 * arrives, at most `maxFileBytes`, and the resolver reads it from there; it is deleted when the response closes. A
 * `Content-Length` that cannot fit is refused (413) before a byte of the body is read.
 */
export async function readUploadRequest(req: IncomingMessage, res: ServerResponse, maxFileBytes: number): Promise<Record<string, unknown> | GraphQLError> {
  const declared = Number(req.headers['content-length']);
  const most = MAX_BODY_BYTES + maxFileBytes * MAX_UPLOAD_FILES + FRAMING_BYTES;
  if (Number.isFinite(declared) && declared > most) {
    return badRequest(`This upload is ${describeBytes(declared)}; a file may have at most ${describeBytes(maxFileBytes)} (CHAT_DOCUMENT_MAX_BYTES). Nothing was sent upstream.`, 413);
  }
  let operations: Record<string, unknown> | Array<Record<string, unknown>>;
  try {
    operations = await processRequest(req, res, { maxFieldSize: MAX_BODY_BYTES, maxFileSize: maxFileBytes, maxFiles: MAX_UPLOAD_FILES });
  } catch (error) {
    const status = (error as { status?: number }).status ?? 400;
    const said = ((error as Error).message ?? String(error)).replace(/ \(https?:[^)]*\)/, '');
    if (status === 413 && /max file uploads/.test(said)) return badRequest(`A multipart request may carry ${MAX_UPLOAD_FILES} file; send each file in a request of its own.`, 413);
    if (status === 499) return badRequest(`The request ended before its multipart fields did (${said}); send it again.`, 400);
    return badRequest(`${said} A GraphQL multipart request has the fields "operations" (the operation as JSON), then "map" (which variable each file fills), then the files.`, status);
  }
  if (Array.isArray(operations)) return badRequest('A multipart request may carry one operation, not a batch; send each operation in a request of its own.');
  return operations;
}
