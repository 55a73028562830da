import { GraphQLScalarType, Kind, valueFromASTUntyped, type ValueNode } from 'graphql';
import { badInput } from '../../errors/codes.js';

/**
 * How large a JSON argument may be: deeper or larger values are refused as BAD_USER_INPUT before any upstream call.
 * Tool parameter schemas are a few levels deep and a few KiB; the limits keep a hostile value from costing recursion
 * (JSON.stringify and the providers' parsers recurse) or megabytes of work.
 */
export const JSON_ARGUMENT_LIMITS = {
  /** Levels of objects and arrays, the outermost object counting as 1. */
  maxDepth: 32,
  /** Size of the value written as JSON, in UTF-8 bytes. */
  maxBytes: 64 * 1024,
} as const;

const tooDeep = () =>
  badInput(
    `JSONObject nests deeper than ${JSON_ARGUMENT_LIMITS.maxDepth} levels of objects and arrays; a JSON argument may have at most ${JSON_ARGUMENT_LIMITS.maxDepth}: flatten it.`,
  );

/** Checks depth without recursion, so a value nested 10,000 levels deep is refused rather than overflowing the stack. */
function checkDepth<T>(root: T, children: (value: T) => readonly T[] | undefined): void {
  const stack: Array<[T, number]> = [[root, 1]];
  while (stack.length) {
    const [value, depth] = stack.pop()!;
    const inner = children(value);
    if (!inner) continue;
    if (depth > JSON_ARGUMENT_LIMITS.maxDepth) throw tooDeep();
    for (const child of inner) stack.push([child, depth + 1]);
  }
}

const valueChildren = (value: unknown): readonly unknown[] | undefined =>
  typeof value === 'object' && value !== null ? (Array.isArray(value) ? value : Object.values(value)) : undefined;

const literalChildren = (node: ValueNode): readonly ValueNode[] | undefined =>
  node.kind === Kind.OBJECT ? node.fields.map((f) => f.value) : node.kind === Kind.LIST ? node.values : undefined;

function object(value: unknown): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw badInput(
      `JSONObject must be a JSON object such as {"type": "object"}, got ${JSON.stringify(value)?.slice(0, 60)}`,
    );
  }
  checkDepth(value, valueChildren);
  // Within the depth limit JSON.stringify cannot overflow; its length is the size a provider would be sent.
  const bytes = Buffer.byteLength(JSON.stringify(value));
  if (bytes > JSON_ARGUMENT_LIMITS.maxBytes) {
    throw badInput(
      `JSONObject is ${bytes} bytes as JSON; a JSON argument may have at most ${JSON_ARGUMENT_LIMITS.maxBytes}: shorten it.`,
    );
  }
  return value as Record<string, unknown>;
}

/** A JSON object as a value (tool parameter schemas), so callers need not escape JSON inside a string. */
export const JSONObjectScalar = new GraphQLScalarType({
  name: 'JSONObject',
  serialize: object,
  parseValue: object,
  parseLiteral: (ast, variables) => {
    // valueFromASTUntyped recurses: the literal's depth is checked first.
    checkDepth(ast, literalChildren);
    return object(valueFromASTUntyped(ast, variables));
  },
});

function anyJson(value: unknown): unknown {
  checkDepth(value, valueChildren);
  const text = JSON.stringify(value);
  if (text === undefined)
    throw badInput('JSON must be a JSON value: an object, array, string, number, boolean or null.');
  const bytes = Buffer.byteLength(text);
  if (bytes > JSON_ARGUMENT_LIMITS.maxBytes)
    throw badInput(
      `JSON is ${bytes} bytes; a JSON argument may have at most ${JSON_ARGUMENT_LIMITS.maxBytes}: shorten it.`,
    );
  return value;
}

/** Any JSON value (a schema given, an answer parsed), under the same limits as JSONObject when it comes in. */
export const JSONScalar = new GraphQLScalarType({
  name: 'JSON',
  // Out: a value the gateway parsed itself from one answer, bounded by UPSTREAM_MAX_RESPONSE_BYTES.
  serialize: (value) => value,
  parseValue: anyJson,
  parseLiteral: (ast, variables) => {
    checkDepth(ast, literalChildren);
    return anyJson(valueFromASTUntyped(ast, variables));
  },
});
