import DataLoader from 'dataloader';
import { perRequest, type GatewayContext } from '../../server/context.js';
import { graphClient, type GraphCall, type GraphClient, type GraphResult } from '../../upstreams/msgraph/client.js';
import type { RawServiceHealth } from '../../upstreams/msgraph/types.js';
import { toServiceHealth, type ServiceHealthModel } from './model.js';
import { expandedIssuesLink, healthOverviewPath, serviceHealthOptions, type ServiceHealthPlan } from './planner.js';
import { toQueryString } from './odata.js';

/** One `healthOverview(id:)` occurrence: the id and what that occurrence selects. */
export interface ServiceHealthKey {
  id: string;
  plan: ServiceHealthPlan;
}

const planKey = (plan: ServiceHealthPlan) => `${plan.select.join(',')}|${plan.expand?.key ?? ''}`;

/**
 * Everything enterprise keeps for one GraphQL request: the caller's authorization (resolved once), identical GETs
 * shared, and the loaders that batch lookups into `$batch`. It dies with the request, so nothing a caller's token
 * fetched is ever served to another caller.
 */
export class EnterpriseSession {
  readonly client: GraphClient;
  private authorization: Promise<string> | undefined;
  private readonly gets = new Map<string, Promise<GraphResult>>();

  /** `healthOverview(id:)` lookups of the whole operation: one GET for one id, `$batch` for several. */
  readonly serviceHealth: DataLoader<ServiceHealthKey, ServiceHealthModel | null, string>;
  /** Issue pages of services whose `issues` were not expanded inline, batched across parents. */
  readonly pages: DataLoader<string, GraphResult>;

  constructor(private readonly ctx: GatewayContext) {
    this.client = graphClient(ctx.services);
    this.serviceHealth = new DataLoader((keys) => this.loadServiceHealth(keys), { cacheKeyFn: (k) => `${k.id}\u0000${planKey(k.plan)}` });
    this.pages = new DataLoader(async (paths) => this.client.getMany(paths, await this.call()));
  }

  /** Credentials and cancellation for one upstream call; UNAUTHENTICATED before any request when there are none. */
  async call(): Promise<GraphCall> {
    this.authorization ??= this.client.authorization(this.ctx.credentials.authorization);
    return { authorization: await this.authorization, signal: this.ctx.signal, requestId: this.ctx.requestId };
  }

  /** A GET, sent once per request however many fields ask for the same path. */
  get(path: string): Promise<GraphResult> {
    let pending = this.gets.get(path);
    if (!pending) {
      pending = this.call().then((call) => this.client.get(path, call));
      this.gets.set(path, pending);
    }
    return pending;
  }

  /**
   * Occurrences of the same id with the same inline issue page become one item whose `$select` is the union of
   * theirs; 404 answers null, other failures become that field's error.
   */
  private async loadServiceHealth(keys: readonly ServiceHealthKey[]): Promise<Array<ServiceHealthModel | null | Error>> {
    const groups = new Map<string, { id: string; select: Set<string>; plan: ServiceHealthPlan; indexes: number[] }>();
    keys.forEach((k, i) => {
      const gk = `${k.id}\u0000${k.plan.expand?.key ?? ''}`;
      const g = groups.get(gk) ?? { id: k.id, select: new Set<string>(), plan: k.plan, indexes: [] };
      k.plan.select.forEach((s) => g.select.add(s));
      g.indexes.push(i);
      groups.set(gk, g);
    });
    const list = [...groups.values()].map((g) => ({ ...g, plan: { ...g.plan, select: [...g.select] } }));
    const results = await this.client.getMany(
      list.map((g) => healthOverviewPath(g.id) + toQueryString(serviceHealthOptions(g.plan))),
      await this.call(),
    );
    const out: Array<ServiceHealthModel | null | Error> = new Array(keys.length);
    list.forEach((g, i) => {
      const r = results[i];
      let value: ServiceHealthModel | null | Error;
      if (r.ok) {
        const raw = r.body as RawServiceHealth;
        const link = expandedIssuesLink(raw.id, g.plan);
        value = toServiceHealth(raw, link && g.plan.expand ? { key: g.plan.expand.key, link } : undefined, (l) => this.client.relative(l));
      } else value = r.status === 404 ? null : r.error;
      for (const index of g.indexes) out[index] = value;
    });
    return out;
  }
}

export const enterpriseSession = (ctx: GatewayContext): EnterpriseSession => perRequest(ctx, EnterpriseSession, (c) => new EnterpriseSession(c));
