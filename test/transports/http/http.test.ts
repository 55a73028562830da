import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';

describe('GraphQL over HTTP', () => {
  let t: TestGateway;
  beforeAll(async () => {
    t = await startTestGateway();
  });
  afterAll(() => t.close());

  it('answers a query over POST with the upstream list', async () => {
    const { status, body } = await t.query('{ upstreams { id mode baseUrl } }');
    expect(status).toBe(200);
    expect(body.errors).toBeUndefined();
    expect(body.data.upstreams.map((u: { id: string }) => u.id)).toEqual([
      'graph',
      'omdb',
      'glm',
      'ark',
      'deepseek',
      'moonshot',
    ]);
    expect(body.data.upstreams.every((u: { mode: string }) => u.mode === 'SANDBOX')).toBe(true);
  });

  it('answers GET with a preflight header and the graphql-response media type when asked', async () => {
    const res = await fetch(`${t.gateway.url}?query=${encodeURIComponent('{ upstreams { id } }')}`, {
      headers: { 'apollo-require-preflight': 'true', accept: 'application/graphql-response+json' },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('application/graphql-response+json');
    expect(((await res.json()) as any).data.upstreams).toHaveLength(6);
  });

  it('keeps CSRF prevention on: a simple GET without a preflight header is refused', async () => {
    const res = await fetch(`${t.gateway.url}?query=${encodeURIComponent('{ upstreams { id } }')}`);
    expect(res.status).toBe(400);
    const body = (await res.json()) as any;
    expect(body.errors[0].message).toMatch(/Cross-Site Request Forgery/);
    expect(body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
  });

  it('echoes a caller request id, or makes one, and logs it with the operation', async () => {
    const { headers } = await t.query('query Named { upstreams { id } }', undefined, {
      'x-request-id': 'trace-abc-123',
    });
    expect(headers.get('x-request-id')).toBe('trace-abc-123');
    const line = t.logs.json().find((l) => l.requestId === 'trace-abc-123' && l.msg === 'operation');
    expect(line).toMatchObject({ operation: 'Named', type: 'query', outcome: 'ok', transport: 'http' });
    expect(typeof line!.durationMs).toBe('number');
    const fresh = await t.query('{ upstreams { id } }', undefined, { 'x-request-id': 'bad id with spaces' });
    expect(fresh.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('gives every answer to a POST its request id, whichever route wrote it', async () => {
    const post = (body: string, headers: Record<string, string> = {}) =>
      fetch(t.gateway.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-request-id': 'post-1', ...headers },
        body,
      });
    const cases: Array<[string, Response, number]> = [
      // The direct route: a result, a refusal by the entry, variables that do not coerce.
      ['result', await post(JSON.stringify({ query: '{ upstreams { id } }' })), 200],
      ['refusal', await post(JSON.stringify({ query: 'subscription { serverTime(count: 1) }' })), 200],
      ['variables', await post(JSON.stringify({ query: 'query($n: Int!) { upstreams { id } }' })), 200],
      // Apollo's route (a document that does not parse, a batch, off by default), and the classifier's refusals.
      ['apollo', await post(JSON.stringify({ query: '{ upstreams {' })), 200],
      ['batch', await post(JSON.stringify([{ query: '{ upstreams { id } }' }])), 400],
      ['bad JSON', await post('{"query": '), 400],
      ['CSRF', await post('{}', { 'content-type': 'text/plain' }), 400],
    ];
    for (const [what, res, status] of cases) {
      expect([what, res.status, res.headers.get('x-request-id')]).toEqual([what, status, 'post-1']);
      await res.arrayBuffer();
    }
    // The direct route's head is written at once, with its length (not chunked).
    const direct = cases[0][1];
    expect(direct.headers.get('content-length')).toMatch(/^[0-9]+$/);
    expect(direct.headers.get('transfer-encoding')).toBeNull();
    expect(direct.headers.get('cache-control')).toBe('private, max-age=300');
  });

  it('tells a client that sends a subscription over HTTP to use the WebSocket', async () => {
    const { status, body } = await t.query('subscription { serverTime(count: 1) }', undefined, {
      accept: 'application/graphql-response+json',
    });
    expect(status).toBe(400);
    expect(body.errors![0].extensions!.code).toBe('BAD_USER_INPUT');
    expect(body.errors![0].message).toMatch(/graphql-ws.*ws:\/\//);
    expect(body.errors![0].extensions).not.toHaveProperty('http');
  });

  it('answers request errors with 200 to application/json clients and 400 to graphql-response+json ones', async () => {
    expect((await t.query('{ nope }')).status).toBe(200);
    expect((await t.query('{ nope }', undefined, { accept: 'application/graphql-response+json' })).status).toBe(400);
  });

  it('maps parse and validation failures onto contract codes, keeping the original as reason', async () => {
    const parse = await t.query('{ upstreams { id }');
    expect(parse.body.errors![0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', reason: 'GRAPHQL_PARSE_FAILED' });
    const invalid = await t.query('{ nope }');
    expect(invalid.body.errors![0].extensions).toMatchObject({
      code: 'BAD_USER_INPUT',
      reason: 'GRAPHQL_VALIDATION_FAILED',
    });
  });

  it('serves liveness, readiness and Prometheus metrics with per-operation counters and histograms', async () => {
    expect((await fetch(`${t.gateway.origin}/healthz`)).status).toBe(200);
    const ready = await fetch(`${t.gateway.origin}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toMatchObject({ status: 'ready', sharedState: { store: 'memory', status: 'ready' } });
    await t.query('query MetricsProbe { upstreams { id } }');
    const text = await (await fetch(`${t.gateway.origin}/metrics`)).text();
    expect(text).toMatch(/gateway_graphql_operations_total\{type="query",name="MetricsProbe",outcome="ok"\} 1/);
    expect(text).toMatch(
      /gateway_graphql_operation_duration_seconds_bucket\{le="[0-9.]+",type="query",name="MetricsProbe"\}/,
    );
    expect(text).toMatch(/gateway_http_requests_total\{method="POST",route="\/graphql",status="200"\}/);
    expect(text).toMatch(/gateway_http_request_duration_seconds_count\{route="\/graphql"\}/);
  });

  it('answers 404 with a pointer for unknown paths, and 413 for oversized bodies', async () => {
    const res = await fetch(`${t.gateway.origin}/nope`);
    expect(res.status).toBe(404);
    expect(((await res.json()) as any).error).toMatch(/\/graphql/);
    const big = await fetch(t.gateway.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: `{ upstreams { id } } #${'x'.repeat(1_100_000)}` }),
    });
    expect(big.status).toBe(413);
  });

  it('reads a body sent in many small pieces, and stays up when a client leaves half-way through one', async () => {
    const { request } = await import('node:http');
    const body = JSON.stringify({ query: '{ upstreams { id } }' });
    const send = (pieces: string[], end: boolean) =>
      new Promise<{ status?: number; text: string } | 'closed'>((resolve) => {
        const req = request(
          t.gateway.url,
          { method: 'POST', headers: { 'content-type': 'application/json', 'content-length': String(body.length) } },
          (res) => {
            let text = '';
            res.setEncoding('utf8');
            res.on('data', (c: string) => (text += c));
            res.on('end', () => resolve({ status: res.statusCode, text }));
          },
        );
        req.on('error', () => resolve('closed'));
        let i = 0;
        const next = () => {
          if (i < pieces.length) {
            req.write(pieces[i++]);
            setTimeout(next, 2);
          } else if (end) req.end();
          else req.destroy();
        };
        next();
      });
    const whole = await send(body.match(/.{1,3}/g)!, true);
    expect(whole).not.toBe('closed');
    expect(JSON.parse((whole as { text: string }).text).data.upstreams).toHaveLength(6);
    expect(await send([body.slice(0, 10)], false)).toBe('closed');
    // The gateway answers the next request as before, and logged no failure for the one that left.
    const after = await t.query('{ upstreams { id } }');
    expect(after.status).toBe(200);
    expect(t.logs.json().filter((l) => l.msg === 'request failed')).toEqual([]);
  });

  it("cancels a lookup's upstream request when its client leaves (Graph and OMDb), and serves the next one", async () => {
    const { request } = await import('node:http');
    const until = async (check: () => boolean) => {
      for (const end = Date.now() + 5000; !check(); await new Promise((r) => setTimeout(r, 10)))
        if (Date.now() > end) throw new Error('not within 5 s');
    };
    const lookups = [
      ['omdb', '{ title(imdbId: "tt0111161") { title } }'],
      ['graph', '{ admin { serviceAnnouncement { healthOverview(id: "SharePoint") { status } } } }'],
    ] as const;
    for (const [upstream, query] of lookups) {
      t.sandbox.record.clear();
      t.sandbox.faults.push({ upstream, times: 1, delayMs: 10_000 });
      const req = request(t.gateway.url, { method: 'POST', headers: { 'content-type': 'application/json' } });
      let answered = false;
      req.on('response', () => (answered = true));
      req.on('error', () => {});
      req.end(JSON.stringify({ query }));
      // Graph's first request may be the sandbox token's (`login`): only the lookup's own counts.
      const sent = () => t.sandbox.record.list().filter((r) => r.upstream === upstream);
      await until(() => sent().length === 1);
      req.destroy();
      // The operation's controller, with no AbortSignal made, still reaches the upstream request.
      await until(() => sent()[0].aborted);
      expect([answered, sent().map((r) => r.aborted)]).toEqual([false, [true]]);
      const again = await t.query(query);
      expect([again.status, again.body.errors]).toEqual([200, undefined]);
    }
  });
});

describe('GraphQL over HTTP in production', () => {
  let t: TestGateway;
  beforeAll(async () => {
    t = await startTestGateway({ NODE_ENV: 'production' });
  });
  afterAll(() => t.close());

  it('turns introspection off and never sends stack traces', async () => {
    const { body } = await t.query('{ __schema { queryType { name } } }');
    expect(body.errors![0].extensions!.code).toBe('BAD_USER_INPUT');
    expect(body.errors![0].message).toMatch(/introspection/i);
    expect(JSON.stringify(body)).not.toMatch(/stacktrace/);
  });

  it('hides field suggestions, which would reveal the schema', async () => {
    const { body } = await t.query('{ upstream { id } }');
    expect(body.errors![0].message).toMatch(/Cannot query field "upstream"/);
    expect(body.errors![0].message).not.toMatch(/Did you mean/);
    expect(JSON.stringify(body)).not.toMatch(/stacktrace/);
  });
});

describe('field suggestions in development', () => {
  let t: TestGateway;
  beforeAll(async () => {
    t = await startTestGateway();
  });
  afterAll(() => t.close());

  it('are shown, to help while exploring', async () => {
    const { body } = await t.query('{ upstream { id } }');
    expect(body.errors![0].message).toMatch(/Did you mean "upstreams"/);
  });
});
