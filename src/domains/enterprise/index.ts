import type { Domain } from '../domain.js';
import type { GraphiqlExample } from '../graphiqlExample.js';
import { enterpriseCacheTags } from './cacheTags.js';
import { enterpriseCostHints } from './cost.js';
import { estimateGraphRequests } from './estimate.js';
import { createLiveHealth, whenLiveHealthChanges } from './live/feed.js';
import { liveResolvers } from './live/resolvers.js';
import { resolvers } from './resolvers.js';

export const enterpriseExamples: GraphiqlExample[] = [
  {
    title: 'Service health (Microsoft Graph): Run offers each operation of this tab',
    query: `# Every service's status with its latest issues, in one
# upstream request.
query Health {
  admin {
    serviceAnnouncement {
      healthOverviews(first: 10, orderBy: [{ field: SERVICE, direction: ASC }]) {
        nodes {
          id
          service
          status
          issues(first: 3, orderBy: [{ field: START_DATE_TIME, direction: DESC }]) {
            nodes { id title status startDateTime }
            pageInfo { hasNextPage endCursor }
          }
        }
        pageInfo { hasNextPage endCursor }
      }
    }
  }
}

# Three services by id, sent as one $batch.
query Services {
  admin {
    serviceAnnouncement {
      exchange: healthOverview(id: "Exchange") { id service status etag }
      teams: healthOverview(id: "microsoftteams") { id service status etag }
      sharePoint: healthOverview(id: "SharePoint") { id service status etag }
    }
  }
}

# Message center: the major changes for one service, in
# one upstream request.
query Changes {
  admin {
    serviceAnnouncement {
      messages(
        first: 5
        orderBy: [{ field: LAST_MODIFIED_DATE_TIME, direction: DESC }]
        filter: { service: "SharePoint Online", isMajorChange: true }
      ) {
        nodes { id title category severity actionRequiredByDateTime services tags }
        pageInfo { hasNextPage endCursor }
      }
    }
  }
}`,
  },
  {
    // GraphiQL stops the running operation when you switch tabs or run another, so the writes run in a second window.
    title:
      'Live service health: run LiveHealth here and keep this window on it; in a second browser window run Degrade (then Restore) from this tab. Changes arrive at the next poll (GRAPH_POLL_INTERVAL_MS)',
    query: `# Each change of Exchange's or Teams' health, as the
# gateway's poller sees it.
subscription LiveHealth {
  serviceHealthChanged(services: ["Exchange", "microsoftteams"]) {
    kind
    detectedAt
    previousStatus
    serviceHealth { id service status }
    issue { id title status isResolved lastModifiedDateTime }
  }
}

# Exchange degraded: LiveHealth in the first window
# shows the change.
mutation Degrade {
  updateServiceHealth(id: "Exchange", input: { status: SERVICE_DEGRADATION }) { id service status }
}

# Exchange back to normal.
mutation Restore {
  updateServiceHealth(id: "Exchange", input: { status: SERVICE_OPERATIONAL }) { id service status }
}`,
  },
];

/**
 * Enterprise data (Microsoft Graph service communications), live health included: its resolvers, the Graph estimate, its cost hints, GraphiQL tabs,
 * the live health feed (built at start-up, polling only while subscribed) and the stale answers its changes make.
 */
export const enterprise: Domain = {
  name: 'enterprise',
  resolvers: { ...resolvers, ...liveResolvers },
  estimate: estimateGraphRequests,
  costHints: enterpriseCostHints,
  examples: enterpriseExamples,
  services: (services, options) => ({ liveHealth: createLiveHealth(services, options.liveHealth) }),
  staleAnswers: whenLiveHealthChanges,
  // Read with the gateway's own token, health is the same for every caller; a caller's own token reads its tenant.
  routerSharing: 'application',
  cacheTags: enterpriseCacheTags,
};
