import { chatExamples } from './chat/index.js';
import { enterpriseExamples } from './enterprise/index.js';
import { titlesExamples } from './titles/index.js';
import type { GraphiqlExample } from './graphiqlExample.js';

/** The tabs GraphiQL opens with on a first visit: useful operations of every domain. */
export function graphiqlExamples(): GraphiqlExample[] {
  return [
    ...enterpriseExamples,
    ...titlesExamples,
    ...chatExamples,
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
