import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTracing } from '../../src/observability/tracing.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { startOtlpReceiver, type ReceivedSpan } from '../support/otlp.js';
import { collect, wsClient } from '../support/ws.js';
import { STREAM, user } from '../support/chat.js';

const CALLER_TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const CALLER_SPAN = '00f067aa0ba902b7';
const NESTED = `query ServiceHealth {
  admin { serviceAnnouncement { healthOverviews(first: 5) { nodes { id status issues(first: 2) { nodes { id title } } } } } }
}`;
const BATCHED = `query Lookups { admin { serviceAnnouncement {
  a: healthOverview(id: "Exchange Online") { id } b: healthOverview(id: "Microsoft Teams") { id } c: healthOverview(id: "SharePoint Online") { id } } } }`;

/** What each test triggers; spans are asserted after the gateway closed, which flushes the exporter. */
let receiver: Awaited<ReturnType<typeof startOtlpReceiver>>;
let t: TestGateway;
const upstreamTraceparents: Record<string, unknown[]> = {};

beforeAll(async () => {
  receiver = await startOtlpReceiver();
  t = await startTestGateway(
    { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint, OMDB_BASE_URL: '', OMDB_API_KEY: '' },
    { chatTokenDelayMs: 1 },
  );

  const nested = await t.query(NESTED, undefined, { traceparent: `00-${CALLER_TRACE}-${CALLER_SPAN}-01` });
  expect(nested.body.errors).toBeUndefined();
  upstreamTraceparents.graph = t.upstreamRequests('graph').map((r) => r.headers.traceparent);
  expect((await t.query(BATCHED)).body.errors).toBeUndefined();
  expect((await t.query('query Title { title(imdbId: "tt0078346") { title } }')).body.data.title.title).toBe(
    'Superman',
  );

  t.clearUpstreamRequests();
  const client = wsClient(t.gateway.wsUrl);
  const input = { provider: 'glm', model: 'glm-4-flash', messages: [user('Say hello.')] };
  const { results, error } = await collect(client, STREAM, { input });
  expect(error).toBeUndefined();
  expect(results.length).toBeGreaterThan(2);
  upstreamTraceparents.glm = t.upstreamRequests('glm').map((r) => r.headers.traceparent);
  await client.dispose();
  await t.close();
}, 60_000);
afterAll(() => receiver.close());

const operation = (name: string) => {
  const found = receiver.spans.filter((s) => s.name === name);
  expect(found, `one span named ${name} among ${receiver.spans.map((s) => s.name).join(', ')}`).toHaveLength(1);
  return found[0];
};
const children = (parent: ReceivedSpan) =>
  receiver.spans.filter((s) => s.parentSpanId === parent.spanId && s.traceId === parent.traceId);

describe('OpenTelemetry traces exported over OTLP/HTTP', () => {
  it('continues the caller traceparent: the nested query is one SERVER span with one upstream CLIENT span beneath it', () => {
    const op = operation('query ServiceHealth');
    expect(op.traceId).toBe(CALLER_TRACE);
    expect(op.parentSpanId).toBe(CALLER_SPAN);
    expect(op.kind).toBe(2); // SERVER
    expect(op.service).toBe('federation-gateway');
    expect(op.attributes).toMatchObject({
      'graphql.operation.type': 'query',
      'graphql.operation.name': 'ServiceHealth',
      'graphql.outcome': 'ok',
      'graphql.transport': 'http',
    });
    const upstream = children(op).filter(
      (s) => s.attributes['url.path'] !== undefined && String(s.attributes['url.path']).includes('healthOverviews'),
    );
    expect(upstream).toHaveLength(1);
    expect(upstream[0]).toMatchObject({ name: 'GET graph', kind: 3 });
    expect(upstream[0].attributes).toMatchObject({
      'gateway.upstream': 'graph',
      'http.request.method': 'GET',
      'http.response.status_code': 200,
      'http.request.resend_count': 0,
    });
  });

  it('sends the upstream span as traceparent to the upstream', () => {
    const op = operation('query ServiceHealth');
    const spanIds = children(op).map((s) => s.spanId);
    const sent = upstreamTraceparents.graph.filter((h): h is string => typeof h === 'string');
    expect(sent.length).toBeGreaterThan(0);
    for (const header of sent) {
      const [, traceId, spanId] = header.split('-');
      expect(traceId).toBe(CALLER_TRACE);
      expect(spanIds).toContain(spanId);
    }
  });

  it('records the $batch size of batched lookups', () => {
    const batch = children(operation('query Lookups')).filter((s) => s.attributes['url.path'] === '/graph/v1.0/$batch');
    expect(batch).toHaveLength(1);
    expect(batch[0].attributes['graph.batch.size']).toBe(3);
  });

  it('traces a graphql-ws stream: the subscription span parents the streaming upstream request', () => {
    const op = operation('subscription Stream');
    expect(op.attributes).toMatchObject({ 'graphql.transport': 'ws', 'graphql.outcome': 'ok' });
    const [upstream, ...rest] = children(op);
    expect(rest).toHaveLength(0);
    expect(upstream).toMatchObject({ name: 'POST glm' });
    expect(upstream.attributes).toMatchObject({
      'gateway.upstream': 'glm',
      'http.response.status_code': 200,
      'url.path': '/glm/api/paas/v4/chat/completions',
    });
    expect(upstreamTraceparents.glm).toEqual([`00-${op.traceId}-${upstream.spanId}-01`]);
  });

  it('puts no key, token or query string in any span attribute', () => {
    const exported = receiver.bodies.join('\n');
    expect(exported).not.toMatch(/apikey|Bearer|authorization|client_secret/i);
    const title = children(operation('query Title'));
    expect(title[0].attributes['url.path']).toBe('/omdb/');
  });
});

describe('tracing off', () => {
  it('starts nothing without OTEL_EXPORTER_OTLP_ENDPOINT', async () => {
    expect(await startTracing(undefined)).toBeUndefined();
  });

  it('sends no traceparent upstream when the gateway has no endpoint', async () => {
    const plain = await startTestGateway();
    try {
      expect((await plain.query(NESTED)).body.errors).toBeUndefined();
      expect(plain.upstreamRequests('graph').every((r) => r.headers.traceparent === undefined)).toBe(true);
    } finally {
      await plain.close();
    }
  });
});
