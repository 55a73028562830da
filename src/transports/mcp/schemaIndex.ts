import {
  getNamedType,
  GraphQLObjectType,
  GraphQLSchema,
  isEnumType,
  isInputObjectType,
  isInterfaceType,
  isObjectType,
  isUnionType,
  printType,
  type GraphQLField,
  type GraphQLInputField,
  type GraphQLNamedType,
} from 'graphql';

/**
 * The schema as an agent explores it (MCP_INTROSPECTION): the served graph without the federation plumbing (`_service`,
 * `_entities`, `_Any`, …), each type's shortest path from the query root, and a word index of every type, field,
 * argument-taking field, input field and enum value for `search`. Built once at start-up; a search is linear in the
 * schema's size (a hundred types, a few hundred fields here), whatever the words.
 */
export class SchemaIndex {
  readonly schema: GraphQLSchema;
  private readonly entries: IndexEntry[] = [];
  /**
   * The shortest field path from the query root to each object type it reaches (`admin.serviceAnnouncement`), or from
   * the mutation root (`mutation.createServiceHealth`) when mutations may run.
   */
  private readonly paths = new Map<string, string>();

  constructor(schema: GraphQLSchema, options: { mutations: boolean }) {
    this.schema = withoutFederation(schema, options.mutations);
    this.walkPaths();
    for (const type of this.types()) this.add(type);
  }

  /** The named types an agent may ask about: the graph's own, none of GraphQL's or federation's. */
  types(): GraphQLNamedType[] {
    return Object.values(this.schema.getTypeMap()).filter((t) => !t.name.startsWith('_') && !isBuiltIn(t));
  }

  /** The SDL of `name` and, to `depth` levels, of the types its fields and arguments name; undefined for an unknown type. */
  introspect(name: string, depth: number): { types: string[]; sdl: string } | undefined {
    const start = this.schema.getType(name);
    if (!start || name.startsWith('_') || isBuiltIn(start)) return undefined;
    const seen = new Set([start.name]);
    let level = [start];
    for (let d = 0; d < depth; d++) {
      const next: GraphQLNamedType[] = [];
      for (const type of level) {
        for (const referenced of referencedTypes(type)) {
          if (seen.has(referenced.name) || referenced.name.startsWith('_') || isBuiltIn(referenced)) continue;
          seen.add(referenced.name);
          next.push(referenced);
        }
      }
      level = next;
    }
    const types = [...seen];
    return { types, sdl: types.map((t) => printType(this.schema.getType(t)!)).join('\n\n') };
  }

  /** The query-root path to an object type, when the root reaches it. */
  pathTo(type: string): string | undefined {
    return this.paths.get(type);
  }

  /** Entries matching `terms`, best first: names count more than descriptions, a whole word more than a part. */
  search(terms: readonly string[], limit: number): SearchHit[] {
    const words = [...new Set(terms.flatMap(wordsOf))];
    const hits: SearchHit[] = [];
    for (const entry of this.entries) {
      let score = 0;
      for (const word of words) score += matchScore(entry, word);
      if (score > 0) hits.push({ ...entry.hit, score });
    }
    return hits
      .sort((a, b) => b.score - a.score || depthOf(a) - depthOf(b) || a.coordinate.localeCompare(b.coordinate))
      .slice(0, limit);
  }

  /** Breadth first from the query root (and the mutation root, when served), so each type keeps its shortest path. */
  private walkPaths(): void {
    const query = this.schema.getQueryType()!;
    const mutation = this.schema.getMutationType();
    this.paths.set(query.name, '');
    if (mutation) this.paths.set(mutation.name, 'mutation');
    const queue: GraphQLObjectType[] = mutation ? [query, mutation] : [query];
    while (queue.length) {
      const type = queue.shift()!;
      const base = this.paths.get(type.name)!;
      for (const field of Object.values(type.getFields())) {
        const target = getNamedType(field.type);
        if (
          !(isObjectType(target) || isInterfaceType(target)) ||
          this.paths.has(target.name) ||
          field.name.startsWith('_')
        )
          continue;
        this.paths.set(target.name, base ? `${base}.${field.name}` : field.name);
        if (isObjectType(target)) queue.push(target);
      }
    }
  }

  private add(type: GraphQLNamedType): void {
    // An object only a subscription reaches is of no use to a query an agent writes.
    if ((isObjectType(type) || isInterfaceType(type) || isUnionType(type)) && !this.paths.has(type.name)) return;
    this.entries.push(
      entry(
        {
          coordinate: type.name,
          kind: typeKind(type),
          description: type.description ?? undefined,
          path: this.paths.get(type.name),
        },
        type.name,
      ),
    );
    if (isObjectType(type) || isInterfaceType(type)) {
      for (const field of Object.values(type.getFields()))
        this.entries.push(this.fieldEntry(type, field, type === this.schema.getMutationType()));
    } else if (isInputObjectType(type)) {
      for (const field of Object.values(type.getFields())) this.entries.push(this.inputFieldEntry(type, field));
    } else if (isEnumType(type)) {
      for (const value of type.getValues()) {
        this.entries.push(
          entry(
            {
              coordinate: `${type.name}.${value.name}`,
              kind: 'enum value',
              description: value.description ?? undefined,
            },
            value.name,
            [],
            type.name,
          ),
        );
      }
    }
  }

  private fieldEntry(parent: GraphQLNamedType, field: GraphQLField<unknown, unknown>, mutation: boolean): IndexEntry {
    const base = this.paths.get(parent.name);
    const args = field.args.map((a) => `${a.name}: ${String(a.type)}`).join(', ');
    return entry(
      {
        coordinate: `${parent.name}.${field.name}`,
        kind: mutation ? 'mutation' : 'field',
        type: String(field.type),
        ...(args ? { arguments: args } : {}),
        description: field.description ?? undefined,
        path: base === undefined ? undefined : base ? `${base}.${field.name}` : field.name,
      },
      field.name,
      field.args.map((a) => a.name),
      parent.name,
    );
  }

  private inputFieldEntry(parent: GraphQLNamedType, field: GraphQLInputField): IndexEntry {
    return entry(
      {
        coordinate: `${parent.name}.${field.name}`,
        kind: 'input field',
        type: String(field.type),
        description: field.description ?? undefined,
      },
      field.name,
      [],
      parent.name,
    );
  }
}

/** One search result: where it is (a schema coordinate), what it is, and how to reach it from the query root. */
export interface SearchHit {
  /** `Type`, `Type.field` or `Enum.VALUE`. */
  coordinate: string;
  kind: string;
  /** A field's type, as SDL. */
  type?: string;
  /** A field's arguments, as SDL. */
  arguments?: string;
  description?: string;
  /** The fields from the query root to it (`admin.serviceAnnouncement.issues`), when the root reaches it. */
  path?: string;
  score: number;
}

interface IndexEntry {
  hit: Omit<SearchHit, 'score'>;
  /** The name lower-cased without underscores, its words, and their stems. */
  name: string;
  nameWords: readonly string[];
  nameStems: readonly string[];
  /** The stems of the words of the type a field or value belongs to (`ServiceHealthIssue` for `impactDescription`). */
  parentStems: readonly string[];
  descriptionStems: ReadonlySet<string>;
}

function entry(
  hit: Omit<SearchHit, 'score'>,
  name: string,
  extraNames: readonly string[] = [],
  parent = '',
): IndexEntry {
  const nameWords = [...wordsOf(name), ...extraNames.flatMap(wordsOf)];
  return {
    hit: Object.fromEntries(Object.entries(hit).filter(([, v]) => v !== undefined)) as Omit<SearchHit, 'score'>,
    name: name.toLowerCase().replace(/_/g, ''),
    nameWords,
    nameStems: nameWords.map(stem),
    parentStems: wordsOf(parent).map(stem),
    descriptionStems: new Set(wordsOf(hit.description ?? '').map(stem)),
  };
}

/**
 * How well one searched word matches: the whole name 10, a word of the name 6, its stem 4, a word of the type it
 * belongs to 3 ("impact issue" finds ServiceHealthIssue.impactDescription first), a prefix 2, the description 1.
 */
function matchScore(e: IndexEntry, word: string): number {
  if (e.name === word) return 10;
  if (e.nameWords.includes(word)) return 6;
  const s = stem(word);
  if (e.nameStems.includes(s)) return 4;
  if (e.parentStems.includes(s)) return 3;
  if (word.length >= 3 && e.nameWords.some((w) => w.startsWith(word))) return 2;
  return e.descriptionStems.has(s) ? 1 : 0;
}

/** The words of a name or a text: split at case changes, digits and anything not a letter, lower-cased. */
function wordsOf(text: string): string[] {
  return text
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w.length > 1);
}

/** A light English stem, enough for "degraded" to find DEGRADATION and "issues" ISSUE. */
function stem(word: string): string {
  for (const suffix of ['ations', 'ation', 'ions', 'ion', 'ings', 'ing', 'ies', 'ed', 'es', 's']) {
    if (word.length - suffix.length >= 3 && word.endsWith(suffix))
      return suffix === 'ies' ? `${word.slice(0, -3)}y` : word.slice(0, -suffix.length);
  }
  return word;
}

function depthOf(hit: SearchHit): number {
  return hit.path === undefined ? 99 : hit.path.split('.').length;
}

function typeKind(type: GraphQLNamedType): string {
  if (isObjectType(type)) return 'object type';
  if (isInterfaceType(type)) return 'interface';
  if (isUnionType(type)) return 'union';
  if (isEnumType(type)) return 'enum';
  if (isInputObjectType(type)) return 'input type';
  return 'scalar';
}

function referencedTypes(type: GraphQLNamedType): GraphQLNamedType[] {
  if (isObjectType(type) || isInterfaceType(type)) {
    return Object.values(type.getFields()).flatMap((f) => [
      getNamedType(f.type),
      ...f.args.map((a) => getNamedType(a.type)),
    ]);
  }
  if (isInputObjectType(type)) return Object.values(type.getFields()).map((f) => getNamedType(f.type));
  if (isUnionType(type)) return [...type.getTypes()];
  return [];
}

/** GraphQL's own scalars and introspection types. */
function isBuiltIn(type: GraphQLNamedType): boolean {
  return type.name.startsWith('__') || ['String', 'Int', 'Float', 'Boolean', 'ID'].includes(type.name);
}

/**
 * The served graph as a client sees it: the query root without `_service` and `_entities` (a federation router's,
 * not an agent's), the mutation root only when mutations may run (MCP_ALLOW_MUTATIONS), no subscription root (/mcp
 * runs none).
 */
function withoutFederation(schema: GraphQLSchema, mutations: boolean): GraphQLSchema {
  const config = schema.toConfig();
  const query = schema.getQueryType()!.toConfig();
  const fields = Object.fromEntries(Object.entries(query.fields).filter(([name]) => !name.startsWith('_')));
  return new GraphQLSchema({
    query: new GraphQLObjectType({ ...query, fields }),
    mutation: mutations ? config.mutation : undefined,
    types: config.types.filter(
      (t) => !t.name.startsWith('_') && t !== config.query && t !== config.mutation && t !== config.subscription,
    ),
    directives: config.directives,
  });
}
