import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { conformanceCases, MANIFEST, type ConformanceCase } from './cases.js';
import { TRANSPORTS, type TransportRunner } from './transports.js';

/**
 * The conformance table (cases.ts) run against every transport (transports.ts): each row's outcome and upstream
 * requests must be the same whatever carried the operation.
 */
const manifestFile = join(mkdtempSync(join(tmpdir(), 'conformance-')), 'manifest.json');
writeFileSync(manifestFile, JSON.stringify(MANIFEST));

/** One gateway per configuration, shared by the rows and transports that use it (a fresh one for rows that close it). */
const gateways = new Map<string, Promise<TestGateway>>();
function gatewayFor(c: ConformanceCase): Promise<TestGateway> {
  // Every transport sends the same operation to a shared gateway and must cost the same upstream requests: the
  // response cache would answer the second transport from the first one's answer (test/pipeline/rules/responseCache.test.ts
  // checks the cache itself over HTTP, graphql-ws and SSE).
  const start = () => startTestGateway({ RESPONSE_CACHE_MAX_BYTES: '0', ...c.env }, c.sandbox ?? {});
  if (c.fresh) return start();
  const key = JSON.stringify([c.env ?? {}, c.sandbox ?? {}]);
  if (!gateways.has(key)) gateways.set(key, start());
  return gateways.get(key)!;
}
afterAll(async () => {
  await Promise.all([...gateways.values()].map(async (g) => (await g).close()));
});

function countByUpstream(t: TestGateway): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const r of t.upstreamRequests()) counts[r.upstream] = (counts[r.upstream] ?? 0) + 1;
  return counts;
}

async function runCase(c: ConformanceCase, transport: TransportRunner): Promise<void> {
  const t = await gatewayFor(c);
  try {
    t.clearUpstreamRequests();
    await c.setup?.(t);
    const outcome = await transport.run(t, c.request, c.afterFirst?.(t));
    const first = outcome.results.flatMap((r) => [
      ...(r.errors ?? []),
      ...(r.incremental ?? []).flatMap((part) => part.errors ?? []),
    ])[0];
    expect(first?.extensions?.code, JSON.stringify(outcome.results).slice(0, 400)).toBe(c.expect.code);
    if (c.expect.extensions) expect(first?.extensions).toMatchObject(c.expect.extensions);
    if (c.expect.message?.includes) expect(first?.message).toContain(c.expect.message.includes);
    if (c.expect.message?.excludes) expect(first?.message).not.toContain(c.expect.message.excludes);
    await c.expect.check?.(outcome, t);
    expect(countByUpstream(t)).toEqual(c.expect.upstreams);
  } finally {
    if (c.fresh) await t.close();
  }
}

for (const c of conformanceCases(manifestFile)) {
  describe(c.name, () => {
    for (const transport of TRANSPORTS) {
      if (c.carriers && !c.carriers(transport)) continue;
      it(`over ${transport.name}`, () => runCase(c, transport));
    }
  });
}
