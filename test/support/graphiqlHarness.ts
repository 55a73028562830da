// A minimal stand-in for the gateway: GraphiQL's handler plus a tiny schema over HTTP (graphql-http) and WebSocket
// (graphql-ws) on one loopback port, so the browser test exercises exactly what GraphiQL needs and nothing else.
import { GraphQLInt, GraphQLNonNull, GraphQLObjectType, GraphQLSchema, GraphQLString } from 'graphql';
import { createHandler } from 'graphql-http/lib/use/http';
import { useServer } from 'graphql-ws/use/ws';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocketServer } from 'ws';
import type { GraphiqlExample } from '../../src/domains/graphiqlExample.js';
import { createGraphiqlHandler } from '../../src/transports/http/graphiql.js';

export interface GraphiqlHarness {
  /** `http://127.0.0.1:<port>` */
  url: string;
  close(): Promise<void>;
}

export interface GraphiqlHarnessOptions {
  /** @default `<project root>/dist/graphiql` */
  distDir?: string;
  /** @default one query tab and one subscription tab */
  examples?: GraphiqlExample[];
}

/** `clock` emits this many ticks, `tickMs` apart, then completes. */
export const clockTicks = 3;
const tickMs = 100;

const schema = new GraphQLSchema({
  query: new GraphQLObjectType({
    name: 'Query',
    fields: {
      hello: { type: new GraphQLNonNull(GraphQLString), resolve: () => 'world' },
    },
  }),
  subscription: new GraphQLObjectType({
    name: 'Subscription',
    fields: {
      clock: {
        type: new GraphQLNonNull(GraphQLInt),
        subscribe: async function* () {
          for (let tick = 1; tick <= clockTicks; tick += 1) {
            await new Promise((resolve) => setTimeout(resolve, tickMs));
            yield { clock: tick };
          }
        },
      },
    },
  }),
});

export const harnessExamples: GraphiqlExample[] = [
  { title: 'Say hello', query: 'query Hello {\n  hello\n}' },
  { title: 'Watch the clock', query: 'subscription Clock {\n  clock\n}' },
];

export async function startGraphiqlHarness(options: GraphiqlHarnessOptions = {}): Promise<GraphiqlHarness> {
  const graphiql = createGraphiqlHandler({
    distDir: options.distDir,
    examples: () => options.examples ?? harnessExamples,
  });
  const graphql = createHandler({ schema });
  const server = createServer((req, res) => {
    if (graphiql(req, res)) return;
    if ((req.url ?? '').split('?', 1)[0] === '/graphql') {
      graphql(req, res).catch(() => res.destroy());
      return;
    }
    res.statusCode = 404;
    res.end();
  });
  const wsServer = new WebSocketServer({ server, path: '/graphql' });
  const wsDisposable = useServer({ schema }, wsServer);

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    async close() {
      await wsDisposable.dispose();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
