import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { parse as parseYaml } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gatewayNodeFlags } from '../src/bench/lib/stack.js';
import { startTestGateway, type TestGateway } from './support/gateway.js';
import { startOtlpReceiver } from './support/otlp.js';

/** README sections are run here: every shell command in them, every name they promise. */
const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
const section = (title: string) => {
  const start = readme.indexOf(`\n## ${title}\n`);
  expect(start, `README section "${title}"`).toBeGreaterThan(-1);
  const end = readme.indexOf('\n## ', start + 4);
  return readme.slice(start, end === -1 ? undefined : end);
};
const shellBlocks = (text: string) => [...text.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1].trim());
const oneLine = (text: string) => text.replace(/\s+/g, ' ');

/** Runs a README command with the documented origin pointed at a test gateway. */
async function run(command: string, origin: string): Promise<string> {
  const { stdout } = await promisify(execFile)('sh', ['-c', command.replaceAll('http://127.0.0.1:4000', origin)], { timeout: 30_000 });
  return stdout;
}

describe('README: Subscriptions over HTTP', () => {
  let t: TestGateway;
  beforeAll(async () => {
    t = await startTestGateway({}, { chatTokenDelayMs: 1 });
  });
  afterAll(() => t.close());

  it('the SSE command prints next events with the streamed chunks, then complete, from one upstream stream', async () => {
    const [sse] = shellBlocks(section('Subscriptions over HTTP'));
    expect(sse).toContain("accept: text/event-stream");
    const out = await run(sse, t.gateway.origin);
    const events = out.split('\n\n').filter(Boolean);
    expect(events.filter((e) => e.includes('event: next')).length).toBeGreaterThan(3);
    expect(out).toContain('"finishReason":"STOP"');
    expect(events.at(-1)).toMatch(/^event: complete/);
    expect(t.upstreamRequests('glm')).toHaveLength(1);
  });

  it('the multipart command prints {"payload"} parts and the closing boundary', async () => {
    const [, multipart] = shellBlocks(section('Subscriptions over HTTP'));
    expect(multipart).toContain('multipart/mixed;subscriptionSpec="1.0"');
    const out = await run(multipart, t.gateway.origin);
    expect(out).toContain('\r\n--graphql\r\ncontent-type: application/json; charset=utf-8\r\n\r\n{"payload":{"data":{"chatCompletionStream"');
    expect(out).toContain('"finishReason":"STOP"');
    expect(out.endsWith('\r\n--graphql--\r\n')).toBe(true);
  });
});

describe('README: @defer and @stream', () => {
  it('the curl command prints the parts in Apollo Router\'s format: the hits first, each title\'s directors after, one request per title', async () => {
    const t = await startTestGateway();
    try {
      const [command] = shellBlocks(section('`@defer` and `@stream`'));
      expect(command).toContain('multipart/mixed;deferSpec=20220824');
      const out = await run(command, t.gateway.origin);
      const part = '\r\n---\r\ncontent-type: application/json; charset=utf-8\r\n\r\n';
      expect(out.startsWith(part)).toBe(true);
      expect(out.endsWith('\r\n-----\r\n')).toBe(true);
      const payloads = out.slice(part.length, -'\r\n-----\r\n'.length).split(part).map((p) => JSON.parse(p));
      expect(payloads[0].hasNext).toBe(true);
      expect(payloads[0].data.searchTitles.items).toHaveLength(6);
      expect(payloads[0].data.searchTitles.items[0]).not.toHaveProperty('directors');
      const deferred = payloads.slice(1).flatMap((p) => p.incremental);
      expect(deferred).toHaveLength(6);
      expect(deferred.every((d) => d.label === 'details' && Array.isArray(d.data.directors))).toBe(true);
      expect(payloads.at(-1).hasNext).toBe(false);
      expect(t.upstreamRequests('omdb')).toHaveLength(7);
    } finally {
      await t.close();
    }
  });
});

describe('README: Tracing', () => {
  it('the traceparent command continues the caller trace, and every attribute the section names is exported', async () => {
    const receiver = await startOtlpReceiver();
    const t = await startTestGateway({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint });
    try {
      const [command] = shellBlocks(section('Tracing'));
      expect(JSON.parse(await run(command, t.gateway.origin)).data.title).toEqual({ title: 'Superman', year: '1978' });
      // Operations that produce the remaining attributes: a $batch and an error.
      await t.query('{ admin { serviceAnnouncement { a: healthOverview(id: "Exchange Online") { id } b: healthOverview(id: "Microsoft Teams") { id } } } }');
      await t.query('{ title(imdbId: "nope") { title } }');
    } finally {
      await t.close();
      await receiver.close();
    }
    const traceparent = /traceparent: 00-([0-9a-f]{32})-([0-9a-f]{16})-01/.exec(section('Tracing'))!;
    const title = receiver.spans.find((s) => s.name === 'query Title')!;
    expect(title).toMatchObject({ traceId: traceparent[1], parentSpanId: traceparent[2] });
    const promised = [...section('Tracing').matchAll(/`((?:graphql|gateway|http|server|url|graph)\.[a-z_.]+)`/g)].map((m) => m[1]);
    expect(promised.length).toBeGreaterThan(8);
    const exported = new Set(receiver.spans.flatMap((s) => Object.keys(s.attributes)));
    for (const name of promised) expect(exported, name).toContain(name);
  });
});

describe('README: Logs', () => {
  it('quotes the exact line a busy port prints (test/server/operations.test.ts asserts the gateway prints it)', () => {
    expect(oneLine(section('Logs'))).toContain(
      '`configuration error: PORT: 127.0.0.1:4000 is already in use by another process; stop it or choose another PORT (or HOST).`',
    );
  });
});

describe('README: Running in containers', () => {
  const commands = () => shellBlocks(section('Running in containers'));

  it('names the CI rehearsal command that .ci/run runs', () => {
    const rehearsal = commands().at(-1)!;
    expect(rehearsal).toBe('node .ci/dockerfile-rehearsal.mjs');
    // On the Dockerfile's Node: PATH may put Node 24 first.
    expect(readFileSync(new URL('../.ci/run', import.meta.url), 'utf8')).toMatch(new RegExp(`\\n(PATH=\\S+ )?${rehearsal} \\|\\|`));
  });

  it('builds and runs the Dockerfile it describes: two stages, npm ci --omit=dev, non-root, HEALTHCHECK on /healthz, port 4000', () => {
    expect(commands()[0]).toBe('docker build -t federation-gateway .\ndocker run --rm -p 4000:4000 federation-gateway');
    const dockerfile = readFileSync(new URL('../Dockerfile', import.meta.url), 'utf8');
    expect(dockerfile.match(/^FROM /gm)).toHaveLength(2);
    expect(dockerfile).toMatch(/^RUN .*npm ci --omit=dev/m);
    expect(dockerfile).toMatch(/^RUN npm run build$/m);
    expect(dockerfile).toMatch(/^USER node$/m);
    expect(dockerfile).toMatch(/^ENV .*HOST=0\.0\.0\.0 PORT=4000/m);
    expect(dockerfile).toMatch(/^HEALTHCHECK .*\/healthz/m);
    // The same V8 memory flags as `npm start` (README "Memory"), so the image runs what the benchmark measured.
    const cmd = JSON.parse(/^CMD (\[.*\])$/m.exec(dockerfile)![1]) as string[];
    expect(cmd).toEqual(['node', ...gatewayNodeFlags(), 'dist/main.js']);
  });

  it('composes three gateway replicas sharing Redis through REDIS_URL, with GATEWAY_REPLICAS=3, behind port 4000', () => {
    expect(commands()[1]).toBe('docker compose up --build');
    const compose = parseYaml(readFileSync(new URL('../docker-compose.yml', import.meta.url), 'utf8'));
    const gateway = compose.services.gateway;
    expect(gateway.build).toBe('.');
    expect(gateway.deploy.replicas).toBe(3);
    expect(gateway.environment).toMatchObject({ REDIS_URL: 'redis://redis:6379', GATEWAY_REPLICAS: '3' });
    expect(compose.services.redis.image).toMatch(/^redis:/);
    expect(compose.services.proxy.ports).toEqual(['4000:4000']);
    // nginx resolves the replicas again every few seconds (a variable in proxy_pass), so replaced ones are reached.
    expect(compose.configs.nginx.content).toMatch(/resolver 127\.0\.0\.11 valid=\d+s/);
    // ($$ is Compose's escape of $.)
    expect(compose.configs.nginx.content).toMatch(/set \$\$gateway http:\/\/gateway:4000;[\s\S]*proxy_pass \$\$gateway;/);
    // Docker's stop period covers the drain (SHUTDOWN_GRACE_MS) and the 5 s the process allows itself after it.
    expect(Number(/^(\d+)s$/.exec(gateway.stop_grace_period)![1]) * 1000).toBeGreaterThan(Number(gateway.environment.SHUTDOWN_GRACE_MS) + 5000);
    expect(existsSync(new URL('../.dockerignore', import.meta.url))).toBe(true);
  });
});
