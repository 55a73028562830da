import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../support/gateway.js';

// An operator follows one client request through the log by its id: every line written while it runs, the upstream
// calls, their retries and the circuit breaker included, must carry it.
let t: TestGateway;
beforeAll(async () => {
  t = await startTestGateway({ LOG_LEVEL: 'debug' });
});
afterAll(() => t.close());

/** The lines logged while `send` runs (only one request is in flight), once its `operation` line is written. */
async function linesOf(requestId: string, send: () => Promise<unknown>): Promise<Array<Record<string, unknown>>> {
  const from = t.logs.lines.length;
  await send();
  const finished = () =>
    t.logs
      .json()
      .slice(from)
      .some((l) => l.msg === 'operation' && l.requestId === requestId);
  for (let i = 0; i < 100 && !finished(); i++) await new Promise((r) => setTimeout(r, 20));
  return t.logs.json().slice(from);
}

describe('the log of one request at debug level', () => {
  it('carries its requestId on every line: upstream requests, retries and the circuit opening', async () => {
    // Graph answers 503 once (one retry); five distinct titles fail with 500, the fifth failure opens OMDb's circuit.
    t.sandbox.faults.push({ upstream: 'graph', times: 1, status: 503 });
    t.sandbox.faults.push({ upstream: 'omdb', times: 5, status: 500 });
    const ids = ['tt0078346', 'tt0468569', 'tt0120915', 'tt0086190', 'tt0080684'];
    const titles = ids.map((id, i) => `t${i}: title(imdbId: "${id}") { title }`).join(' ');
    const requestId = 'log-check-0001';
    const lines = await linesOf(requestId, () =>
      t.query(`{ admin { serviceAnnouncement { healthOverview(id: "Exchange") { id } } } ${titles} }`, undefined, {
        'x-request-id': requestId,
      }),
    );

    expect(lines.filter((l) => l.requestId !== requestId)).toEqual([]);
    const upstreamLines = lines.filter((l) => l.msg === 'upstream request');
    expect(upstreamLines.filter((l) => l.upstream === 'omdb')).toHaveLength(5);
    // The sandbox's app token first (the request that needed it fetched it), then the health call, once retried.
    expect(
      upstreamLines.filter((l) => l.upstream === 'graph').map((l) => [String(l.url).includes('/oauth2/'), l.status]),
    ).toEqual([
      [true, 200],
      [false, 503],
      [false, 200],
    ]);
    expect(lines.filter((l) => l.msg === 'retrying upstream request').map((l) => l.upstream)).toEqual(['graph']);
    expect(lines.filter((l) => l.msg === 'circuit open for omdb')).toHaveLength(1);
    expect(lines.filter((l) => l.msg === 'operation')).toHaveLength(1);
  });

  it('carries it on a chat completion and its retry', async () => {
    t.sandbox.faults.push({ upstream: 'glm', times: 1, status: 429, retryAfter: 0 });
    const requestId = 'log-check-0002';
    const lines = await linesOf(requestId, () =>
      t.query(
        'mutation { createChatCompletion(input: { provider: "glm", model: "glm-4-flash", messages: [{ role: USER, content: "Hi" }] }) { content } }',
        undefined,
        {
          'x-request-id': requestId,
        },
      ),
    );

    expect(lines.filter((l) => l.requestId !== requestId)).toEqual([]);
    expect(lines.filter((l) => l.msg === 'upstream request').map((l) => [l.upstream, l.status])).toEqual([
      ['glm', 429],
      ['glm', 200],
    ]);
    expect(lines.filter((l) => l.msg === 'retrying upstream request')).toHaveLength(1);
  });
});
