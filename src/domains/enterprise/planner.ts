import type { FieldNode } from 'graphql';
import { badInput } from '../../errors/codes.js';
import { decodeCursor } from './cursor.js';
import { toUpstreamName, UNKNOWN } from './enums.js';
import { odataString, toQueryString, withOptions, type ODataOptions } from './odata.js';
import { perDocument } from '../../planning/memo.js';
import { connectionNodes, selectedFields, type SelectionContext } from '../../planning/selection.js';

/**
 * Selection → OData. Each planner reads what the operation selects below a field and returns the one upstream
 * request that answers all of it: `$select` of the selected properties (always `id`), `$expand` of a selected
 * `issues` connection with its own options, `$top`/`$orderby`/`$filter` from the arguments.
 */

export const ANNOUNCEMENT = '/admin/serviceAnnouncement';
export const HEALTH_OVERVIEWS = `${ANNOUNCEMENT}/healthOverviews`;
export const ALL_ISSUES = `${ANNOUNCEMENT}/issues`;
export const MESSAGES = `${ANNOUNCEMENT}/messages`;
export const messagePath = (id: string) => `${MESSAGES}/${segment(id)}`;
export const issuePath = (id: string) => `${ALL_ISSUES}/${segment(id)}`;
export const healthOverviewPath = (id: string) => `${HEALTH_OVERVIEWS}/${segment(id)}`;

/**
 * An id as one path segment. Resolvers refuse bad ids first (writes.ts `checkId`); this stands behind them for any
 * path built from an id the upstream itself sent: `.` and `..` would be path steps, so they never reach a URL.
 */
function segment(id: string): string {
  if (/^\.{1,2}$/.test(id))
    throw badInput(`${JSON.stringify(id)} is not an id: . and .. are not sent as path segments.`, 'id');
  return encodeURIComponent(id);
}
export const issuesOfPath = (serviceId: string) => `${healthOverviewPath(serviceId)}/issues`;

/** Graph pages at most this many items per request. */
export const MAX_FIRST = 999;

export interface ListArgs {
  orderBy?: ReadonlyArray<{ field: string; direction?: string | null }> | null;
  first?: number | null;
  after?: string | null;
}

/** A graph type listed through a connection, and its fields that are upstream properties of the same name. */
export interface EntityShape {
  type: string;
  connection: string;
  edge: string;
  properties: ReadonlySet<string>;
}

export const ISSUE: EntityShape = {
  type: 'ServiceHealthIssue',
  connection: 'ServiceHealthIssueConnection',
  edge: 'ServiceHealthIssueEdge',
  properties: new Set([
    'title',
    'impactDescription',
    'classification',
    'origin',
    'status',
    'service',
    'feature',
    'featureGroup',
    'isResolved',
    'startDateTime',
    'endDateTime',
    'lastModifiedDateTime',
    'details',
    'posts',
  ]),
};

export const MESSAGE: EntityShape = {
  type: 'ServiceUpdateMessage',
  connection: 'ServiceUpdateMessageConnection',
  edge: 'ServiceUpdateMessageEdge',
  properties: new Set([
    'title',
    'startDateTime',
    'endDateTime',
    'lastModifiedDateTime',
    'details',
    'actionRequiredByDateTime',
    'expiryDateTime',
    'body',
    'category',
    'severity',
    'hasAttachments',
    'isMajorChange',
    'services',
    'tags',
    'viewPoint',
  ]),
};

const SERVICE_HEALTH_PROPERTIES = new Set(['service', 'status']);

/** `$top` and `$orderby` of a list field, refusing what the upstream would refuse. */
export function listOptions(args: ListArgs): Pick<ODataOptions, 'top' | 'orderby'> {
  const out: Pick<ODataOptions, 'top' | 'orderby'> = {};
  if (args.first !== undefined && args.first !== null) {
    if (!Number.isInteger(args.first) || args.first < 1 || args.first > MAX_FIRST) {
      throw badInput(
        `first: ${args.first} is out of range; ask for 1 to ${MAX_FIRST} items per page and page on with after.`,
        'first',
      );
    }
    out.top = args.first;
  }
  if (args.orderBy?.length) {
    const seen = new Set<string>();
    out.orderby = args.orderBy
      .map(({ field, direction }) => {
        if (seen.has(field))
          throw badInput(`orderBy: ${field} is given twice; name each field once, in priority order.`, 'orderBy');
        seen.add(field);
        return `${toUpstreamName(field)}${direction === 'DESC' ? ' desc' : ''}`;
      })
      .join(',');
  }
  if (args.after !== undefined && args.after !== null && args.after === '') {
    throw badInput('after: the empty string is not a cursor; leave after out to start at the first page.', 'after');
  }
  return out;
}

/** Identifies one argument set of a list field, so identical ones share one upstream request. */
export function argsKey(args: ListArgs): string {
  return JSON.stringify([
    args.first ?? null,
    (args.orderBy ?? []).map((o) => [o.field, o.direction ?? 'ASC']),
    args.after ?? null,
  ]);
}

/** `$select` for the entities selected by these item-level nodes (a connection's nodes, or an item field). */
export function entitySelect(shape: EntityShape, nodes: readonly FieldNode[], sc: SelectionContext): string[] {
  const select = new Set(['id']);
  for (const f of selectedFields(nodes, shape.type, sc)) if (shape.properties.has(f.name)) select.add(f.name);
  return [...select];
}

const itemNodes = (shape: EntityShape, connection: readonly FieldNode[], sc: SelectionContext) =>
  connectionNodes(connection, shape.connection, shape.edge, sc);

/** What to ask for each serviceHealth: its properties and at most one inline issue page. */
export interface ServiceHealthPlan {
  readonly select: readonly string[];
  /** The `issues` argument set answered inline, and its nested options. */
  expand?: { key: string; options: ODataOptions };
}

/**
 * Plans the serviceHealth entities selected by these ServiceHealth-level nodes. Graph expands one relationship per
 * level, so the first `issues` argument set without `after` is expanded (all aliases with the same arguments share
 * it); other argument sets are loaded per service by the `issues` resolver, batched.
 */
export const serviceHealthPlan = perDocument(function serviceHealthPlan(
  nodes: readonly FieldNode[],
  sc: SelectionContext,
): ServiceHealthPlan {
  const select = new Set(['id']);
  let expand: { key: string; args: ListArgs; nodes: FieldNode[] } | undefined;
  for (const f of selectedFields(nodes, 'ServiceHealth', sc)) {
    if (SERVICE_HEALTH_PROPERTIES.has(f.name)) select.add(f.name);
    if (f.name !== 'issues') continue;
    const args = f.args as ListArgs;
    listOptions(args);
    if (args.after) continue;
    const key = argsKey(args);
    if (!expand) expand = { key, args, nodes: [...f.nodes] };
    else if (expand.key === key) expand.nodes.push(...f.nodes);
  }
  if (!expand) return { select: [...select] };
  return {
    select: [...select],
    expand: {
      key: expand.key,
      options: { select: entitySelect(ISSUE, itemNodes(ISSUE, expand.nodes, sc), sc), ...listOptions(expand.args) },
    },
  };
});

/** The OData options of a serviceHealth request under a plan (item or collection). */
export function serviceHealthOptions(plan: ServiceHealthPlan): ODataOptions {
  return { select: plan.select, ...(plan.expand ? { expand: { nav: 'issues', options: plan.expand.options } } : {}) };
}

/** The link that fetches the inline issue page of one service, for its cursors. */
export function expandedIssuesLink(serviceId: string, plan: ServiceHealthPlan): string | undefined {
  return plan.expand ? issuesOfPath(serviceId) + toQueryString(plan.expand.options) : undefined;
}

/** The one request for a `healthOverviews` connection and everything selected below it. */
export function healthOverviewsRequest(
  args: ListArgs,
  connection: readonly FieldNode[],
  sc: SelectionContext,
): { path: string; plan: ServiceHealthPlan } {
  const list = listOptions(args);
  const plan = serviceHealthPlan(connectionNodes(connection, 'ServiceHealthConnection', 'ServiceHealthEdge', sc), sc);
  const options: ODataOptions = { ...serviceHealthOptions(plan), ...list };
  const path = args.after
    ? withOptions(decodeCursor(args.after, HEALTH_OVERVIEWS), options)
    : HEALTH_OVERVIEWS + toQueryString(options);
  return { path, plan };
}

/**
 * The one request for a connection of `shape` entities at `collectionPath`. A cursor keeps the order and filter of
 * the page it came from; only `$select` and `$top` follow this field.
 */
export function listRequest(
  shape: EntityShape,
  collectionPath: string,
  args: ListArgs,
  connection: readonly FieldNode[],
  sc: SelectionContext,
  filter?: string,
): string {
  const list = listOptions(args);
  const select = entitySelect(shape, itemNodes(shape, connection, sc), sc);
  if (args.after) return withOptions(decodeCursor(args.after, collectionPath), { select, top: list.top });
  return collectionPath + toQueryString({ select, ...list, filter });
}

/** The one request for an issue connection of `collectionPath` (one service's issues, or all issues). */
export const issuesRequest = (
  collectionPath: string,
  args: ListArgs,
  connection: readonly FieldNode[],
  sc: SelectionContext,
) => listRequest(ISSUE, collectionPath, args, connection, sc);

export interface MessageFilter {
  service?: string | null;
  tag?: string | null;
  severity?: string | null;
  category?: string | null;
  isMajorChange?: boolean | null;
}

/** Longer than any service name or tag Graph uses; longer input is a mistake, not a query. */
const MAX_FILTER_TEXT = 200;

function filterText(value: string, argument: string): string {
  if (!value.trim() || value.length > MAX_FILTER_TEXT || /[\u0000-\u001f]/.test(value)) {
    throw badInput(
      `${argument}: ${JSON.stringify(value.slice(0, 60))} is not a name to match; give 1 to ${MAX_FILTER_TEXT} printable characters, or leave it out.`,
      argument,
    );
  }
  return odataString(value);
}

function filterMember(value: string, argument: string): string {
  if (value === UNKNOWN)
    throw badInput(
      `${argument}: ${UNKNOWN} only describes values this gateway cannot name, so it cannot be filtered on; pick a concrete value.`,
      argument,
    );
  return odataString(toUpstreamName(value));
}

/** `$filter` of a `messages` field: every condition given, joined with `and`; undefined when there is none. */
export function messageFilter(filter: MessageFilter | null | undefined): string | undefined {
  if (!filter) return undefined;
  const terms: string[] = [];
  if (filter.service != null) terms.push(`services/any(s:s eq ${filterText(filter.service, 'filter.service')})`);
  if (filter.tag != null) terms.push(`tags/any(t:t eq ${filterText(filter.tag, 'filter.tag')})`);
  if (filter.severity != null) terms.push(`severity eq ${filterMember(filter.severity, 'filter.severity')}`);
  if (filter.category != null) terms.push(`category eq ${filterMember(filter.category, 'filter.category')}`);
  if (filter.isMajorChange != null) terms.push(`isMajorChange eq ${filter.isMajorChange}`);
  return terms.length ? terms.join(' and ') : undefined;
}

/** The one request for the `messages` connection. */
export function messagesRequest(
  args: ListArgs & { filter?: MessageFilter | null },
  connection: readonly FieldNode[],
  sc: SelectionContext,
): string {
  const filter = messageFilter(args.filter);
  return listRequest(MESSAGE, MESSAGES, args, connection, sc, filter);
}
