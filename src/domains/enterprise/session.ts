import DataLoader from 'dataloader';
import { OperationKey, perOperation, type GatewayContext } from '../../context/request.js';
import type { GraphCall, GraphClient, GraphResult } from '../../upstreams/msgraph/client.js';
import type {
  RawServiceHealth,
  RawServiceHealthIssue,
  RawServiceUpdateMessage,
} from '../../upstreams/msgraph/types.js';
import {
  toServiceHealth,
  toServiceHealthIssue,
  toServiceUpdateMessage,
  type ServiceHealthIssueModel,
  type ServiceHealthModel,
  type ServiceUpdateMessageModel,
} from './model.js';
import {
  expandedIssuesLink,
  healthOverviewPath,
  issuePath,
  messagePath,
  serviceHealthOptions,
  type ServiceHealthPlan,
} from './planner.js';
import { toQueryString } from './odata.js';

/** One `healthOverview(id:)` occurrence: the id and what that occurrence selects. */
export interface ServiceHealthKey {
  id: string;
  plan: ServiceHealthPlan;
}

/** One `message(id:)` occurrence (or issue by id): the id and the properties it selects. */
export interface ItemKey {
  id: string;
  select: readonly string[];
}

/** How one kind of item is looked up by id; occurrences in the same `group` become one upstream item. */
interface ItemLookup<K extends { id: string }, T> {
  select(key: K): readonly string[];
  /**
   * The object, made once per document (the field's plan, or its select list), whose `select` and `group` are the
   * key's: its part of the loader's cache key is joined once, not on every load.
   */
  shape(key: K): object;
  /** What besides the id must match for two occurrences to share a request (e.g. the inline issue page). */
  group(key: K): string;
  /** The item's path and query for the union `select` of its group. */
  path(key: K, select: readonly string[]): string;
  map(body: unknown, key: K, select: readonly string[], client: GraphClient): T;
  /** The loader's options (its `cacheKeyFn`), made once with the kind and shared by every operation's loader. */
  options?: DataLoader.Options<K, T | null, string>;
}

/** A kind of item with its DataLoader options: occurrences of one id, group and select are one load. */
function itemLookup<K extends { id: string }, T>(lookup: ItemLookup<K, T>): ItemLookup<K, T> {
  const rests = new WeakMap<object, string>();
  const rest = (k: K) => {
    const shape = lookup.shape(k);
    let found = rests.get(shape);
    if (found === undefined) rests.set(shape, (found = `\u0000${lookup.group(k)}\u0000${lookup.select(k).join(',')}`));
    return found;
  };
  return { ...lookup, options: { cacheKeyFn: (k) => k.id + rest(k) } };
}

// The kinds of item, made once: an operation makes only the loader of each kind it uses.

const SERVICE_HEALTH = itemLookup<ServiceHealthKey, ServiceHealthModel>({
  select: (k) => k.plan.select,
  shape: (k) => k.plan,
  group: (k) => k.plan.expand?.key ?? '',
  path: (k, select) =>
    healthOverviewPath(k.id) +
    (select === k.plan.select ? queryOf(k.plan) : toQueryString(serviceHealthOptions({ ...k.plan, select }))),
  map: (body, k, select, client) => {
    const raw = body as RawServiceHealth;
    const plan = select === k.plan.select ? k.plan : { ...k.plan, select };
    const link = expandedIssuesLink(raw.id, plan);
    return toServiceHealth(raw, link && plan.expand ? { key: plan.expand.key, link } : undefined, (l) =>
      client.relative(l),
    );
  },
});

const MESSAGE = itemLookup<ItemKey, ServiceUpdateMessageModel>({
  select: (k) => k.select,
  shape: (k) => k.select,
  group: () => '',
  path: (k, select) => messagePath(k.id) + toQueryString({ select }),
  map: (body) => toServiceUpdateMessage(body as RawServiceUpdateMessage),
});

const ISSUE = itemLookup<ItemKey, ServiceHealthIssueModel>({
  select: (k) => k.select,
  shape: (k) => k.select,
  group: () => '',
  path: (k, select) => issuePath(k.id) + toQueryString({ select }),
  map: (body) => toServiceHealthIssue(body as RawServiceHealthIssue),
});

/**
 * Everything enterprise keeps for one GraphQL request: the caller's authorization (resolved once), identical GETs
 * shared, and the loaders that batch lookups into `$batch`. It dies with the request, so nothing a caller's token
 * fetched is ever served to another caller.
 */
export class EnterpriseSession {
  readonly client: GraphClient;
  private authorization: string | Promise<string> | undefined = undefined;
  private gets: Map<string, Promise<GraphResult>> | undefined = undefined;

  // The loaders (and the table of GETs) are made on first use: an operation needs one or two of the four, and each
  // costs its allocations on every request that builds it.
  private serviceHealthLoader: ItemLoader<ServiceHealthKey, ServiceHealthModel> | undefined = undefined;
  private messagesLoader: ItemLoader<ItemKey, ServiceUpdateMessageModel> | undefined = undefined;
  private issuesLoader: ItemLoader<ItemKey, ServiceHealthIssueModel> | undefined = undefined;
  private pagesLoader: PageLoader | undefined = undefined;

  constructor(private readonly ctx: GatewayContext) {
    this.client = ctx.services.clients.graph;
  }

  /** `healthOverview(id:)` lookups of the whole operation: one GET for one id, `$batch` for several. */
  get serviceHealth(): DataLoader<ServiceHealthKey, ServiceHealthModel | null, string> {
    return (this.serviceHealthLoader ??= new ItemLoader(this, SERVICE_HEALTH));
  }

  /** `message(id:)` lookups of the whole operation, batched the same way. */
  get messages(): DataLoader<ItemKey, ServiceUpdateMessageModel | null, string> {
    return (this.messagesLoader ??= new ItemLoader(this, MESSAGE));
  }

  /** Issues by id (`ServiceHealthIssue` entity references), batched the same way. */
  get issues(): DataLoader<ItemKey, ServiceHealthIssueModel | null, string> {
    return (this.issuesLoader ??= new ItemLoader(this, ISSUE));
  }

  /** Issue pages of services whose `issues` were not expanded inline, batched across parents. */
  get pages(): DataLoader<string, GraphResult> {
    return (this.pagesLoader ??= new PageLoader(this));
  }

  /** Credentials and cancellation for one upstream call; UNAUTHENTICATED before any request when there are none. */
  call(): GraphCall | Promise<GraphCall> {
    const authorization = (this.authorization ??= this.client.authorization(
      this.ctx.caller.authorization,
      this.ctx.requestId,
    ));
    // The caller's own header (or a token resolved before) is at hand: no promise per upstream request for it.
    if (typeof authorization === 'string') return this.callWith(authorization);
    return authorization.then((resolved) => {
      this.authorization = resolved;
      return this.callWith(resolved);
    });
  }

  private callWith(authorization: string): GraphCall {
    // `aborts`, not `signal`: the operation's controller makes no AbortSignal for waits that follow it directly.
    return { authorization, signal: this.ctx.aborts, requestId: this.ctx.requestId, tally: this.ctx.upstreamRequests };
  }

  /** A GET, sent once per request however many fields ask for the same path. */
  get(path: string): Promise<GraphResult> {
    const gets = (this.gets ??= new Map());
    let pending = gets.get(path);
    if (!pending) {
      pending = this.getOnce(path);
      gets.set(path, pending);
    }
    return pending;
  }

  /** A GET with the call's credentials: sent at once when they are at hand. */
  getOnce(path: string): Promise<GraphResult> {
    const call = this.call();
    return call instanceof Promise ? call.then((c) => this.client.get(path, c)) : this.client.get(path, call);
  }

  /** GETs of several paths with the call's credentials (client.getMany). */
  getMany(paths: readonly string[]): Promise<GraphResult[]> {
    const call = this.call();
    return call instanceof Promise ? call.then((c) => this.client.getMany(paths, c)) : this.client.getMany(paths, call);
  }
}

/**
 * Lookups by id: occurrences of the same id and group become one item whose `$select` is the union of theirs;
 * one item is a plain GET, more a `$batch`. 404 answers null, other failures become that field's error.
 */
class ItemLoader<K extends { id: string }, T> extends DataLoader<K, T | null, string> {
  constructor(
    private readonly session: EnterpriseSession,
    private readonly lookup: ItemLookup<K, T>,
  ) {
    // DataLoader takes its batch function as a function: one per loader, the work in a method.
    super((keys) => this.batch(keys), lookup.options);
  }

  private batch(keys: readonly K[]): Promise<Array<T | null | Error>> {
    if (keys.length !== 1) return this.many(keys);
    // One lookup (the usual operation): its own select, without the grouping's map, sets and copies, nor an async
    // frame; a throw is the batch's rejection, as the async function's was (not DataLoader's "errored synchronously").
    const key = keys[0];
    try {
      const select = distinct(this.lookup.select(key));
      return this.session.getOnce(this.lookup.path(key, select)).then((r) => [this.itemValue(r, key, select)]);
    } catch (error) {
      return Promise.reject(error);
    }
  }

  private async many(keys: readonly K[]): Promise<Array<T | null | Error>> {
    const { lookup } = this;
    const groups = new Map<string, { key: K; select: Set<string>; indexes: number[] }>();
    keys.forEach((k, i) => {
      const gk = `${k.id}\u0000${lookup.group(k)}`;
      const g = groups.get(gk) ?? { key: k, select: new Set<string>(), indexes: [] };
      lookup.select(k).forEach((s) => g.select.add(s));
      g.indexes.push(i);
      groups.set(gk, g);
    });
    const list = [...groups.values()].map((g) => ({ ...g, select: [...g.select] }));
    const results = await this.session.getMany(list.map((g) => lookup.path(g.key, g.select)));
    const out: Array<T | null | Error> = new Array(keys.length);
    list.forEach((g, i) => {
      const value = this.itemValue(results[i], g.key, g.select);
      for (const index of g.indexes) out[index] = value;
    });
    return out;
  }

  private itemValue(r: GraphResult, key: K, select: readonly string[]): T | null | Error {
    return r.ok ? this.lookup.map(r.body, key, select, this.session.client) : r.status === 404 ? null : r.error;
  }
}

/** Issue pages by path, batched across parents: one path is a plain GET (client.getMany). */
class PageLoader extends DataLoader<string, GraphResult> {
  constructor(private readonly session: EnterpriseSession) {
    super((paths) => this.batch(paths));
  }

  private batch(paths: readonly string[]): Promise<GraphResult[]> {
    try {
      return this.session.getMany(paths);
    } catch (error) {
      return Promise.reject(error);
    }
  }
}

/** Where a plan keeps the query string of its lookup by id: a symbol, as titles' records do (loaders.ts `recordOf`). */
const QUERY = Symbol('the query string of its lookup by id');

/**
 * The `$select`/`$expand` query string of a plan's own lookup, made once per plan: a plan is kept per document and
 * variables (planning/memo.ts) and looked up by every operation that runs them; kept on the plan itself, not in a
 * table by plan, so it goes with the plan and no long-lived table grows per plan.
 */
function queryOf(plan: ServiceHealthPlan): string {
  const kept = (plan as ServiceHealthPlan & { [QUERY]?: string })[QUERY];
  if (kept !== undefined) return kept;
  const query = toQueryString(serviceHealthOptions(plan));
  // Not enumerable: a copy of the plan with another `select` (`{ ...plan, select }`) must not carry it.
  Object.defineProperty(plan, QUERY, { value: query });
  return query;
}

/** The list itself when no name repeats (a plan's `select` usually), else its names once each, in order. */
function distinct(names: readonly string[]): readonly string[] {
  return names.every((name, i) => names.indexOf(name) === i) ? names : [...new Set(names)];
}

/** The operation's enterprise session (a live batch puts its own in place: live/feed.ts). */
export const ENTERPRISE_SESSION = new OperationKey<EnterpriseSession>('enterprise session');

export const enterpriseSession = (ctx: GatewayContext): EnterpriseSession =>
  perOperation(ctx, ENTERPRISE_SESSION, newSession);

/** Made once, not a closure per resolver call. */
const newSession = (ctx: GatewayContext) => new EnterpriseSession(ctx);
