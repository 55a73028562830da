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
import { BatchLoader } from '../batchLoader.js';

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
  /** What besides the id must match for two occurrences to share a request (e.g. the inline issue page). */
  group(key: K): string;
  /** The item's path and query for the union `select` of its group. */
  path(key: K, select: readonly string[]): string;
  map(body: unknown, key: K, select: readonly string[]): T;
}

/**
 * Everything enterprise keeps for one GraphQL request: the caller's authorization (resolved once), identical GETs
 * shared, and the loaders that batch lookups into `$batch`. It dies with the request, so nothing a caller's token
 * fetched is ever served to another caller.
 */
export class EnterpriseSession {
  readonly client: GraphClient;
  private authorization: string | Promise<string> | undefined;
  private readonly gets = new Map<string, Promise<GraphResult>>();

  private loaders: {
    serviceHealth?: BatchLoader<ServiceHealthKey, ServiceHealthModel | null, GraphResult>;
    messages?: BatchLoader<ItemKey, ServiceUpdateMessageModel | null, GraphResult>;
    issues?: BatchLoader<ItemKey, ServiceHealthIssueModel | null, GraphResult>;
    pages?: BatchLoader<string, GraphResult>;
  } = {};

  constructor(private readonly ctx: GatewayContext) {
    this.client = ctx.services.clients.graph;
  }

  // The loaders are made on first use: an operation needs one or two of the four, and each costs its allocations
  // on every request that builds it.

  /** `healthOverview(id:)` lookups of the whole operation: one GET for one id, `$batch` for several. */
  get serviceHealth(): BatchLoader<ServiceHealthKey, ServiceHealthModel | null, GraphResult> {
    return (this.loaders.serviceHealth ??= this.itemLoader<ServiceHealthKey, ServiceHealthModel>({
      select: (k) => k.plan.select,
      group: (k) => k.plan.expand?.key ?? '',
      path: (k, select) =>
        healthOverviewPath(k.id) +
        (select === k.plan.select ? queryOf(k.plan) : toQueryString(serviceHealthOptions({ ...k.plan, select }))),
      map: (body, k, select) => {
        const raw = body as RawServiceHealth;
        const plan = select === k.plan.select ? k.plan : { ...k.plan, select };
        const link = expandedIssuesLink(raw.id, plan);
        return toServiceHealth(raw, link && plan.expand ? { key: plan.expand.key, link } : undefined, (l) =>
          this.client.relative(l),
        );
      },
    }));
  }

  /** `message(id:)` lookups of the whole operation, batched the same way. */
  get messages(): BatchLoader<ItemKey, ServiceUpdateMessageModel | null, GraphResult> {
    return (this.loaders.messages ??= this.itemLoader<ItemKey, ServiceUpdateMessageModel>({
      select: (k) => k.select,
      group: () => '',
      path: (k, select) => messagePath(k.id) + toQueryString({ select }),
      map: (body) => toServiceUpdateMessage(body as RawServiceUpdateMessage),
    }));
  }

  /** Issues by id (`ServiceHealthIssue` entity references), batched the same way. */
  get issues(): BatchLoader<ItemKey, ServiceHealthIssueModel | null, GraphResult> {
    return (this.loaders.issues ??= this.itemLoader<ItemKey, ServiceHealthIssueModel>({
      select: (k) => k.select,
      group: () => '',
      path: (k, select) => issuePath(k.id) + toQueryString({ select }),
      map: (body) => toServiceHealthIssue(body as RawServiceHealthIssue),
    }));
  }

  /** Issue pages of services whose `issues` were not expanded inline, batched across parents. */
  get pages(): BatchLoader<string, GraphResult> {
    return (this.loaders.pages ??= new BatchLoader<string, GraphResult>(
      {
        many: (paths) => this.withCall((call) => this.client.getMany(paths, call)),
        one: (path) => this.withCall((call) => this.client.get(path, call)),
        value: (result) => result,
      },
      (path) => path,
    ));
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

  /** `send` with the call's credentials: at once when they are at hand, else once they are resolved. */
  private withCall<T>(send: (call: GraphCall) => Promise<T>): Promise<T> {
    const call = this.call();
    return call instanceof Promise ? call.then(send) : send(call);
  }

  /** A GET, sent once per request however many fields ask for the same path. */
  get(path: string): Promise<GraphResult> {
    let pending = this.gets.get(path);
    if (!pending) {
      pending = this.withCall((call) => this.client.get(path, call));
      this.gets.set(path, pending);
    }
    return pending;
  }

  /**
   * Lookups by id: occurrences of the same id and group become one item whose `$select` is the union of theirs;
   * one item is a plain GET, more a `$batch`. 404 answers null, other failures become that field's error.
   */
  private itemLoader<K extends { id: string }, T>(lookup: ItemLookup<K, T>): BatchLoader<K, T | null, GraphResult> {
    const valueOf = (r: GraphResult, key: K, select: readonly string[]): T | null | Error =>
      r.ok ? lookup.map(r.body, key, select) : r.status === 404 ? null : r.error;
    return new BatchLoader<K, T | null, GraphResult>(
      {
        // One lookup (the usual operation): its own select, without the grouping's map, sets and copies.
        one: (key) => {
          const path = lookup.path(key, distinct(lookup.select(key)));
          return this.withCall((call) => this.client.get(path, call));
        },
        value: (r, key) => valueOf(r, key, distinct(lookup.select(key))),
        many: async (keys) => {
          const groups = new Map<string, { key: K; select: Set<string>; indexes: number[] }>();
          keys.forEach((k, i) => {
            const gk = `${k.id}\u0000${lookup.group(k)}`;
            const g = groups.get(gk) ?? { key: k, select: new Set<string>(), indexes: [] };
            lookup.select(k).forEach((s) => g.select.add(s));
            g.indexes.push(i);
            groups.set(gk, g);
          });
          const list = [...groups.values()].map((g) => ({ ...g, select: [...g.select] }));
          const results = await this.withCall((call) =>
            this.client.getMany(
              list.map((g) => lookup.path(g.key, g.select)),
              call,
            ),
          );
          const out: Array<T | null | Error> = new Array(keys.length);
          list.forEach((g, i) => {
            const value = valueOf(results[i], g.key, g.select);
            for (const index of g.indexes) out[index] = value;
          });
          return out;
        },
      },
      (k) => `${k.id}\u0000${lookup.group(k)}\u0000${lookup.select(k).join(',')}`,
    );
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
  perOperation(ctx, ENTERPRISE_SESSION, (c) => new EnterpriseSession(c));
