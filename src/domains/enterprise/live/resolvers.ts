import type { GraphQLResolveInfo } from 'graphql';
import { badInput, ErrorCode, GatewayError } from '../../../errors/codes.js';
import type { Resolvers } from '../../../generated/resolvers.js';
import type { ServiceHealthStatus } from '../../../generated/types.js';
import type { GatewayContext } from '../../../context/request.js';
import { fromUpstreamEnum, SERVICE_HEALTH_STATUS } from '../enums.js';
import { toServiceHealth, toServiceHealthIssue, toServiceUpdateMessage } from '../model.js';
import { entitySelect, ISSUE, MESSAGE, serviceHealthPlan } from '../planner.js';
import { enterpriseSession } from '../session.js';
import { POLLED, ServiceFilter } from './changes.js';
import type { HealthEvent, MessageEvent } from './feed.js';

/** More than any tenant's services; a longer list is a mistake, not a filter. */
const MAX_SERVICES = 100;

/** The `services:` argument, checked before anything is subscribed: null for every service. */
function serviceFilter(services: readonly string[] | null | undefined): ServiceFilter | undefined {
  if (services === null || services === undefined) return undefined;
  if (services.length === 0)
    throw badInput(
      'services: an empty list matches no service; leave services out to hear about every service.',
      'services',
    );
  if (services.length > MAX_SERVICES)
    throw badInput(
      `services: ${services.length} entries are more than ${MAX_SERVICES}; leave services out to hear about every service.`,
      'services',
    );
  const bad = services.find((s) => !s.trim() || s.length > 128 || /[\u0000-\u001f]/.test(s));
  if (bad !== undefined) {
    throw badInput(
      `services: ${JSON.stringify(bad.slice(0, 60))} is not a service id or name; pass ids such as "Exchange" or names such as "Exchange Online".`,
      'services',
    );
  }
  const key = services.join('\n');
  let filter = filters.get(key);
  if (!filter) {
    if (filters.size >= MAX_SHARED_FILTERS) filters.clear();
    filters.set(key, (filter = new ServiceFilter(services)));
  }
  return filter;
}

/**
 * Filters by their list, shared: thousands of dashboards subscribe with a handful of lists, and each filter holds its
 * services lower-cased. Bounded, since clients choose the lists.
 */
const filters = new Map<string, ServiceFilter>();
const MAX_SHARED_FILTERS = 1000;

/** Live health polls with the gateway's own token: a delegated-only gateway has none to poll with. */
function checkCanPoll(ctx: GatewayContext): void {
  const graph = ctx.services.config.graph;
  if (graph.mode === 'live' && !graph.clientSecret) {
    throw new GatewayError(
      ErrorCode.Unauthenticated,
      "Live service health polls Microsoft Graph once for all subscribers with the gateway's own token: configure GRAPH_TENANT_ID, GRAPH_CLIENT_ID and GRAPH_CLIENT_SECRET (application permissions, ServiceHealth.Read.All and ServiceMessage.Read.All).",
      { upstream: 'graph' },
    );
  }
}

/** True when everything selected is among what the poll read, so the payload needs no request of its own. */
const polled = (select: readonly string[], read: readonly string[]) => select.every((p) => read.includes(p));

const notFound = (what: string) =>
  new GatewayError(
    ErrorCode.NotFound,
    `${what} changed and then disappeared upstream before its fields could be read.`,
    { upstream: 'graph' },
  );

export const liveResolvers: Resolvers = {
  Subscription: {
    serviceHealthChanged: {
      subscribe: (_root, { services }, ctx) => {
        const filter = serviceFilter(services);
        checkCanPoll(ctx);
        return ctx.services.domains.liveHealth.healthChanges(filter, ctx.services, ctx.signal);
      },
      resolve: (event: HealthEvent, _args: unknown, ctx: GatewayContext) => {
        event.scope.adopt(ctx);
        return event;
      },
    },
    serviceMessagePosted: {
      subscribe: (_root, { services }, ctx) => {
        const filter = serviceFilter(services);
        checkCanPoll(ctx);
        return ctx.services.domains.liveHealth.messagePosts(filter, ctx.services, ctx.signal);
      },
      async resolve({ post, scope }: MessageEvent, _args: unknown, ctx: GatewayContext, info: GraphQLResolveInfo) {
        scope.adopt(ctx);
        const select = entitySelect(MESSAGE, info.fieldNodes, info);
        if (polled(select, POLLED.message)) return toServiceUpdateMessage(post.message);
        const message = await enterpriseSession(ctx).messages.load({ id: post.message.id, select });
        if (!message) throw notFound(`Message ${post.message.id}`);
        return message;
      },
    },
  },
  ServiceHealthChange: {
    kind: (event) => event.kind,
    detectedAt: (event) => event.detectedAt,
    previousStatus: (event) => fromUpstreamEnum<ServiceHealthStatus>(SERVICE_HEALTH_STATUS, event.previousStatus),
    async serviceHealth(event, _args, ctx, info) {
      const plan = serviceHealthPlan(info.fieldNodes, info);
      const session = enterpriseSession(ctx);
      if (!plan.expand && polled(plan.select, POLLED.service))
        return toServiceHealth(event.serviceHealth, undefined, (l) => session.client.relative(l));
      const service = await session.serviceHealth.load({ id: event.serviceHealth.id, plan });
      if (!service) throw notFound(`Service ${event.serviceHealth.id}`);
      return service;
    },
    async issue(event, _args, ctx, info) {
      if (!event.issue) return null;
      const select = entitySelect(ISSUE, info.fieldNodes, info);
      if (polled(select, POLLED.issue)) return toServiceHealthIssue(event.issue);
      const issue = await enterpriseSession(ctx).issues.load({ id: event.issue.id, select });
      if (!issue) throw notFound(`Issue ${event.issue.id}`);
      return issue;
    },
  },
};
