import type { ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeUpstream, type FakeUpstream } from '../../support/fakeUpstream.js';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';

const MIB = 1024 * 1024;
/** About 0.6 MiB: one body fits the budget, two do not. */
const BODY = 600 * 1024;
const CALLER = { authorization: 'Bearer fake-caller-token-for-graph' };
const lookup = (id: string) => `{ admin { serviceAnnouncement { healthOverview(id: "${id}") { id service } } } }`;

let fake: FakeUpstream;
let gw: TestGateway;
beforeAll(async () => {
  fake = await startFakeUpstream();
  // Each body may be 1 MiB, and so may all of them together.
  gw = await startTestGateway({
    GRAPH_BASE_URL: `${fake.origin}/graph`,
    UPSTREAM_MAX_RESPONSE_BYTES: String(MIB),
    UPSTREAM_MAX_BUFFERED_BYTES: String(MIB),
  });
});
afterAll(async () => {
  await gw?.close();
  await fake?.close();
});

/** A Graph answer of BODY characters of service name: its first part now, the rest when `finish` is called. */
function halfSent(res: ServerResponse, id: string): () => void {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.write(`{"id":"${id}","service":"${'x'.repeat(BODY)}`);
  return () => res.end('"}');
}

describe('UPSTREAM_MAX_BUFFERED_BYTES: one budget for every upstream body held at once', () => {
  it('fails the body that would cross it with UPSTREAM_ERROR naming the variable, serves the other, and has the bytes back after', async () => {
    const open: Array<{ res: ServerResponse; finish: () => void }> = [];
    fake.answer('/graph', (req, res) => {
      open.push({ res, finish: halfSent(res, req.url!.includes('Exchange') ? 'Exchange' : 'SharePoint') });
      // Both bodies are open at once; the gateway gives up one of them (its connection closes), then the other ends.
      if (open.length === 2)
        for (const { res: each } of open) each.once('close', () => open.forEach((o) => o.finish()));
    });
    const answers = await Promise.all([
      gw.query(lookup('Exchange'), undefined, CALLER),
      gw.query(lookup('SharePoint'), undefined, CALLER),
    ]);

    const failed = answers.filter((a) => a.body.errors);
    expect(failed).toHaveLength(1);
    expect(failed[0].body.errors![0].extensions).toMatchObject({
      code: 'UPSTREAM_ERROR',
      upstream: 'graph',
      upstreamCode: 'RESPONSE_BUFFER_FULL',
    });
    expect(failed[0].body.errors![0].message).toContain(
      'already holds 1 MiB (1048576 bytes) of upstream responses, the limit UPSTREAM_MAX_BUFFERED_BYTES sets',
    );
    const served = answers.find((a) => !a.body.errors)!;
    expect(served.body.data.admin.serviceAnnouncement.healthOverview.service).toHaveLength(BODY);

    // Both reads gave their bytes back: one more body of the same size fits again, twice in a row.
    for (const id of ['Exchange', 'SharePoint']) {
      fake.answer('/graph', (_req, res) => halfSent(res, id)());
      const again = await gw.query(lookup(id), undefined, CALLER);
      expect(again.body.errors).toBeUndefined();
    }
  });

  it('refuses a budget smaller than one body at start-up, naming both variables', async () => {
    await expect(
      startTestGateway({ UPSTREAM_MAX_RESPONSE_BYTES: String(2 * MIB), UPSTREAM_MAX_BUFFERED_BYTES: String(MIB) }),
    ).rejects.toThrow(/UPSTREAM_MAX_BUFFERED_BYTES.*at least UPSTREAM_MAX_RESPONSE_BYTES \(2097152\), got 1048576/);
  });
});
