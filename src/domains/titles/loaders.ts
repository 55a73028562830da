/**
 * Every OMDb answer a resolver needs goes through one per-request DataLoader (identical requests of one operation,
 * whatever their aliases, fragments or nesting, become one), then the shared client (in-flight coalescing across
 * operations, TTL cache and daily quota, both shared by the replicas with Redis).
 */
import DataLoader from 'dataloader';
import { badInput, ErrorCode, GatewayError } from '../../errors/codes.js';
import { OperationKey, perOperation, type GatewayContext } from '../../context/request.js';
import type { OmdbAnswer } from '../../upstreams/omdb/client.js';
import { omdbQueryKey, type OmdbQuery } from '../../upstreams/omdb/query.js';
import type { OmdbTitleJson } from '../../upstreams/omdb/types.js';
import { takeOmdbRequest } from './allowance.js';
import { toSearchItem, toSeasonEpisodes, toTitleRecord } from './mapping.js';
import type { TitleRecord, TitleRef } from './model.js';

const LOADER = new OperationKey<OmdbLoader>('OMDb loader');

const omdbLoader = (ctx: GatewayContext): OmdbLoader => perOperation(ctx, LOADER, newLoader);

/** Made once, not a closure per lookup. */
const newLoader = (ctx: GatewayContext) => new OmdbLoader(ctx);

/**
 * OMDb has no batch endpoint: a batch is distinct requests sent side by side, each past the cache taken from the
 * operation's allowance first (allowance.ts: refused at its field when none is left); one that fails is its key's
 * error.
 */
class OmdbLoader extends DataLoader<OmdbQuery, OmdbAnswer, string> {
  constructor(private readonly ctx: GatewayContext) {
    // DataLoader takes its batch function as a function: one per operation's loader, the work in a method.
    super((queries) => this.batch(queries), OPTIONS);
  }

  private batch(queries: readonly OmdbQuery[]): Promise<Array<OmdbAnswer | Error>> {
    // One lookup (the usual operation): its request read into the batch's one value, without `Promise.all`.
    if (queries.length === 1) {
      const sent = this.send(queries[0]);
      return sent instanceof Error ? Promise.resolve([sent]) : sent.then(inList, failedInList);
    }
    return Promise.all(
      queries.map((q) => {
        const sent = this.send(q);
        return sent instanceof Error ? sent : sent.catch(asError);
      }),
    );
  }

  private send(query: OmdbQuery): Promise<OmdbAnswer> | Error {
    const client = this.ctx.services.clients.omdb;
    return (client.peek(query) ? undefined : takeOmdbRequest(this.ctx)) ?? client.get(query, this.ctx);
  }
}

/** Shared by every operation's loader: keys of one normalized request are one load. */
const OPTIONS: DataLoader.Options<OmdbQuery, OmdbAnswer, string> = { cacheKeyFn: omdbQueryKey };

const inList = (answer: OmdbAnswer): [OmdbAnswer] => [answer];
const failedInList = (error: unknown): [Error] => [asError(error)];

const asError = (error: unknown): Error => (error instanceof Error ? error : new Error(String(error)));

/** Where an answer keeps its record: a symbol, invisible to JSON.stringify (a cache that serialises it) and to readers. */
const RECORD = Symbol('its TitleRecord');

/**
 * Cached answers are shared objects, so each record is mapped once, and kept on the answer itself rather than in a
 * WeakMap by answer: uncached, every lookup's answer is a new object, and a long-lived table gaining an entry per
 * request is rebuilt in the old generation as it fills (garbage promoted by every operation).
 */
export function recordOf(json: OmdbTitleJson): TitleRecord {
  const holder = json as OmdbTitleJson & { [RECORD]?: TitleRecord };
  return (holder[RECORD] ??= toTitleRecord(json));
}

type TitleQuery = Extract<OmdbQuery, { kind: 'byId' | 'byTitle' }>;

/** A title by ID or name; null when OMDb knows none. */
export function lookupTitle(ctx: GatewayContext, query: TitleQuery): Promise<TitleRecord | null> {
  return omdbLoader(ctx).load(query).then(titleRecord);
}

const titleRecord = (answer: OmdbAnswer): TitleRecord | null =>
  answer.kind === 'title' ? recordOf(answer.title) : null;

/** A title as a field answers it: what it knows is its whole record. */
export const asRef = (record: TitleRecord): TitleRef => ({ imdbId: record.imdbId, known: record });

/** {@link lookupTitle} as the field's value: one reaction on the loader's promise, not a second on the record's. */
export function lookupTitleRef(ctx: GatewayContext, query: TitleQuery): Promise<TitleRef | null> {
  return omdbLoader(ctx).load(query).then(titleRef);
}

const titleRef = (answer: OmdbAnswer): TitleRef | null => {
  const record = titleRecord(answer);
  return record && asRef(record);
};

/** The whole record behind a partial title (search hit, season episode, series of an episode); short plot. */
export async function titleDetails(ctx: GatewayContext, ref: TitleRef): Promise<TitleRecord> {
  const record = await lookupTitle(ctx, { kind: 'byId', imdbId: ref.imdbId, plot: 'short' });
  if (!record) {
    throw new GatewayError(
      ErrorCode.NotFound,
      `OMDb has no details for ${ref.imdbId}, though it listed it; ask again later.`,
      { upstream: 'omdb' },
    );
  }
  return record;
}

export interface SearchPage {
  totalResults: number;
  page: number;
  items: TitleRef[];
}

/** One search page; no match is an empty page, a query OMDb finds too broad is the caller's to lengthen. */
export async function searchPage(
  ctx: GatewayContext,
  query: Extract<OmdbQuery, { kind: 'search' }>,
): Promise<SearchPage> {
  const answer = await omdbLoader(ctx).load(query);
  if (answer.kind === 'tooManyResults') {
    throw badInput(
      `OMDb finds too many titles for ${JSON.stringify(query.query.trim())}: search with a longer, more specific query.`,
      'query',
    );
  }
  if (answer.kind !== 'search') return { totalResults: 0, page: query.page, items: [] };
  const total = Number(answer.search.totalResults);
  return {
    totalResults: Number.isFinite(total) ? total : answer.search.Search.length,
    page: query.page,
    items: answer.search.Search.map(toSearchItem),
  };
}

/** The episodes of one season of a series; empty when OMDb has no such season. */
export async function seasonEpisodes(ctx: GatewayContext, seriesId: string, season: number): Promise<TitleRef[]> {
  const answer = await omdbLoader(ctx).load({ kind: 'season', imdbId: seriesId, season });
  return answer.kind === 'season' ? toSeasonEpisodes(answer.season, seriesId) : [];
}
