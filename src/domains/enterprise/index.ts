import type { Resolvers } from '../../generated/resolvers.js';
import type { GraphiqlExample } from '../graphiqlExample.js';
import { liveResolvers } from './live/resolvers.js';
import { resolvers } from './resolvers.js';

/** Enterprise data (Microsoft Graph service communications), live health included: resolvers and GraphiQL tabs. */
export const enterpriseResolvers: Resolvers = { ...resolvers, ...liveResolvers };
export const enterpriseExamples: GraphiqlExample[] = [
  {
    title: 'Service health with recent issues (one upstream request)',
    query: `query ServiceHealth {
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
}`,
  },
  {
    title: 'Several services by id (one $batch)',
    query: `query Services {
  admin {
    serviceAnnouncement {
      exchange: healthOverview(id: "Exchange") { id service status etag }
      teams: healthOverview(id: "microsoftteams") { id service status etag }
      sharePoint: healthOverview(id: "SharePoint") { id service status etag }
    }
  }
}`,
  },
  {
    title: 'Message center: major changes for one service (one upstream request)',
    query: `query MajorChanges {
  admin {
    serviceAnnouncement {
      messages(
        first: 5
        orderBy: [{ field: LAST_MODIFIED_DATE_TIME, direction: DESC }]
        filter: { service: "Microsoft Teams", isMajorChange: true }
      ) {
        nodes { id title category severity actionRequiredByDateTime services tags }
        pageInfo { hasNextPage endCursor }
      }
    }
  }
}`,
  },
  {
    // GraphiQL stops the running operation when you switch tabs, so the follow-up mutation runs in a second window.
    title:
      'Live service health: run it and keep this window on this tab; run the next tab in a second browser window (changes arrive at the next poll, GRAPH_POLL_INTERVAL_MS)',
    query: `subscription LiveServiceHealth {
  serviceHealthChanged(services: ["Exchange", "microsoftteams"]) {
    kind
    detectedAt
    previousStatus
    serviceHealth { id service status }
    issue { id title status isResolved lastModifiedDateTime }
  }
}`,
  },
  {
    title: 'Change a service status: run it in a second window while the first runs the live service health tab, which then shows the change',
    query: `mutation DegradeExchange {
  updateServiceHealth(id: "Exchange", input: { status: SERVICE_DEGRADATION }) { id service status }
}`,
  },
];
export { estimateGraphRequests } from './estimate.js';
