import { ApolloServer, HeaderMap } from '@apollo/server';
import { ApolloServerPluginLandingPageDisabled } from '@apollo/server/plugin/disabled';
import { makeExecutableSchema } from '@graphql-tools/schema';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { root } from '../lib/proc.js';
import { naiveResolvers } from './resolvers.js';

/**
 * The naive baseline server: Apollo Server 5 on node:http (the same serving path as the gateway, so only the
 * resolvers differ) over the project's public schema (`schema.graphql`: the same SDL without the federation machinery).
 * Chat fields have no resolvers here.
 * Env: SANDBOX_ORIGIN, PORT.
 */
const sandboxOrigin = process.env.SANDBOX_ORIGIN ?? 'http://127.0.0.1:4010';
const port = Number(process.env.PORT ?? 4030);
const typeDefs = readFileSync(join(root, 'schema.graphql'), 'utf8');
const schema = makeExecutableSchema({ typeDefs, resolvers: naiveResolvers({ sandboxOrigin }) as never });
const apollo = new ApolloServer({
  schema,
  plugins: [ApolloServerPluginLandingPageDisabled()],
  includeStacktraceInErrorResponses: false,
});
await apollo.start();

const server = createServer((req, res) => {
  if (req.url === '/healthz') {
    res.end('ok');
    return;
  }
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const headers = new HeaderMap();
    for (const [k, v] of Object.entries(req.headers))
      if (v !== undefined) headers.set(k, Array.isArray(v) ? v.join(', ') : v);
    const raw = Buffer.concat(chunks).toString('utf8');
    let body: unknown;
    try {
      body = raw ? JSON.parse(raw) : undefined;
    } catch {
      res.writeHead(400).end();
      return;
    }
    const q = (req.url ?? '').indexOf('?');
    apollo
      .executeHTTPGraphQLRequest({
        httpGraphQLRequest: { method: req.method ?? 'GET', headers, search: q === -1 ? '' : req.url!.slice(q), body },
        context: async () => ({}),
      })
      .then(async (result) => {
        for (const [k, v] of result.headers) res.setHeader(k, v);
        res.statusCode = result.status ?? 200;
        if (result.body.kind === 'complete') res.end(result.body.string);
        else {
          for await (const chunk of result.body.asyncIterator) res.write(chunk);
          res.end();
        }
      })
      .catch(() => res.writeHead(500).end());
  });
});
server.keepAliveTimeout = 65_000;
server.listen(port, '127.0.0.1', () => console.log(`naive baseline on http://127.0.0.1:${port}/graphql`));
const stop = () => server.close(() => process.exit(0));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
