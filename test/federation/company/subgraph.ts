import { ApolloServer } from '@apollo/server';
import { ApolloServerPluginInlineTraceDisabled } from '@apollo/server/plugin/disabled';
import { startStandaloneServer } from '@apollo/server/standalone';
import { buildSubgraphSchema } from '@apollo/subgraph';
import { parse } from 'graphql';

/** One company subgraph: its name, its SDL and its resolvers. */
export interface CompanySubgraph {
  name: string;
  sdl: string;
  resolvers: Record<string, unknown>;
}

/** What a running company subgraph was sent: each operation, as a router forwards it. */
export interface Received {
  query: string;
  variables?: Record<string, unknown>;
}

export interface RunningSubgraph {
  name: string;
  url: string;
  received: Received[];
  stop(): Promise<void>;
}

/** Serves `subgraph` on a free loopback port (Apollo Server with @apollo/subgraph, as a company would run it). */
export async function startCompanySubgraph(subgraph: CompanySubgraph): Promise<RunningSubgraph> {
  const received: Received[] = [];
  const schema = buildSubgraphSchema({ typeDefs: parse(subgraph.sdl), resolvers: subgraph.resolvers as never });
  const server = new ApolloServer({
    schema,
    plugins: [
      ApolloServerPluginInlineTraceDisabled(),
      {
        async requestDidStart({ request }) {
          received.push({ query: request.query ?? '', variables: request.variables });
        },
      },
    ],
  });
  const { url } = await startStandaloneServer(server, { listen: { port: 0, host: '127.0.0.1' } });
  return { name: subgraph.name, url, received, stop: () => server.stop() };
}
