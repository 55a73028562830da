import type { GraphiqlExample } from './graphiql.js';

/** The tabs GraphiQL opens with on a first visit: one useful operation per domain. */
export function graphiqlExamples(): GraphiqlExample[] {
  return [
    {
      title: 'Upstreams behind this graph',
      query: 'query Upstreams {\n  upstreams {\n    id\n    mode\n    baseUrl\n  }\n}\n',
    },
    {
      title: 'Server clock over the WebSocket',
      query: 'subscription Clock {\n  serverTime(intervalMs: 1000, count: 5)\n}\n',
    },
  ];
}
