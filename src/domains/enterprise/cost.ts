import type { CostHints } from '../../planning/cost.js';
import { DEFAULT_PAGE, WRITES } from './estimate.js';

/** A connection: its `first` sizes its `nodes` and `edges`; without it, the planner's page. */
const connection = {
  upstream: true,
  listSize: { slicingArguments: ['first'], sizedFields: ['nodes', 'edges'], assumedSize: DEFAULT_PAGE },
} as const;
/** Lists that come inside their parent's answer (no request of their own), of a size Graph does not bound. */
const inline = { listSize: { assumedSize: 10 } } as const;

/**
 * What the Graph planner knows of each field's cost (PLANNER.md, estimate.ts): the fields that send requests of their
 * own (every list and lookup of `serviceAnnouncement`, `ServiceHealth.issues` and every write), and how long its lists
 * are. `admin` and `serviceAnnouncement` are singletons the gateway answers without a request; the live subscriptions
 * send none per subscriber (one poller serves them all).
 */
export const enterpriseCostHints: CostHints = {
  'ServiceAnnouncement.healthOverviews': connection,
  'ServiceAnnouncement.issues': connection,
  'ServiceAnnouncement.messages': connection,
  'ServiceHealth.issues': connection,
  'ServiceAnnouncement.healthOverview': { upstream: true },
  'ServiceAnnouncement.message': { upstream: true },
  'ServiceAnnouncement.properties': { upstream: true, ...inline },
  'Admin.properties': { upstream: true, ...inline },
  'ServiceHealthIssue.details': inline,
  'ServiceHealthIssue.posts': inline,
  'ServiceUpdateMessage.details': inline,
  ...Object.fromEntries([...WRITES].map((field) => [`Mutation.${field}`, { upstream: true }])),
};
