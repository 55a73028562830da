/**
 * The OMDb estimate: before execution, the upstream requests the whole operation can need, for the upstream-request
 * budget and the daily quota (quota.ts), which refuses an operation (UPSTREAM_QUOTA_EXHAUSTED, every OMDb field of it)
 * rather than start work that would cross the quota halfway.
 *
 * The estimate walks the operation (fragments, @skip/@include, variables) and counts distinct requests, as the
 * loaders will dedupe them: a lookup per `title`, a request per search page plus one lookup per item when fields
 * beyond a search item's own are selected, a request per season list, and so on. Requests the shared cache answers
 * are left out; where a count is unknown before fetching (seasons of an uncached series, episodes of an uncached
 * season) a bound stands in ({@link UNSEEN_SERIES_SEASONS}, {@link UNSEEN_SEASON_EPISODES}), which the loader keeps
 * to: it sends no more requests than the estimate admitted (allowance.ts).
 */
import {
  Kind,
  type FieldNode,
  type GraphQLField,
  type GraphQLResolveInfo,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionSetNode,
} from 'graphql';
import { argumentsOf } from '../../planning/arguments.js';
import { VariablesMemo } from '../../planning/memo.js';
import { selectedFields, selectionVaries } from '../../planning/selection.js';
import { servedTypeName } from '../../planning/servedNames.js';
import type { UpstreamEstimator } from '../../planning/upstreamEstimate.js';
import type { OmdbAnswer, OmdbClient } from '../../upstreams/omdb/client.js';
import { omdbQueryKey, type OmdbQuery } from '../../upstreams/omdb/query.js';
import { searchQuery, titleQuery, type SearchArgs, type TitleArgs } from './input.js';
import { UNSEEN_SEASON_EPISODES, UNSEEN_SERIES_SEASONS } from './allowance.js';
import { recordOf } from './loaders.js';
import { SEARCH_ITEM_FIELDS, SEASON_EPISODE_FIELDS, toSeasonEpisodes } from './mapping.js';
import type { TitleRecord } from './model.js';

/** OMDb's page: at most 10 items, a true bound. */
export const SEARCH_PAGE_SIZE = 10;

/** A title as far as the estimate knows it. */
interface Subject {
  /** The real IMDb ID when known. */
  id?: string;
  /** A stable name for it when the ID is not known yet, so that the same unknown title is counted once. */
  sym: string;
  /** Fields known without a lookup; `all` for a looked-up record. */
  known: 'all' | ReadonlySet<string>;
  record?: TitleRecord;
  type?: string;
  seriesId?: string | null;
  /** An episode listed in a season: its series' name, so that every episode's `series` is one title to the estimate. */
  seriesSym?: string;
}

const SEARCH_ITEM = new Set<string>(SEARCH_ITEM_FIELDS);
const SEASON_EPISODE = new Set<string>(SEASON_EPISODE_FIELDS);
const SERIES_REF = new Set(['imdbId']);
const KNOWN_TAGS = new Map<ReadonlySet<string>, string>([
  [SEARCH_ITEM, 'item'],
  [SEASON_EPISODE, 'episode'],
  [SERIES_REF, 'ref'],
]);
/** Stands for a field without a selection set in {@link Estimate.walked}. */
const NO_SELECTION: SelectionSetNode = { kind: Kind.SELECTION_SET, selections: [] };

/**
 * What each selection set selects on a type, by schema, selection set and variables: it depends on nothing else, and
 * the estimate walks a cached document on every operation (it reads the cache, so its count is not kept), but its
 * walk of the document is made once per variables. Shared: read only.
 */
const fieldsBySchema = new WeakMap<GraphQLSchema, VariablesMemo<SelectionSetNode, readonly FieldNode[]>>();

/**
 * The same for a selection set whose fields no variable changes (no `@skip`/`@include` on a variable: nearly every
 * document), by schema, set and type: once per document, with no variables key made and looked up per operation.
 */
const fixedFieldsBySchema = new WeakMap<GraphQLSchema, WeakMap<SelectionSetNode, Map<string, readonly FieldNode[]>>>();

class Estimate {
  /** Distinct uncached requests: real query keys, or symbolic names for requests about titles not known yet. */
  readonly requests = new Set<string>();
  /** Cache keys this replica had no answer for (another replica may have cached them). */
  readonly missed: string[] = [];
  /**
   * The titles already walked under each selection set: walking one again adds no request (same title, same fields,
   * same cache), so each (title, selection) is walked once and nested series of episodes of series stay linear. A Map,
   * not a WeakMap: it lives as long as the estimate (one operation), and a WeakMap costs more to make and to fill.
   */
  private readonly walked = new Map<SelectionSetNode, Set<string>>();

  constructor(
    private readonly info: GraphQLResolveInfo,
    private readonly client: OmdbClient,
  ) {}

  /**
   * The operation's `title` lookups when they are all it asks OMDb for and none selects what needs more requests below
   * it (`series`, `seasons`, `episodes`), and no variable can change that; null when the whole walk is needed. Depends
   * on the document alone (the walks it reads are kept by document when no variable changes them).
   */
  lookupsOnly(op: OperationDefinitionNode): TitleLookups | null {
    const query = this.info.schema.getQueryType();
    if (op.operation !== 'query' || !query) return NO_LOOKUPS;
    const { fragments } = this.info;
    if (selectionVaries(op.selectionSet, fragments)) return null;
    const defs = query.getFields();
    const fields: FieldNode[] = [];
    for (const field of this.fields(op.selectionSet, query.name)) {
      const name = field.name.value;
      if (name === 'title' && defs.title) {
        const set = field.selectionSet;
        if (set && selectionVaries(set, fragments)) return null;
        if (this.fields(set, 'Title').some((f) => LOOKS_FURTHER.has(f.name.value))) return null;
        fields.push(field);
      } else if ((name === '_entities' || name === 'searchTitles') && defs[name]) return null;
    }
    return fields.length ? { def: defs.title, fields } : NO_LOOKUPS;
  }

  operation(op: GraphQLResolveInfo['operation']): number {
    const query = this.info.schema.getQueryType();
    if (op.operation !== 'query' || !query) return 0;
    for (const field of this.fields(op.selectionSet, query.name)) {
      const def = query.getFields()[field.name.value];
      if (field.name.value === 'title' && def) {
        this.lookup(argumentsOf(def, field, this.info.variableValues) as TitleArgs, field.selectionSet);
      } else if (field.name.value === '_entities' && def) {
        // Subgraph entity references: each Title representation is a lookup by id, like `title(imdbId:)`.
        const { representations } = argumentsOf(def, field, this.info.variableValues) as {
          representations?: unknown[];
        };
        for (const r of representations ?? []) {
          const ref = (r ?? {}) as Record<string, unknown>;
          // Only the fields selected on Title count: fields() keeps fragments that apply to it.
          if (ref.__typename === servedTypeName(this.info.schema, 'Title'))
            this.lookup({ imdbId: ref.imdbId === undefined ? undefined : String(ref.imdbId) }, field.selectionSet);
        }
      } else if (field.name.value === 'searchTitles' && def) {
        let q: OmdbQuery;
        try {
          q = searchQuery(argumentsOf(def, field, this.info.variableValues) as unknown as SearchArgs);
        } catch {
          continue;
        }
        const answer = this.request(q);
        if (answer && answer.kind !== 'search') continue;
        for (const items of this.fields(field.selectionSet, 'TitleSearchPage').filter(
          (f) => f.name.value === 'items',
        )) {
          if (answer?.kind === 'search') {
            for (const item of answer.search.Search)
              this.title(items.selectionSet, {
                id: item.imdbID,
                sym: item.imdbID,
                known: SEARCH_ITEM,
                type: item.Type?.toUpperCase(),
              });
          } else {
            for (let i = 0; i < SEARCH_PAGE_SIZE; i++)
              this.title(items.selectionSet, { sym: `${omdbQueryKey(q)}#${i}`, known: SEARCH_ITEM });
          }
        }
      }
    }
    return this.requests.size;
  }

  /** A lookup by id or title, then what is selected below it. */
  private lookup(args: TitleArgs, set: SelectionSetNode | undefined): void {
    let q: OmdbQuery;
    try {
      q = titleQuery(args);
    } catch {
      return; // refused as bad input before any request
    }
    const answer = this.request(q);
    if (answer && answer.kind !== 'title') return;
    const record = answer?.kind === 'title' ? recordOf(answer.title) : undefined;
    const id = record?.imdbId ?? (q.kind === 'byId' ? q.imdbId : undefined);
    this.title(set, { id, sym: omdbQueryKey(q), known: 'all', record, type: record?.type, seriesId: record?.seriesId });
  }

  private title(set: SelectionSetNode | undefined, subject: Subject): void {
    const key = `${subject.sym}\u0000${subject.known === 'all' ? 'all' : KNOWN_TAGS.get(subject.known)}`;
    let walked = this.walked.get(set ?? NO_SELECTION);
    if (!walked) this.walked.set(set ?? NO_SELECTION, (walked = new Set()));
    if (walked.has(key)) return;
    walked.add(key);
    const fields = this.fields(set, 'Title');
    let { record } = subject;
    const known = subject.known;
    if (known !== 'all' && fields.some((f) => needsLookup(f.name.value, known))) {
      if (subject.id) {
        const answer = this.request({ kind: 'byId', imdbId: subject.id, plot: 'short' });
        if (answer?.kind === 'title') record = recordOf(answer.title);
      } else this.requests.add(`details of ${subject.sym}`);
    }
    const type = record?.type ?? subject.type;
    for (const field of fields) {
      switch (field.name.value) {
        case 'series': {
          if (type && type !== 'EPISODE') break;
          // The resolver answers a reference that knows only the id: anything more is a lookup by id.
          const seriesId = record?.seriesId ?? subject.seriesId ?? undefined;
          this.title(field.selectionSet, {
            id: seriesId,
            sym: seriesId ?? `series of ${subject.seriesSym ?? subject.sym}`,
            known: SERIES_REF,
          });
          break;
        }
        case 'seasons': {
          if (type && type !== 'SERIES') break;
          const count = record?.totalSeasons ?? UNSEEN_SERIES_SEASONS;
          for (const episodes of this.fields(field.selectionSet, 'TitleSeason').filter(
            (f) => f.name.value === 'episodes',
          )) {
            for (let n = 1; n <= count; n++) this.season(subject, n, episodes.selectionSet);
          }
          break;
        }
        case 'episodes': {
          if (type && type !== 'SERIES') break;
          const def = this.info.schema.getType(servedTypeName(this.info.schema, 'Title'));
          const args =
            def && 'getFields' in def
              ? argumentsOf((def.getFields() as Record<string, never>).episodes, field, this.info.variableValues)
              : {};
          const n = Number(args.season);
          if (n >= 1) this.season(subject, n, field.selectionSet);
          break;
        }
      }
    }
  }

  private season(series: Subject, n: number, set: SelectionSetNode | undefined): void {
    if (series.id) {
      const answer = this.request({ kind: 'season', imdbId: series.id, season: n });
      if (answer?.kind === 'season') {
        for (const e of toSeasonEpisodes(answer.season, series.id)) {
          this.title(set, {
            id: e.imdbId,
            sym: e.imdbId,
            known: SEASON_EPISODE,
            type: 'EPISODE',
            seriesId: series.id,
            seriesSym: series.sym,
          });
        }
        return;
      }
      if (answer) return;
    } else this.requests.add(`season ${n} of ${series.sym}`);
    for (let i = 0; i < UNSEEN_SEASON_EPISODES; i++) {
      this.title(set, {
        sym: `${series.sym}/${n}#${i}`,
        known: SEASON_EPISODE,
        type: 'EPISODE',
        seriesId: series.id,
        seriesSym: series.sym,
      });
    }
  }

  /** A request the operation will make: counted unless the cache answers it; gives the cached answer. */
  private request(q: OmdbQuery): OmdbAnswer | undefined {
    const answer = this.client.peek(q);
    if (!answer) {
      const key = omdbQueryKey(q);
      this.requests.add(key);
      this.missed.push(key);
    }
    return answer;
  }

  /**
   * The fields a selection set selects on `typeName`, by response key (the planners' walker, planning/selection.ts:
   * fragments that apply merged, `@skip`/`@include` applied); a key selected twice has its sub-selections joined.
   */
  private fields(set: SelectionSetNode | undefined, typeName: string): readonly FieldNode[] {
    if (!set) return [];
    if (!selectionVaries(set, this.info.fragments)) {
      let bySet = fixedFieldsBySchema.get(this.info.schema);
      if (!bySet) fixedFieldsBySchema.set(this.info.schema, (bySet = new WeakMap()));
      let byType = bySet.get(set);
      if (!byType) bySet.set(set, (byType = new Map()));
      let fields = byType.get(typeName);
      if (!fields) byType.set(typeName, (fields = this.walk(set, typeName)));
      return fields;
    }
    let memo = fieldsBySchema.get(this.info.schema);
    if (!memo) fieldsBySchema.set(this.info.schema, (memo = new VariablesMemo(32)));
    return memo.get(set, this.info.variableValues, () => this.walk(set, typeName), typeName);
  }

  private walk(set: SelectionSetNode, typeName: string): readonly FieldNode[] {
    const holder = { kind: Kind.FIELD, name: { kind: Kind.NAME, value: typeName }, selectionSet: set } as FieldNode;
    return selectedFields([holder], typeName, this.info).map(({ nodes }) =>
      nodes.length === 1
        ? nodes[0]
        : {
            ...nodes[0],
            selectionSet: {
              kind: Kind.SELECTION_SET,
              selections: nodes.flatMap((n) => n.selectionSet?.selections ?? []),
            },
          },
    );
  }
}

/**
 * Whether selecting `field` on a title of every listing (a search page's items, a season's episodes) looks each one
 * up: the SDL's weight for a router (cost.ts), which cannot tell one listing from another.
 */
export const looksUpListedTitles = (field: string): boolean =>
  needsLookup(field, SEARCH_ITEM) && needsLookup(field, SEASON_EPISODE);

/** Whether selecting `field` of a partial title needs the whole record. */
function needsLookup(field: string, known: ReadonlySet<string>): boolean {
  switch (field) {
    case '__typename':
    case 'episodes':
      return false;
    case 'seasons':
      return !known.has('totalSeasons');
    case 'series':
      return !known.has('seriesId');
    default:
      return !known.has(field);
  }
}

/** The fields of a title's selection that can need requests of their own (Estimate.title). */
const LOOKS_FURTHER = new Set(['series', 'seasons', 'episodes']);

/** A document's OMDb requests when they are `title` lookups alone ({@link Estimate.lookupsOnly}). */
interface TitleLookups {
  def: GraphQLField<unknown, unknown> | undefined;
  fields: readonly FieldNode[];
}

const NO_LOOKUPS: TitleLookups = { def: undefined, fields: [] };

/** Each operation's {@link TitleLookups} (or null: walked whole), by schema: kept while its document is. */
const lookupsBySchema = new WeakMap<GraphQLSchema, WeakMap<OperationDefinitionNode, TitleLookups | null>>();

/**
 * The distinct uncached queries of `title` lookups: what the walk counts for them (each lookup's query, a request
 * unless this replica's cache answers it, nothing below it), without the walk's per-operation state.
 */
function uncachedLookups(lookups: TitleLookups, variables: Record<string, unknown>, client: OmdbClient): number {
  let first: string | undefined;
  let more: Set<string> | undefined;
  const fields = lookups.fields;
  // Indexed: read on every title operation, and an array iterator's results were garbage of each (bench:alloc, `next`).
  for (let i = 0; i < fields.length; i++) {
    const field = fields[i];
    let q: OmdbQuery;
    const args = argumentsOf(lookups.def!, field, variables) as TitleArgs;
    try {
      q = titleQuery(args);
    } catch {
      continue; // refused as bad input before any request
    }
    if (client.peek(q)) continue;
    const key = omdbQueryKey(q);
    if (first === undefined) first = key;
    else if (key !== first) (more ??= new Set([first])).add(key);
  }
  return more ? more.size : first === undefined ? 0 : 1;
}

/** How many OMDb requests the operation of `info` can need, leaving out what this replica's cache answers. */
export function estimateOmdbRequests(info: GraphQLResolveInfo, client: OmdbClient): number {
  let byOperation = lookupsBySchema.get(info.schema);
  if (!byOperation) lookupsBySchema.set(info.schema, (byOperation = new WeakMap()));
  let lookups = byOperation.get(info.operation);
  if (lookups === undefined)
    byOperation.set(info.operation, (lookups = new Estimate(info, client).lookupsOnly(info.operation)));
  // Admission decided once per document: only the lookups' queries and the cache are read per operation.
  return lookups
    ? uncachedLookups(lookups, info.variableValues, client)
    : new Estimate(info, client).operation(info.operation);
}

/** The same estimate before execution, for the per-operation upstream-request budget. */
export const estimateOmdbBeforeRun: UpstreamEstimator = (op, services) => ({
  omdb: estimateOmdbRequests(op as unknown as GraphQLResolveInfo, services.clients.omdb),
});

/** Rounds of copying shared cache entries before estimating again: each round can reveal the next level's keys. */
const PREFETCH_ROUNDS = 4;

/**
 * The estimate once this replica's cache holds what the shared cache (other replicas) has for the operation: copy
 * the entries it missed, walk again (cached answers reveal the next level's requests), until nothing new turns up.
 */
export async function estimateWithSharedCache(info: GraphQLResolveInfo, client: OmdbClient): Promise<number> {
  let estimate = new Estimate(info, client);
  let needed = estimate.operation(info.operation);
  const fetched = new Set<string>();
  for (let round = 0; round < PREFETCH_ROUNDS && client.cache?.shared; round++) {
    const keys = estimate.missed.filter((k) => !fetched.has(k));
    if (!keys.length) break;
    keys.forEach((k) => fetched.add(k));
    await client.cache.prefetch(keys);
    estimate = new Estimate(info, client);
    needed = estimate.operation(info.operation);
  }
  return needed;
}
