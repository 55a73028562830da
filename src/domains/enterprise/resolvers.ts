import type { GraphQLResolveInfo } from 'graphql';
import type { Resolvers } from '../../generated/resolvers.js';
import type { GatewayContext } from '../../context/request.js';
import type { GraphResult } from '../../upstreams/msgraph/client.js';
import type {
  RawCollection,
  RawServiceHealth,
  RawServiceHealthIssue,
  RawSingleton,
} from '../../upstreams/msgraph/types.js';
import { cursorAt, pageInfo } from './cursor.js';
import {
  toServiceHealth,
  toServiceHealthIssue,
  toServiceUpdateMessage,
  toSingletonData,
  type Page,
  type ServiceHealthIssueModel,
  type ServiceHealthModel,
  type ServiceUpdateMessageModel,
  type SingletonModel,
} from './model.js';
import {
  ALL_ISSUES,
  argsKey,
  entitySelect,
  expandedIssuesLink,
  HEALTH_OVERVIEWS,
  healthOverviewPath,
  healthOverviewsRequest,
  issuesOfPath,
  issuesRequest,
  ISSUE,
  listOptions,
  MESSAGE,
  messagesRequest,
  serviceHealthPlan,
  type ListArgs,
} from './planner.js';
import { enterpriseSession } from './session.js';
import {
  checkId,
  checkIfMatch,
  toUpstreamIssue,
  toUpstreamProperties,
  toUpstreamServiceHealth,
  toUpstreamServiceHealthPatch,
} from './writes.js';

/** The body of a successful answer, or its error thrown as this field's error. */
function bodyOf<T>(r: GraphResult): T {
  if (!r.ok) throw r.error;
  return r.body as T;
}

/** A collection page in graph shape; `map` is the type's one mapping function. */
function toPage<R, T>(r: GraphResult, link: string, ctx: GatewayContext, map: (raw: R) => T): Page<T> {
  const body = bodyOf<RawCollection<R>>(r);
  const next = body['@odata.nextLink'];
  return {
    nodes: (body.value ?? []).map(map),
    link,
    next: next ? enterpriseSession(ctx).client.relative(next) : undefined,
  };
}

async function singleton(parent: SingletonModel, ctx: GatewayContext): Promise<NonNullable<SingletonModel['data']>> {
  return parent.data ?? toSingletonData(bodyOf<RawSingleton>(await enterpriseSession(ctx).get(parent.path)));
}

/** An `issues` connection of one service: the inline page when the planner expanded it, else one batched GET. */
async function issuesOf(parent: ServiceHealthModel, args: ListArgs, ctx: GatewayContext, info: GraphQLResolveInfo) {
  listOptions(args);
  const inline = args.after ? undefined : parent.issuePages.get(argsKey(args));
  if (inline) return inline;
  const path = issuesRequest(issuesOfPath(parent.id), args, info.fieldNodes, info);
  return toPage(await enterpriseSession(ctx).pages.load(path), path, ctx, toServiceHealthIssue);
}

function connection<T>() {
  return {
    nodes: (page: Page<T>) => page.nodes,
    edges: (page: Page<T>) => page.nodes.map((node, i) => ({ cursor: cursorAt(page, i), node })),
    pageInfo: (page: Page<T>) => page,
  };
}

const ANNOUNCEMENT: SingletonModel = { path: '/admin/serviceAnnouncement' };
const ADMIN: SingletonModel = { path: '/admin', serviceAnnouncement: ANNOUNCEMENT };

export const resolvers: Resolvers = {
  Query: {
    // Reading only children of admin costs nothing here: the planner collapses admin → serviceAnnouncement.
    admin: () => ADMIN,
  },
  Admin: {
    etag: async (parent, _, ctx) => (await singleton(parent, ctx)).etag,
    properties: async (parent, _, ctx) => (await singleton(parent, ctx)).properties,
  },
  ServiceAnnouncement: {
    etag: async (parent, _, ctx) => (await singleton(parent, ctx)).etag,
    properties: async (parent, _, ctx) => (await singleton(parent, ctx)).properties,
    async healthOverviews(_, args, ctx, info) {
      const { path, plan } = healthOverviewsRequest(args, info.fieldNodes, info);
      const session = enterpriseSession(ctx);
      return toPage<RawServiceHealth, ServiceHealthModel>(await session.get(path), path, ctx, (raw) => {
        const link = expandedIssuesLink(raw.id, plan);
        return toServiceHealth(raw, link && plan.expand ? { key: plan.expand.key, link } : undefined, (l) =>
          session.client.relative(l),
        );
      });
    },
    // Not async: the loader's promise itself, not one more resolved with it (a bad id still throws this field's error).
    healthOverview(_, { id }, ctx, info) {
      checkId(id);
      return enterpriseSession(ctx).serviceHealth.load({ id, plan: serviceHealthPlan(info.fieldNodes, info) });
    },
    async issues(_, args, ctx, info) {
      const path = issuesRequest(ALL_ISSUES, args, info.fieldNodes, info);
      return toPage(await enterpriseSession(ctx).get(path), path, ctx, toServiceHealthIssue);
    },
    async messages(_, args, ctx, info) {
      const path = messagesRequest(args, info.fieldNodes, info);
      return toPage(await enterpriseSession(ctx).get(path), path, ctx, toServiceUpdateMessage);
    },
    async message(_, { id }, ctx, info) {
      checkId(id, 'id', 'a message id such as "MC172851"');
      return enterpriseSession(ctx).messages.load({ id, select: entitySelect(MESSAGE, info.fieldNodes, info) });
    },
  },
  // Entity references (`_entities`) go through the same loaders as `healthOverview(id:)` and `message(id:)`: every
  // representation of one `_entities` call is one lookup batch per kind, and an id Graph does not know is null.
  // Async, so a bad representation fails its own entry, not the whole list.
  ServiceHealth: {
    __resolveReference: async (ref, ctx, info) =>
      enterpriseSession(ctx).serviceHealth.load({
        id: checkId(String(ref.id ?? '')),
        plan: serviceHealthPlan(info.fieldNodes, info),
      }),
    issues: (parent, args, ctx, info) => issuesOf(parent, args, ctx, info),
  },
  ServiceHealthIssue: {
    __resolveReference: async (ref, ctx, info) =>
      enterpriseSession(ctx).issues.load({
        id: checkId(String(ref.id ?? ''), 'id', 'an issue id such as "EX123456"'),
        select: entitySelect(ISSUE, info.fieldNodes, info),
      }),
  },
  ServiceUpdateMessage: {
    __resolveReference: async (ref, ctx, info) =>
      enterpriseSession(ctx).messages.load({
        id: checkId(String(ref.id ?? ''), 'id', 'a message id such as "MC172851"'),
        select: entitySelect(MESSAGE, info.fieldNodes, info),
      }),
  },
  ServiceHealthConnection: connection<ServiceHealthModel>(),
  ServiceHealthIssueConnection: connection<ServiceHealthIssueModel>(),
  ServiceUpdateMessageConnection: connection<ServiceUpdateMessageModel>(),
  PageInfo: {
    hasNextPage: (page) => pageInfo(page).hasNextPage,
    hasPreviousPage: (page) => pageInfo(page).hasPreviousPage,
    startCursor: (page) => pageInfo(page).startCursor,
    endCursor: (page) => pageInfo(page).endCursor,
  },
  Mutation: {
    async updateAdmin(_, { input }, ctx) {
      const body = toUpstreamProperties(input.properties);
      const session = enterpriseSession(ctx);
      const r = await session.client.write('PATCH', '/admin', body, await session.call());
      return { ...ADMIN, data: toSingletonData(bodyOf<RawSingleton>(r)) };
    },
    async updateServiceAnnouncement(_, { input }, ctx) {
      const body = toUpstreamProperties(input.properties);
      const session = enterpriseSession(ctx);
      const r = await session.client.write('PATCH', ANNOUNCEMENT.path, body, await session.call());
      return { path: ANNOUNCEMENT.path, data: toSingletonData(bodyOf<RawSingleton>(r)) };
    },
    async deleteServiceAnnouncement(_, { ifMatch }, ctx) {
      const session = enterpriseSession(ctx);
      bodyOf(
        await session.client.write('DELETE', ANNOUNCEMENT.path, undefined, {
          ...(await session.call()),
          ifMatch: checkIfMatch(ifMatch),
        }),
      );
      return true;
    },
    async createServiceHealth(_, { input }, ctx) {
      const session = enterpriseSession(ctx);
      const r = await session.client.write(
        'POST',
        HEALTH_OVERVIEWS,
        toUpstreamServiceHealth(input),
        await session.call(),
      );
      return toServiceHealth(bodyOf<RawServiceHealth>(r), undefined, (l) => session.client.relative(l));
    },
    async updateServiceHealth(_, { id, input, ifMatch }, ctx) {
      checkId(id);
      const body = toUpstreamServiceHealthPatch(input);
      const session = enterpriseSession(ctx);
      const r = await session.client.write('PATCH', healthOverviewPath(id), body, {
        ...(await session.call()),
        ifMatch: checkIfMatch(ifMatch),
      });
      return toServiceHealth(bodyOf<RawServiceHealth>(r), undefined, (l) => session.client.relative(l));
    },
    async deleteServiceHealth(_, { id, ifMatch }, ctx) {
      checkId(id);
      const session = enterpriseSession(ctx);
      const r = await session.client.write('DELETE', healthOverviewPath(id), undefined, {
        ...(await session.call()),
        ifMatch: checkIfMatch(ifMatch),
      });
      if (!r.ok && r.status === 404) return false;
      bodyOf(r);
      return true;
    },
    async createServiceHealthIssue(_, { serviceHealthId, input }, ctx) {
      checkId(serviceHealthId, 'serviceHealthId');
      const session = enterpriseSession(ctx);
      const r = await session.client.write(
        'POST',
        issuesOfPath(serviceHealthId),
        toUpstreamIssue(input),
        await session.call(),
      );
      return toServiceHealthIssue(bodyOf<RawServiceHealthIssue>(r));
    },
  },
};
