import type { FieldNode } from 'graphql';
import { badInput } from '../../errors.js';
import { decodeCursor } from './cursor.js';
import { toUpstreamName } from './enums.js';
import { toQueryString, withOptions, type ODataOptions } from './odata.js';
import { connectionNodes, selectedFields, type SelectionContext } from '../../planning/selection.js';

/**
 * Selection → OData. Each planner reads what the operation selects below a field and returns the one upstream
 * request that answers all of it: `$select` of the selected properties (always `id`), `$expand` of a selected
 * `issues` connection with its own options, `$top`/`$orderby` from the arguments.
 */

export const ANNOUNCEMENT = '/admin/serviceAnnouncement';
export const HEALTH_OVERVIEWS = `${ANNOUNCEMENT}/healthOverviews`;
export const ALL_ISSUES = `${ANNOUNCEMENT}/issues`;
export const healthOverviewPath = (id: string) => `${HEALTH_OVERVIEWS}/${encodeURIComponent(id)}`;
export const issuesOfPath = (serviceId: string) => `${healthOverviewPath(serviceId)}/issues`;

/** Graph pages at most this many items per request. */
export const MAX_FIRST = 999;

export interface ListArgs {
  orderBy?: ReadonlyArray<{ field: string; direction?: string | null }> | null;
  first?: number | null;
  after?: string | null;
}

/** Graph fields of ServiceHealthIssue that are upstream properties of the same name. */
const ISSUE_PROPERTIES = new Set([
  'title', 'impactDescription', 'classification', 'origin', 'status', 'service', 'feature', 'featureGroup', 'isResolved',
  'startDateTime', 'endDateTime', 'lastModifiedDateTime', 'details', 'posts',
]);
const SERVICE_HEALTH_PROPERTIES = new Set(['service', 'status']);

/** `$top` and `$orderby` of a list field, refusing what the upstream would refuse. */
export function listOptions(args: ListArgs): Pick<ODataOptions, 'top' | 'orderby'> {
  const out: Pick<ODataOptions, 'top' | 'orderby'> = {};
  if (args.first !== undefined && args.first !== null) {
    if (!Number.isInteger(args.first) || args.first < 1 || args.first > MAX_FIRST) {
      throw badInput(`first: ${args.first} is out of range; ask for 1 to ${MAX_FIRST} items per page and page on with after.`, 'first');
    }
    out.top = args.first;
  }
  if (args.orderBy?.length) {
    const seen = new Set<string>();
    out.orderby = args.orderBy
      .map(({ field, direction }) => {
        if (seen.has(field)) throw badInput(`orderBy: ${field} is given twice; name each field once, in priority order.`, 'orderBy');
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
  return JSON.stringify([args.first ?? null, (args.orderBy ?? []).map((o) => [o.field, o.direction ?? 'ASC']), args.after ?? null]);
}

/** `$select` for issues selected by these ServiceHealthIssue-level nodes. */
function issueSelect(nodes: readonly FieldNode[], sc: SelectionContext): string[] {
  const select = new Set(['id']);
  for (const f of selectedFields(nodes, 'ServiceHealthIssue', sc)) if (ISSUE_PROPERTIES.has(f.name)) select.add(f.name);
  return [...select];
}

const issueNodes = (connection: readonly FieldNode[], sc: SelectionContext) =>
  connectionNodes(connection, 'ServiceHealthIssueConnection', 'ServiceHealthIssueEdge', sc);

/** What to ask for each serviceHealth: its properties and at most one inline issue page. */
export interface ServiceHealthPlan {
  select: string[];
  /** The `issues` argument set answered inline, and its nested options. */
  expand?: { key: string; options: ODataOptions };
}

/**
 * Plans the serviceHealth entities selected by these ServiceHealth-level nodes. Graph expands one relationship per
 * level, so the first `issues` argument set without `after` is expanded (all aliases with the same arguments share
 * it); other argument sets are loaded per service by the `issues` resolver, batched.
 */
export function serviceHealthPlan(nodes: readonly FieldNode[], sc: SelectionContext): ServiceHealthPlan {
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
  return { select: [...select], expand: { key: expand.key, options: { select: issueSelect(issueNodes(expand.nodes, sc), sc), ...listOptions(expand.args) } } };
}

/** The OData options of a serviceHealth request under a plan (item or collection). */
export function serviceHealthOptions(plan: ServiceHealthPlan): ODataOptions {
  return { select: plan.select, ...(plan.expand ? { expand: { nav: 'issues', options: plan.expand.options } } : {}) };
}

/** The link that fetches the inline issue page of one service, for its cursors. */
export function expandedIssuesLink(serviceId: string, plan: ServiceHealthPlan): string | undefined {
  return plan.expand ? issuesOfPath(serviceId) + toQueryString(plan.expand.options) : undefined;
}

/** The one request for a `healthOverviews` connection and everything selected below it. */
export function healthOverviewsRequest(args: ListArgs, connection: readonly FieldNode[], sc: SelectionContext): { path: string; plan: ServiceHealthPlan } {
  const list = listOptions(args);
  const plan = serviceHealthPlan(connectionNodes(connection, 'ServiceHealthConnection', 'ServiceHealthEdge', sc), sc);
  const options: ODataOptions = { ...serviceHealthOptions(plan), ...list };
  const path = args.after ? withOptions(decodeCursor(args.after, HEALTH_OVERVIEWS), options) : HEALTH_OVERVIEWS + toQueryString(options);
  return { path, plan };
}

/** The one request for an issue connection of `collectionPath` (one service's issues, or all issues). */
export function issuesRequest(collectionPath: string, args: ListArgs, connection: readonly FieldNode[], sc: SelectionContext): string {
  const list = listOptions(args);
  const select = issueSelect(issueNodes(connection, sc), sc);
  if (args.after) return withOptions(decodeCursor(args.after, collectionPath), { select, top: list.top });
  return collectionPath + toQueryString({ select, ...list });
}
