import type { FieldNode } from 'graphql';
import { stableEstimator } from '../../planning/upstreamEstimate.js';
import {
  connectionNodes,
  selectedFields,
  type SelectedField,
  type SelectionContext,
} from '../../planning/selection.js';
import { servedTypeName } from '../../planning/servedNames.js';

const BATCH = 20;
/** Services a `healthOverviews` without `first` is taken to list (the tenant's whole list, one page). */
export const DEFAULT_PAGE = 100;
export const WRITES = new Set([
  'updateAdmin',
  'updateServiceAnnouncement',
  'deleteServiceAnnouncement',
  'createServiceHealth',
  'updateServiceHealth',
  'deleteServiceHealth',
  'createServiceHealthIssue',
]);

/**
 * Graph requests an operation can cause, following the planner's rules (PLANNER.md): one request per distinct list
 * (`healthOverviews`, `issues`, `messages`), `healthOverview` and `message` lookups and `_entities` representations
 * deduplicated and batched by 20 (each kind in its own batches), the first `issues` argument set of a service list
 * expanded inline and every further set loaded per service in batches, one request per write.
 *
 * A kind with one lookup and nothing to share it with is one request whatever its id (`ID!`, coerced to a string
 * before any rule reads it): its id is not read, so the estimate of a plain `healthOverview(id: $id)` reads no variable
 * and is kept for its document alone (planning/memo.ts `watched`), not once per id.
 */
export const estimateGraphRequests = stableEstimator((op) => {
  const sc: SelectionContext = op;
  const root = op.operation.operation === 'mutation' ? 'Mutation' : 'Query';
  let count = 0;
  const ids = new Set<string>();
  const lookups: SelectedField[] = [];
  const messageIds = new Set<string>();
  const messageLookups: SelectedField[] = [];
  const issueIds = new Set<string>();
  const top = selectedFields([{ selectionSet: op.operation.selectionSet } as FieldNode], root, sc);
  if (root === 'Mutation') return { graph: top.filter((f) => WRITES.has(f.name)).length };
  for (const admin of top.filter((f) => f.name === 'admin')) {
    for (const sa of selectedFields(admin.nodes, 'Admin', sc).filter((f) => f.name === 'serviceAnnouncement')) {
      const lists = new Set<string>();
      for (const f of selectedFields(sa.nodes, 'ServiceAnnouncement', sc)) {
        if (f.name === 'healthOverview') {
          lookups.push(f);
          count += extraIssueSets(f.nodes, sc, 1);
        } else if (f.name === 'message') messageLookups.push(f);
        else if (f.name === 'healthOverviews' || f.name === 'issues' || f.name === 'messages') {
          const key = `${f.name}${JSON.stringify(f.args)}`;
          if (!lists.has(key)) count++;
          lists.add(key);
          if (f.name === 'healthOverviews') {
            const services = Number(f.args.first ?? DEFAULT_PAGE);
            count += extraIssueSets(
              connectionNodes(f.nodes, 'ServiceHealthConnection', 'ServiceHealthEdge', sc),
              sc,
              services,
            );
          }
        }
      }
    }
  }
  for (const entities of top.filter((f) => f.name === '_entities')) {
    const services = new Set<string>();
    // A router names the entities as this schema serves them (SUBGRAPH_TYPE_PREFIX, SUBGRAPH_RENAMES).
    const [service, message, issue] = ['ServiceHealth', 'ServiceUpdateMessage', 'ServiceHealthIssue'].map((t) =>
      servedTypeName(op.schema, t),
    );
    for (const { __typename, id } of representations(entities.args)) {
      if (__typename === service) services.add(id);
      if (__typename === message) messageIds.add(id);
      if (__typename === issue) issueIds.add(id);
    }
    services.forEach((id) => ids.add(id));
    count += extraIssueSets(entities.nodes, sc, services.size);
  }
  const batches = (set: Set<string>, fields: readonly SelectedField[]) =>
    set.size === 0 && fields.length === 1 ? 1 : Math.ceil(withIds(set, fields).size / BATCH);
  return {
    graph: count + batches(ids, lookups) + batches(messageIds, messageLookups) + Math.ceil(issueIds.size / BATCH),
  };
});

/** `ids` with the id of each lookup in `fields` added: lookups of one id are one item of a batch. */
function withIds(ids: Set<string>, fields: readonly SelectedField[]): Set<string> {
  for (const f of fields) if (typeof f.args.id === 'string') ids.add(f.args.id);
  return ids;
}

/** The `_entities(representations:)` of a subgraph query, as type name and `id` key. */
function representations(args: Record<string, unknown>): Array<{ __typename: unknown; id: string }> {
  const list = Array.isArray(args.representations) ? (args.representations as unknown[]) : [];
  return list.flatMap((r) =>
    r && typeof r === 'object'
      ? [{ __typename: (r as Record<string, unknown>).__typename, id: String((r as Record<string, unknown>).id) }]
      : [],
  );
}

/** `issues` argument sets beyond the first on `services` services: each loads per service, batched. */
function extraIssueSets(serviceNodes: FieldNode[], sc: SelectionContext, services: number): number {
  const sets = new Set(
    selectedFields(serviceNodes, 'ServiceHealth', sc)
      .filter((f) => f.name === 'issues')
      .map((f) => JSON.stringify(f.args)),
  );
  return Math.max(0, sets.size - 1) * Math.ceil(services / BATCH);
}
