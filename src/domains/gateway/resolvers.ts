import type { GraphiqlExample } from '../graphiqlExample.js';
import { badInput } from '../../errors/codes.js';
import type { Resolvers } from '../../generated/resolvers.js';
import { eventStream } from '../../execution/eventStream.js';

/** The gateway domain: fields about the graph itself (`schema/gateway.graphql`). */
export const gatewayResolvers: Resolvers = {
  Query: {
    // Every domain's upstreams, served here or not: in a split deployment this one instance answers for the graph.
    upstreams: (_root, _args, ctx) =>
      ctx.services.upstreams.map((u) => ({
        id: u.id,
        mode: u.mode === 'live' ? 'LIVE' : 'SANDBOX',
        baseUrl: u.baseUrl,
      })),
  },
  Subscription: {
    serverTime: {
      subscribe: (_root, { intervalMs, count }, ctx) => {
        const interval = intervalMs ?? 1000;
        const times = count ?? 10;
        if (!Number.isInteger(interval) || interval < 10 || interval > 60_000) {
          throw badInput(`intervalMs must be 10..60000 milliseconds, got ${interval}`, 'intervalMs');
        }
        if (!Number.isInteger(times) || times < 1 || times > 10_000)
          throw badInput(`count must be 1..10000, got ${times}`, 'count');
        return eventStream<{ serverTime: string }>((sink) => {
          let sent = 0;
          const timer = setInterval(() => {
            // A timer cannot wait for room; push never rejects, and at most `count` (≤ 10000) values are buffered.
            void sink.push({ serverTime: new Date().toISOString() });
            if (++sent >= times) sink.end();
          }, interval);
          sink.signal.addEventListener('abort', () => clearInterval(timer), { once: true });
        }, ctx.signal);
      },
    },
  },
};

/** GraphiQL tabs of the gateway's own fields. */
export const gatewayExamples: GraphiqlExample[] = [
  {
    title: 'The gateway: which upstreams are live and which the sandbox answers, and a clock over the WebSocket',
    query: `# Each upstream: LIVE (its credentials are set) or
# SANDBOX, and its base URL.
query Upstreams {
  upstreams {
    id
    mode
    baseUrl
  }
}

# A subscription over the WebSocket: the server's time,
# five times, a second apart.
subscription Clock {
  serverTime(intervalMs: 1000, count: 5)
}`,
  },
];
