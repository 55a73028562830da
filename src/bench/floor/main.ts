import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { Agent, request } from 'undici';
import { healthRestFor, sandboxTokenRequest, singleHealthRest, singleTitleRest, titleRestFor } from '../operations.js';
import { attachStreamRelay } from './streamRelay.js';

/**
 * The floor: the least any Node proxy pays for the throughput scenario's operations. A bare node:http server and an
 * undici Agent, no GraphQL: it reads and parses the JSON request body, sends the very upstream GET the gateway sends
 * (`singleHealthRest` / `singleTitleRest`, with the same headers: for Graph an application token it got by client
 * credentials at start, as the gateway and naive Apollo do, not the sandbox's shortcut token that no real Graph
 * accepts and the sandbox checks for less), parses the answer and writes the same response
 * body the gateway writes for `singleHealthQuery` / `singleTitleQuery`. POST /health and POST /title; POST
 * /health-by-id and /title-by-id take the id from the request's variables (`id` / `imdbId`), as `healthByIdQuery` and
 * `titleByIdQuery` do. The WebSocket on /graphql is the streaming floor (streamRelay.ts).
 * Env: SANDBOX_ORIGIN, PORT.
 */
const sandboxOrigin = process.env.SANDBOX_ORIGIN ?? 'http://127.0.0.1:4010';
const port = Number(process.env.PORT ?? 4031);
const dispatcher = new Agent({ connections: 64, keepAliveTimeout: 10_000 });

const SCREAMING = /([a-z0-9])([A-Z])/g;
const enumValue = (s: string) => s.replace(SCREAMING, '$1_$2').toUpperCase();
const minutes = (s: unknown) => (typeof s === 'string' && /^\d+/.test(s) ? Number.parseInt(s, 10) : null);
const na = (s: unknown) => (s === 'N/A' || s === undefined ? null : s);

type Variables = Record<string, unknown> | undefined;
const healthHeaders = { authorization: '', accept: 'application/json' };

/**
 * The Graph application token, by client credentials from the sandbox's identity platform (as the gateway gets its
 * own), renewed before it expires: the floor runs through a whole benchmark.
 */
async function renewToken(): Promise<void> {
  const login = sandboxTokenRequest(sandboxOrigin);
  const res = await request(login.url, { method: 'POST', headers: login.headers, body: login.body, dispatcher });
  const token = (await res.body.json()) as { access_token?: string; expires_in?: number };
  if (res.statusCode !== 200 || !token.access_token) throw new Error(`floor: no Graph token (${res.statusCode})`);
  healthHeaders.authorization = `Bearer ${token.access_token}`;
  // A renewal that fails keeps the token it has and tries again shortly.
  const renew = (): void => {
    renewToken().catch(() => setTimeout(renew, 5_000).unref());
  };
  setTimeout(renew, Math.max(1, (token.expires_in ?? 3600) * 800)).unref();
}
const mapHealth = (b: Record<string, unknown>) => ({
  admin: {
    serviceAnnouncement: { healthOverview: { id: b.id, service: b.service, status: enumValue(String(b.status)) } },
  },
});
const routes: Record<
  string,
  { path(variables: Variables): string; headers: Record<string, string>; map(body: Record<string, unknown>): unknown }
> = {
  '/health': { path: () => singleHealthRest, headers: healthHeaders, map: mapHealth },
  '/health-by-id': {
    path: (v) => healthRestFor(encodeURIComponent(String(v?.id))),
    headers: healthHeaders,
    map: mapHealth,
  },
  '/title': { path: () => singleTitleRest, headers: { accept: 'application/json' }, map: mapTitle },
  '/title-by-id': {
    path: (v) => titleRestFor(encodeURIComponent(String(v?.imdbId))),
    headers: { accept: 'application/json' },
    map: mapTitle,
  },
};

function mapTitle(b: Record<string, unknown>): unknown {
  return {
    title: {
      imdbId: b.imdbID,
      title: b.Title,
      year: na(b.Year),
      runtimeMinutes: minutes(b.Runtime),
      genres: typeof b.Genre === 'string' ? b.Genre.split(', ') : [],
      imdbRating: na(b.imdbRating) === null ? null : Number(b.imdbRating),
    },
  };
}

async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
  if (req.url === '/healthz') return void res.end('ok');
  const route = routes[req.url ?? ''];
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const operation = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { query?: unknown; variables?: Variables };
  if (!route || typeof operation.query !== 'string') return void res.writeHead(404).end();
  const upstream = await request(sandboxOrigin + route.path(operation.variables), {
    method: 'GET',
    headers: route.headers,
    dispatcher,
  });
  const body = (await upstream.body.json()) as Record<string, unknown>;
  const text = JSON.stringify({ data: route.map(body) });
  res.writeHead(200, {
    'content-type': 'application/graphql-response+json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
  });
  res.end(text);
}

const server = createServer((req, res) => {
  handle(req, res).catch(() => {
    if (!res.headersSent) res.writeHead(502);
    res.end();
  });
});
server.keepAliveTimeout = 65_000;
attachStreamRelay(server, sandboxOrigin);
await renewToken();
server.listen(port, '127.0.0.1', () => console.log(`floor proxy on http://127.0.0.1:${port}`));
const stop = () => server.close(() => process.exit(0));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
