import {
  getVariableValues,
  Kind,
  parse,
  print,
  validate,
  visit,
  type ASTNode,
  type DocumentNode,
  type FragmentDefinitionNode,
  type GraphQLSchema,
  type OperationDefinitionNode,
} from 'graphql';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { badInput, type GatewayError } from '../errors/codes.js';
import { dataSchema } from './outputSchema.js';
import { variablesSchema, type JsonSchema } from './variablesSchema.js';

/** `operations/mcp` at the project root: the same relative path from `src/trusted` and `dist/trusted`. */
export const defaultOperationsDir = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'operations', 'mcp');

/** One named operation of the operations folder: an MCP tool, and a graph tool a chat model may be offered. */
export interface TrustedOperation {
  name: string;
  /** From the comment lines right above the operation. */
  description: string;
  type: 'query' | 'mutation' | 'subscription';
  /** The operation alone with the fragments it uses, as the gateway runs it. */
  query: string;
  operation: OperationDefinitionNode;
  /** The operation and the fragments it uses, parsed (`query` as a document). */
  document: DocumentNode;
  /** JSON Schema of its variables (see variablesSchema.ts). */
  inputSchema: JsonSchema;
  /** JSON Schema of its answer's `data` (see outputSchema.ts). */
  outputSchema: JsonSchema;
  /**
   * OAuth scopes a caller's token must hold to call it (MCP_AUTH=jwt), from an `@scope` line of its comment
   * (`# @scope health:read`). Empty: any valid token may.
   */
  scopes: readonly string[];
  /** The file it came from, for error messages. */
  file: string;
}

/** A bad operations folder or file; start-up stops with this message (it names the file). */
export class OperationsFileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'OperationsFileError';
  }
}

export interface TrustedOperationsOptions {
  /** MCP_OPERATIONS: the folder of `.graphql` files. @default operations/mcp */
  dir?: string;
  /** MCP_ALLOW_MUTATIONS: list mutations too. @default false */
  allowMutations?: boolean;
  /**
   * Leave out a file that does not validate against the schema instead of refusing to start: for the shipped folder
   * under GATEWAY_DOMAINS, whose files for the domains not served name fields this schema does not have.
   * @default false
   */
  skipInvalidFiles?: boolean;
  /**
   * Each file's document as the schema serves its types: files are written with the type names of `schema/`, and
   * SUBGRAPH_TYPE_PREFIX or SUBGRAPH_RENAMES may serve them under others (app/trusted.ts passes the renaming).
   * @default the document as written
   */
  servedDocument?: (document: DocumentNode) => DocumentNode;
}

/**
 * The trusted operations: every named query (and, when allowed, mutation) of the `.graphql` files in a folder,
 * parsed and validated against the schema once at start-up. A file that does not parse or validate, an anonymous
 * operation or a name used twice stops start-up with an error naming the file. Subscriptions are never tools.
 */
export class TrustedOperations {
  private constructor(
    readonly dir: string,
    private readonly byName: ReadonlyMap<string, TrustedOperation>,
    /** Mutations present in the folder but not offered (MCP_ALLOW_MUTATIONS is off). */
    readonly withheld: readonly string[],
  ) {}

  static load(schema: GraphQLSchema, options: TrustedOperationsOptions = {}): TrustedOperations {
    const dir = resolve(options.dir ?? defaultOperationsDir);
    let files: string[];
    try {
      if (!statSync(dir).isDirectory()) throw new Error('not a folder');
      files = readdirSync(dir)
        .filter((f) => f.endsWith('.graphql'))
        .sort();
    } catch (error) {
      throw new OperationsFileError(
        `MCP_OPERATIONS: ${dir} is not a readable folder of .graphql files (${(error as Error).message}).`,
      );
    }
    const byName = new Map<string, TrustedOperation>();
    const withheld: string[] = [];
    for (const file of files) {
      const path = join(dir, file);
      let operations: TrustedOperation[];
      try {
        operations = operationsOf(schema, path, readFileSync(path, 'utf8'), options.servedDocument);
      } catch (error) {
        if (options.skipInvalidFiles && error instanceof OperationsFileError) continue;
        throw error;
      }
      for (const op of operations) {
        const earlier = byName.get(op.name);
        if (earlier)
          throw new OperationsFileError(
            `${path}: operation ${op.name} is also defined in ${earlier.file}; tool names must be unique.`,
          );
        if (op.type === 'subscription') continue;
        if (op.type === 'mutation' && !options.allowMutations) {
          withheld.push(op.name);
          continue;
        }
        byName.set(op.name, op);
      }
    }
    return new TrustedOperations(dir, byName, withheld);
  }

  list(): TrustedOperation[] {
    return [...this.byName.values()];
  }

  get(name: string): TrustedOperation | undefined {
    return this.byName.get(name);
  }

  /** The operation by name, or a BAD_USER_INPUT naming the unknown name and the ones offered. */
  require(name: string, argument: string): TrustedOperation {
    const op = this.byName.get(name);
    if (op) return op;
    const mutation = this.withheld.includes(name) ? ` ${name} is a mutation, and MCP_ALLOW_MUTATIONS is off.` : '';
    throw badInput(
      `${JSON.stringify(name)} is not a trusted operation.${mutation} Use one of ${[...this.byName.keys()].join(', ') || '(none: MCP_OPERATIONS has no operations)'}.`,
      argument,
    );
  }
}

/**
 * The variables a caller gave, checked against the operation's variable types as GraphQL would coerce them (plus
 * unknown names, which GraphQL would ignore): a BAD_USER_INPUT naming the tool, the value and the problem, so a bad
 * call is refused before any upstream request.
 */
export function checkArguments(
  schema: GraphQLSchema,
  op: TrustedOperation,
  given: unknown,
): Record<string, unknown> | GatewayError {
  const args = (given ?? {}) as Record<string, unknown>;
  if (typeof args !== 'object' || Array.isArray(args))
    return badInput(`Arguments of ${op.name} must be a JSON object, got ${JSON.stringify(args)}.`);
  const definitions = op.operation.variableDefinitions ?? [];
  const declared = definitions.map((d) => d.variable.name.value);
  const unknown = Object.keys(args).filter((k) => !declared.includes(k));
  if (unknown.length) {
    return badInput(
      `${op.name} has no argument ${unknown.map((u) => JSON.stringify(u)).join(', ')}; it takes ${declared.join(', ') || 'none'}.`,
      unknown[0],
    );
  }
  // Each argument on its own, so the error names the first one at fault (`extensions.argument`).
  const problems = definitions.flatMap((d) =>
    (getVariableValues(schema, [d], args).errors ?? []).map((e) => ({
      argument: d.variable.name.value,
      message: e.message,
    })),
  );
  if (problems.length)
    return badInput(`Bad arguments for ${op.name}: ${problems.map((p) => p.message).join(' ')}`, problems[0].argument);
  return args;
}

function operationsOf(
  schema: GraphQLSchema,
  path: string,
  text: string,
  served: (document: DocumentNode) => DocumentNode = (d) => d,
): TrustedOperation[] {
  let document: DocumentNode;
  try {
    document = served(parse(text));
  } catch (error) {
    throw new OperationsFileError(`${path}: ${(error as Error).message}`);
  }
  const invalid = validate(schema, document);
  if (invalid.length) throw new OperationsFileError(`${path}: ${invalid.map((e) => e.message).join(' ')}`);
  const fragments = new Map(
    document.definitions.filter((d) => d.kind === Kind.FRAGMENT_DEFINITION).map((f) => [f.name.value, f]),
  );
  const lines = text.split('\n');
  return document.definitions
    .filter((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION)
    .map((operation) => {
      const name = operation.name?.value;
      if (!name)
        throw new OperationsFileError(
          `${path}: every operation needs a name (its tool name); one at line ${operation.loc?.startToken.line} has none.`,
        );
      if (!/^[A-Za-z0-9_-]{1,64}$/.test(name))
        throw new OperationsFileError(
          `${path}: operation name ${name} is longer than 64 characters, which tools do not accept.`,
        );
      const used = fragmentsUsedBy(operation, fragments);
      const { description, scopes } = leadingComment(path, name, lines, operation.loc?.startToken.line ?? 1);
      const own: DocumentNode = { kind: Kind.DOCUMENT, definitions: [operation, ...used] };
      return {
        name,
        description: description || `The ${operation.operation} ${name}.`,
        type: operation.operation,
        query: [operation, ...used].map((d) => print(d)).join('\n\n'),
        operation,
        document: own,
        inputSchema: variablesSchema(schema, operation),
        outputSchema: dataSchema(schema, own, operation),
        scopes,
        file: path,
      };
    });
}

/** The fragments an operation spreads, directly or through other fragments, each once. */
function fragmentsUsedBy(
  operation: OperationDefinitionNode,
  fragments: ReadonlyMap<string, FragmentDefinitionNode>,
): FragmentDefinitionNode[] {
  const used = new Map<string, FragmentDefinitionNode>();
  const walk = (node: ASTNode) =>
    visit(node, {
      FragmentSpread(spread) {
        const fragment = fragments.get(spread.name.value);
        if (!fragment || used.has(fragment.name.value)) return;
        used.set(fragment.name.value, fragment);
        walk(fragment);
      },
    });
  walk(operation);
  return [...used.values()];
}

/** An OAuth scope token (RFC 6749 section 3.3): printable ASCII but space, `"` and `\\`. */
const SCOPE = /^[\x21\x23-\x5b\x5d-\x7e]+$/;

/**
 * The `#` lines right above line `line` (1-based): the description, joined into one text, and the scopes of its
 * `@scope` lines (which the description leaves out).
 */
function leadingComment(
  path: string,
  name: string,
  lines: readonly string[],
  line: number,
): { description: string; scopes: string[] } {
  const comment: string[] = [];
  const scopes: string[] = [];
  for (let i = line - 2; i >= 0; i--) {
    const trimmed = lines[i].trim();
    if (!trimmed.startsWith('#')) break;
    const text = trimmed.replace(/^#\s?/, '');
    const scopeLine = /^@scopes?\b(.*)$/.exec(text);
    if (!scopeLine) {
      comment.unshift(text);
      continue;
    }
    const named = scopeLine[1].trim().split(/\s+/).filter(Boolean);
    const bad = named.find((s) => !SCOPE.test(s));
    if (!named.length || bad !== undefined) {
      throw new OperationsFileError(
        `${path}: the @scope line of ${name} needs OAuth scopes separated by spaces (such as "# @scope health:read"), got ${JSON.stringify(text)}.`,
      );
    }
    scopes.unshift(...named);
  }
  return { description: comment.join(' ').trim(), scopes: [...new Set(scopes)] };
}
