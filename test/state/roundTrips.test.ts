import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { Agent, getGlobalDispatcher, setGlobalDispatcher, type Dispatcher } from 'undici';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { KNOWN_MOVIES } from '../../src/sandbox/omdb/knownTitles.js';
import { omdbQueryKey } from '../../src/upstreams/omdb/query.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { startRedis, type TestRedis } from '../support/redis.js';
import { omdbQueries } from '../support/omdbRequests.js';

/**
 * What a title lookup costs in Redis: every command the gateway sends, as Redis's MONITOR sees it. The daily quota is
 * held ahead in slices (src/state/quota.ts), so a lookup that the replica's slice covers sends nothing at all; only
 * the shared title cache, when it is on, costs a read and a write per title nobody cached.
 */
let redis: TestRedis;
let t: TestGateway | undefined;
let watcher: Redis;
let marker: Redis;
/** MONITOR runs on a connection of its own (ioredis duplicates the client): closed with the others. */
let monitor: Redis | undefined;
/** Commands sent to Redis by clients (not by scripts) since the last {@link sent}, in order: [command, ...args]. */
let seen: string[][] = [];
let dispatcher: Dispatcher;

beforeAll(async () => {
  // One socket for the test's requests: a socket's first request takes its client's connection share (one Redis
  // step), so a second socket opened by the client's pool would be a command no lookup caused.
  dispatcher = getGlobalDispatcher();
  setGlobalDispatcher(new Agent({ connections: 1 }));
  redis = await startRedis();
  watcher = new Redis(redis.url, { lazyConnect: true });
  marker = new Redis(redis.url, { lazyConnect: true });
  await Promise.all([watcher.connect(), marker.connect()]);
  monitor = await watcher.monitor();
  monitor.on('monitor', (_time: string, args: string[], source: string) => {
    if (source !== 'lua') seen.push([args[0].toLowerCase(), ...args.slice(1)]);
  });
});
afterAll(async () => {
  setGlobalDispatcher(dispatcher);
  monitor?.disconnect();
  watcher?.disconnect();
  marker?.disconnect();
  await redis?.close();
});
afterEach(async () => {
  await t?.close();
  t = undefined;
});

/**
 * The gateway's commands since the last call: an ECHO of a fresh marker goes after them, and Redis reports commands
 * in the order it ran them, so once the marker shows up every command sent before it has too.
 */
async function sent(): Promise<string[][]> {
  const mark = randomUUID();
  await marker.echo(mark);
  for (let i = 0; i < 200 && !seen.some(([command, arg]) => command === 'echo' && arg === mark); i++)
    await new Promise((r) => setTimeout(r, 10));
  const at = seen.findIndex(([command, arg]) => command === 'echo' && arg === mark);
  expect(at, 'the marker reached MONITOR').toBeGreaterThanOrEqual(0);
  const commands = seen.slice(0, at);
  seen = seen.slice(at + 1);
  return commands;
}

const TITLE = 'query ($id: ID!) { title(imdbId: $id) { imdbId title year } }';
const ids = KNOWN_MOVIES.slice(0, 11).map((m) => m.id);
const cacheKeyOf = (imdbId: string) => omdbQueryKey({ kind: 'byId', imdbId, plot: 'short' });

async function gatewayOnRedis(env: Record<string, string>): Promise<TestGateway> {
  const gateway = await startTestGateway({
    REDIS_URL: redis.url,
    REDIS_KEY_PREFIX: `trips-${randomUUID()}:`,
    RESPONSE_CACHE_MAX_BYTES: '0',
    OMDB_DAILY_QUOTA: '1000',
    ...env,
  });
  await sent();
  return gateway;
}

describe('Redis commands per title lookup', () => {
  it("with the title cache off: the first lookup claims a slice of the quota in one round trip (after its connection's share), the next 10 send no command", async () => {
    t = await gatewayOnRedis({ OMDB_CACHE_MAX: '0' });
    expect((await t.query(TITLE, { id: ids[0] })).body.data.title.imdbId).toBe(ids[0]);
    const first = await sent();
    // The client's new connection takes its share of CLIENT_MAX_CONNECTIONS (one step of the holdings script, which
    // the connection's later requests do not repeat), then one step of the quota script (the text the first time on
    // a connection, then its SHA) on the day's books.
    expect(first.map(([command]) => command)).toEqual([
      expect.stringMatching(/^eval(sha)?$/),
      expect.stringMatching(/^eval(sha)?$/),
    ]);
    expect(first[0].some((arg) => arg.endsWith('holdings:fair-share:connection:address:127.0.0.1'))).toBe(true);
    expect(first[1].some((arg) => /quota:omdb:\d{4}-\d\d-\d\d$/.test(arg))).toBe(true);

    for (const id of ids.slice(1)) expect((await t.query(TITLE, { id })).body.data.title.imdbId).toBe(id);
    expect(await sent()).toEqual([]);
    expect(omdbQueries(t.upstreamRequests('omdb'))).toEqual(ids.map((id) => `i=${id}`));
  });

  it('with the title cache on: a title nobody cached costs a read and a write of the shared cache, a repeat nothing', async () => {
    t = await gatewayOnRedis({});
    await t.query(TITLE, { id: ids[0] });
    await sent();

    expect((await t.query(TITLE, { id: ids[1] })).body.data.title.imdbId).toBe(ids[1]);
    const commands = await sent();
    expect(commands.map(([command, key]) => [command, key.replace(/^trips-[^:]+:/, '')])).toEqual([
      ['get', `cache:omdb:${cacheKeyOf(ids[1])}`],
      ['set', `cache:omdb:${cacheKeyOf(ids[1])}`],
    ]);

    expect((await t.query(TITLE, { id: ids[1] })).body.data.title.imdbId).toBe(ids[1]);
    expect(await sent()).toEqual([]);
    expect(omdbQueries(t.upstreamRequests('omdb'))).toEqual([`i=${ids[0]}`, `i=${ids[1]}`]);
  });
});
