import {
  getNamedType,
  isCompositeType,
  isEnumType,
  isInputObjectType,
  isInterfaceType,
  isListType,
  isNonNullType,
  isObjectType,
  isScalarType,
  isUnionType,
  type GraphQLArgument,
  type GraphQLCompositeType,
  type GraphQLInputType,
  type GraphQLSchema,
} from 'graphql';
import { ErrorCode } from '../../src/errors/codes.js';
import { mulberry32 } from '../../src/sandbox/prng.js';

/**
 * The codes a fuzzed operation may answer: the contract's (errors/codes.ts) but RATE_LIMITED, since a fuzz run raises
 * the limits it could meet and a 429 there would hide what it is looking for. Each fuzz test judges
 * INTERNAL_SERVER_ERROR itself (never for a client's mistake).
 */
export const FUZZ_ERROR_CODES: ReadonlySet<string> = new Set(
  Object.values(ErrorCode).filter((code) => code !== ErrorCode.RateLimited),
);

/** Deterministic generator of GraphQL operations from a schema: valid ones, and ones mutated into abuse. */
export class OperationFuzzer {
  private readonly rng: () => number;
  constructor(
    private readonly schema: GraphQLSchema,
    seed: number,
  ) {
    this.rng = mulberry32(seed);
  }

  private int(min: number, max: number): number {
    return min + Math.floor(this.rng() * (max - min + 1));
  }
  private pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.rng() * items.length)];
  }
  private chance(p: number): boolean {
    return this.rng() < p;
  }

  /** A schema-valid operation (arguments may still hold values the resolvers refuse). */
  valid(): { query: string; kind: string } {
    const roots = [
      ['query', this.schema.getQueryType()],
      ['mutation', this.schema.getMutationType()],
    ].filter(([, t]) => t) as Array<[string, GraphQLCompositeType]>;
    const [kind, root] = this.chance(0.8) ? roots[0] : this.pick(roots);
    return { query: `${kind} Fuzz ${this.selection(root, 0)}`, kind };
  }

  /** An operation mutated into something a hostile or broken client could send. */
  abusive(): { query: string; kind: string } {
    const base = this.valid().query;
    switch (this.int(0, 9)) {
      case 0: {
        const at = this.int(0, base.length - 1);
        return { query: base.slice(0, at) + base.slice(at + this.int(1, 20)), kind: 'truncated' };
      }
      case 1: {
        const at = this.int(0, base.length);
        const junk = Array.from({ length: this.int(1, 8) }, () =>
          this.pick(['{', '}', '(', ')', '$', '@', '"', ':', '...', '!', '\u0000', '#', '\\']),
        ).join('');
        return { query: base.slice(0, at) + junk + base.slice(at), kind: 'junk' };
      }
      case 2:
        return {
          query: `{ ${Array.from({ length: this.int(20, 300) }, (_, i) => `a${i}: __typename`).join(' ')} }`,
          kind: 'alias-bomb',
        };
      case 3: {
        const n = this.int(20, 2000);
        return { query: `${'{ upstreams '.repeat(n)}${'}'.repeat(n)}`, kind: 'deep' };
      }
      case 4:
        return { query: `{ __typename } # ${'x'.repeat(this.int(10_000, 200_000))}`, kind: 'huge' };
      case 5:
        return { query: base.replace(/"[^"]*"/, `"${this.weirdString()}"`), kind: 'weird-string' };
      case 6:
        return { query: `{ ...F } fragment F on Query { ...F }`, kind: 'fragment-cycle' };
      case 7:
        return {
          query: `query Q($v: ${this.pick(['Int', 'String!', '[ID!]!', 'Boolean', 'Nope'])}) { __typename }`,
          kind: 'bad-variable',
        };
      case 8:
        return { query: base.replace(/\w+/, this.weirdString().slice(0, 30)), kind: 'renamed' };
      default:
        return {
          query: Array.from({ length: this.int(1, 200) }, () => String.fromCharCode(this.int(0, 0x2fff))).join(''),
          kind: 'noise',
        };
    }
  }

  private weirdString(): string {
    return this.pick([
      '',
      ' ',
      '\u0000\u0000',
      '𝓤𝓷𝓲𝓬𝓸𝓭𝓮 ✨ 中文 عربى',
      'x'.repeat(this.int(1000, 20_000)),
      "'; DROP TABLE titles; --",
      '../../etc/passwd',
      'tt' + '9'.repeat(this.int(1, 12)),
      '\\u0041\\n\\"',
      '%00%2e%2e/',
    ]);
  }

  private selection(type: GraphQLCompositeType, depth: number): string {
    if (isUnionType(type) || isInterfaceType(type)) {
      const impls = isUnionType(type) ? type.getTypes() : this.schema.getPossibleTypes(type);
      const impl = this.pick(impls);
      return `{ __typename ... on ${impl.name} ${this.selection(impl, depth + 1)} }`;
    }
    if (!isObjectType(type)) return '{ __typename }';
    const fields = Object.values(type.getFields()).filter((f) => !f.name.startsWith('__'));
    const chosen = new Set<string>();
    const count = this.int(1, Math.min(4, fields.length));
    const parts: string[] = [];
    for (let i = 0; i < count; i++) {
      const field = this.pick(fields);
      const named = getNamedType(field.type);
      if (isCompositeType(named) && depth >= 5) continue;
      const alias = this.chance(0.2) || chosen.has(field.name) ? `f${i}: ` : '';
      chosen.add(field.name);
      const args = field.args
        .filter((a) => isNonNullType(a.type) || this.chance(0.4))
        .map((a) => `${a.name}: ${this.value(a.type, a, 0)}`);
      const argText = args.length ? `(${args.join(', ')})` : '';
      const sub = isCompositeType(named) ? ` ${this.selection(named, depth + 1)}` : '';
      parts.push(`${alias}${field.name}${argText}${sub}`);
    }
    if (parts.length === 0) parts.push('__typename');
    return `{ ${parts.join(' ')} }`;
  }

  /** A literal for `type`: usually plausible, sometimes out of range, sometimes hostile. */
  private value(type: GraphQLInputType, arg: GraphQLArgument | undefined, depth: number): string {
    if (isNonNullType(type)) return this.value(type.ofType, arg, depth);
    if (isListType(type)) {
      return `[${Array.from({ length: this.int(0, 3) }, () => this.value(type.ofType, undefined, depth + 1)).join(', ')}]`;
    }
    if (!isNonNullType(type) && this.chance(0.03)) return 'null';
    if (isEnumType(type)) return this.chance(0.95) ? this.pick(type.getValues()).name : 'NOT_A_VALUE';
    if (isInputObjectType(type)) {
      if (depth > 3) return '{}';
      const fields = Object.values(type.getFields()).filter((f) => isNonNullType(f.type) || this.chance(0.5));
      return `{ ${fields.map((f) => `${f.name}: ${this.value(f.type, undefined, depth + 1)}`).join(', ')} }`;
    }
    if (isScalarType(type)) {
      const name = arg?.name ?? '';
      switch (type.name) {
        case 'Int':
          return String(this.pick([1, 2, 3, 5, 10, 0, -1, 999, 1000, 2024, 1999, 2147483647]));
        case 'Float':
          return String(this.pick([0, 0.5, 1, 1.5, 2.5, -1]));
        case 'Boolean':
          return this.pick(['true', 'false']);
        case 'DateTime':
          return JSON.stringify(this.pick(['2024-01-02T03:04:05Z', 'yesterday', '']));
        default: {
          const plausible = /imdb/i.test(name)
            ? this.pick(['tt0078346', 'tt0372784', 'tt0133093', 'tt1', 'nm0000001'])
            : /provider/i.test(name)
              ? this.pick(['glm', 'ark', 'deepseek', 'moonshot', 'nope'])
              : /model/i.test(name)
                ? this.pick(['glm-4-flash', 'deepseek-flash', 'moonshot-v1-8k', 'doubao-pro', 'gpt-x'])
                : /id$/i.test(name)
                  ? this.pick(['Exchange', 'SharePoint', 'microsoftteams', 'EX226574', 'nope', ''])
                  : /query|title/i.test(name)
                    ? this.pick(['Batman', 'Star', 'Superman', 'the', 'a', 'zzzzqqq'])
                    : /after|cursor/i.test(name)
                      ? this.pick(['bm9wZQ', '!!!', ''])
                      : /ifMatch/i.test(name)
                        ? this.pick(['W/"abc"', '*', 'nope'])
                        : this.pick(['hello', 'Exchange', 'x']);
          return JSON.stringify(this.chance(0.9) ? plausible : this.weirdString());
        }
      }
    }
    return 'null';
  }
}
