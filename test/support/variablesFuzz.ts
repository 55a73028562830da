import {
  getNamedType,
  getNullableType,
  isCompositeType,
  isEnumType,
  isInputObjectType,
  isListType,
  isNonNullType,
  isObjectType,
  isScalarType,
  type GraphQLField,
  type GraphQLInputType,
  type GraphQLObjectType,
  type GraphQLSchema,
} from 'graphql';
import { mulberry32 } from '../../src/sandbox/prng.js';

/**
 * A client's mistake in one variable. The first five are mistakes whatever the value of the rest: coercion must
 * refuse them (BAD_USER_INPUT) before any upstream request. An oversize list coerces; what the rules and resolvers make
 * of it may vary, but it is never a server fault either.
 */
export type Mistake = 'missing' | 'null' | 'wrong-type' | 'wrong-enum' | 'unknown-field' | 'oversize-list';
export const REFUSED_BY_COERCION: ReadonlySet<Mistake> = new Set([
  'missing',
  'null',
  'wrong-type',
  'wrong-enum',
  'unknown-field',
]);

/** One generated case: an operation whose arguments all come from variables, the variables, and the one mistake. */
export interface VariablesCase {
  kind: 'query' | 'mutation' | 'subscription';
  /** The field the operation reaches, as a path from its root type (`Query.admin.serviceAnnouncement.healthOverview`). */
  field: string;
  query: string;
  variables: Record<string, unknown>;
  mistake: Mistake;
  /** The variable the mistake is in, and where inside its value (`input.messages.0.role`). */
  variable: string;
  at: string;
  /** The variable coercion must name: the mistaken one, unless one before it can never coerce from JSON (an Upload). */
  named: string;
}

/** A value no JSON can give a scalar, by scalar name (JSON and _Any take any value: no mistake of type there). */
const INVALID_SCALARS: Record<string, readonly unknown[]> = {
  String: [{ a: 1 }, ['x', { b: 2 }], true],
  ID: [true, { id: 'x' }, 1.5],
  Int: ['5', 1.5, 2 ** 40, false],
  Float: ['1.5', true, { n: 1 }],
  Boolean: ['true', 1, 'yes'],
  Date: ['2024-02-30', 'yesterday', 20240501],
  DateTime: ['yesterday', '2024-05-01', 0],
  JSONObject: [[1, 2], 'x', 3],
  Upload: ['report.pdf', { name: 'a.txt' }],
};

/** A value each scalar takes, picked by argument name where the name says what kind of id it is. */
function validScalar(name: string, hint: string): unknown {
  switch (name) {
    case 'Int':
      return 1;
    case 'Float':
      return 1.5;
    case 'Boolean':
      return true;
    case 'Date':
      return '2024-05-01';
    case 'DateTime':
      return '2024-05-01T12:00:00Z';
    case 'JSON':
    case 'JSONObject':
      return { type: 'object' };
    case '_Any':
      return { __typename: 'Title', imdbId: 'tt0078346' };
    case 'Upload':
      // No JSON value is a file: an operation that takes one is refused for it, whatever else it carries.
      return null;
    default:
      return /imdb/i.test(hint)
        ? 'tt0078346'
        : /provider/i.test(hint)
          ? 'deepseek'
          : /model/i.test(hint)
            ? 'deepseek-flash'
            : /service/i.test(hint)
              ? 'Exchange'
              : 'hello';
  }
}

/** One place a mistake can go: a path into a variable's value, and the type found there. */
interface Site {
  path: Array<string | number>;
  type: GraphQLInputType;
  /** Leaving it out is a mistake: a variable, or an input object's field without a default (not a list item). */
  omittable: boolean;
}

/**
 * Deterministic generator of variables with one client mistake each, for every field with arguments a client reaches
 * from the schema's root types: every root field of Query, Mutation and Subscription, and the fields below Query
 * reached through fields without required arguments (a domain's namespace: `admin { serviceAnnouncement { … } }`).
 * Every argument of the field is given by a variable of the argument's own type; all but one are valid.
 */
export class VariablesFuzzer {
  private readonly rng: () => number;

  constructor(
    private readonly schema: GraphQLSchema,
    seed: number,
  ) {
    this.rng = mulberry32(seed);
  }

  /** The fields a case targets, with their operation kind and the path that reaches them. */
  entryFields(): Array<{ kind: VariablesCase['kind']; path: string[]; field: GraphQLField<unknown, unknown> }> {
    const out: Array<{ kind: VariablesCase['kind']; path: string[]; field: GraphQLField<unknown, unknown> }> = [];
    const seen = new Set<GraphQLObjectType>();
    const walk = (kind: VariablesCase['kind'], type: GraphQLObjectType, path: string[], depth: number) => {
      if (seen.has(type)) return;
      seen.add(type);
      for (const field of Object.values(type.getFields())) {
        if (field.name.startsWith('__')) continue;
        if (field.args.length) out.push({ kind, path: [...path, field.name], field });
        const named = getNamedType(field.type);
        // Below Query only: a mutation's or subscription's result is reached by running it.
        if (kind === 'query' && depth < 3 && isObjectType(named) && !field.args.some((a) => isNonNullType(a.type)))
          walk(kind, named, [...path, field.name], depth + 1);
      }
    };
    const roots: Array<[VariablesCase['kind'], GraphQLObjectType | null | undefined]> = [
      ['query', this.schema.getQueryType()],
      ['mutation', this.schema.getMutationType()],
      ['subscription', this.schema.getSubscriptionType()],
    ];
    for (const [kind, root] of roots) {
      if (!root) continue;
      if (kind === 'query') walk(kind, root, [root.name], 0);
      else
        out.push(...Object.values(root.getFields()).map((field) => ({ kind, path: [root.name, field.name], field })));
    }
    return out;
  }

  /** Every case for every entry field, then at most `perField` of each field's, drawn with the seed. */
  cases(perField: number): VariablesCase[] {
    const out: VariablesCase[] = [];
    for (const entry of this.entryFields()) {
      const all: VariablesCase[] = [];
      for (const arg of entry.field.args) {
        // A variable of a non-null type without a default of its own must be given, whatever the argument's default.
        for (const site of this.sites(arg.type, [arg.name], true, 0))
          for (const mistake of this.mistakesAt(site)) all.push(this.build(entry, arg.name, site, mistake));
      }
      out.push(...this.draw(all, perField));
    }
    return out;
  }

  private draw<T>(items: T[], n: number): T[] {
    const pool = [...items];
    const drawn: T[] = [];
    while (pool.length && drawn.length < n) drawn.push(pool.splice(Math.floor(this.rng() * pool.length), 1)[0]);
    return drawn;
  }

  /** The places inside a value of `type` a mistake can go: itself, and (three levels down) its fields and items. */
  private sites(type: GraphQLInputType, path: Array<string | number>, omittable: boolean, depth: number): Site[] {
    const out: Site[] = [{ path, type, omittable }];
    const inner = getNullableType(type);
    if (depth >= 3) return out;
    if (isListType(inner)) out.push(...this.sites(inner.ofType, [...path, 0], false, depth + 1));
    else if (isInputObjectType(inner))
      for (const f of Object.values(inner.getFields()))
        out.push(...this.sites(f.type, [...path, f.name], f.defaultValue === undefined, depth + 1));
    return out;
  }

  private mistakesAt(site: Site): Mistake[] {
    const out: Mistake[] = [];
    const inner = getNullableType(site.type);
    if (isNonNullType(site.type)) {
      if (site.omittable) out.push('missing');
      out.push('null');
    }
    if (isScalarType(inner) && INVALID_SCALARS[inner.name]) out.push('wrong-type');
    if (isEnumType(inner)) out.push('wrong-enum', 'wrong-type');
    if (isInputObjectType(inner)) out.push('unknown-field', 'wrong-type');
    if (isListType(inner)) out.push('oversize-list');
    return out;
  }

  private build(
    entry: { kind: VariablesCase['kind']; path: string[]; field: GraphQLField<unknown, unknown> },
    variable: string,
    site: Site,
    mistake: Mistake,
  ): VariablesCase {
    const { field } = entry;
    const definitions = field.args.map((a) => `$${a.name}: ${a.type}`).join(', ');
    const selection = isCompositeType(getNamedType(field.type)) ? ' { __typename }' : '';
    let body = `${field.name}(${field.args.map((a) => `${a.name}: $${a.name}`).join(', ')})${selection}`;
    for (const parent of entry.path.slice(1, -1).reverse()) body = `${parent} { ${body} }`;
    const variables: Record<string, unknown> = {};
    for (const a of field.args)
      if (isNonNullType(a.type) || a.name === variable) variables[a.name] = this.valid(a.type, a.name, 0);
    this.apply(variables, site, mistake);
    // Coercion goes through the variables in order and stops at the first that fails: one taking a file always fails.
    const upload = field.args.find((a) => getNamedType(a.type).name === 'Upload' && a.name !== variable);
    const named =
      upload && field.args.indexOf(upload) < field.args.findIndex((a) => a.name === variable) ? upload.name : variable;
    return {
      kind: entry.kind,
      field: entry.path.join('.'),
      query: `${entry.kind} Fuzz(${definitions}) { ${body} }`,
      variables,
      mistake,
      variable,
      at: site.path.join('.'),
      named,
    };
  }

  /** A valid value of `type`: its required fields only, lists of one. */
  private valid(type: GraphQLInputType, hint: string, depth: number): unknown {
    const inner = getNullableType(type);
    if (isListType(inner)) return [this.valid(inner.ofType, hint, depth + 1)];
    if (isEnumType(inner)) return inner.getValues()[0].name;
    if (isInputObjectType(inner)) {
      const value: Record<string, unknown> = {};
      for (const f of Object.values(inner.getFields()))
        if (isNonNullType(f.type) && f.defaultValue === undefined)
          value[f.name] = depth > 6 ? null : this.valid(f.type, f.name, depth + 1);
      return value;
    }
    return validScalar(inner.name, hint);
  }

  /** Puts `mistake` at the site: the value there is left out, null, of another type, or grown. */
  private apply(variables: Record<string, unknown>, site: Site, mistake: Mistake): void {
    const parentPath = site.path.slice(0, -1);
    const key = site.path.at(-1)!;
    let parent: any = variables;
    parentPath.forEach((step, i) => {
      // A site inside an optional field the valid value left out: an empty container (itself a mistake, if anything).
      if (parent[step] === undefined || parent[step] === null)
        parent[step] = typeof site.path[i + 1] === 'number' ? [] : {};
      parent = parent[step];
    });
    const inner = getNullableType(site.type);
    switch (mistake) {
      case 'missing':
        delete parent[key];
        return;
      case 'null':
        parent[key] = null;
        return;
      case 'wrong-enum':
        parent[key] = this.pick(['NOT_A_VALUE', 'movie', '']);
        return;
      case 'unknown-field':
        parent[key] = { ...(this.valid(site.type, String(key), 0) as object), notAField: 1 };
        return;
      case 'wrong-type':
        parent[key] = isScalarType(inner)
          ? this.pick(INVALID_SCALARS[inner.name])
          : isEnumType(inner)
            ? 7
            : 'not an object';
        return;
      case 'oversize-list': {
        const item = isListType(inner) ? this.valid(inner.ofType, String(key), 1) : null;
        parent[key] = Array.from({ length: 2000 }, () => item);
        return;
      }
    }
  }

  private pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.rng() * items.length)];
  }
}
