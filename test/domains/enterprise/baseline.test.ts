import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { naiveBaseline } from './naiveBaseline.js';

let gw: TestGateway;
let naive: Awaited<ReturnType<typeof naiveBaseline>>;
beforeAll(async () => {
  gw = await startTestGateway({ GATEWAY_MAX_ALIASES: '100' });
  naive = await naiveBaseline(`${gw.sandbox.baseUrls.graph}/v1.0`);
  // Warm the application token so both sides count Graph requests only.
  await gw.query('{ admin { serviceAnnouncement { healthOverview(id: "Exchange") { id } } } }');
});
afterAll(() => gw?.close());

const ids45 = Array.from({ length: 45 }, (_, i) => `Svc${i}`);
const operations: Array<{ name: string; query: string; target: number }> = [
  {
    name: 'nested Admin→Issue list',
    query: `{ admin { serviceAnnouncement { healthOverviews { nodes { service
      issues(first: 5, orderBy: [{ field: START_DATE_TIME, direction: DESC }]) { nodes { title } } } } } } }`,
    target: 1,
  },
  {
    name: 'three aliased healthOverview',
    query: `{ admin { serviceAnnouncement { a: healthOverview(id: "Exchange") { service } b: healthOverview(id: "SharePoint") { status }
      c: healthOverview(id: "microsoftteams") { service } } } }`,
    target: 1,
  },
  {
    name: '45 distinct healthOverview ids',
    query: `{ admin { serviceAnnouncement { ${ids45.map((id, i) => `s${i}: healthOverview(id: "${id}") { id }`).join(' ')} } } }`,
    target: 3,
  },
  {
    name: 'fragments with @include(if: false)',
    query: `{ admin { serviceAnnouncement { healthOverviews(first: 10) { nodes { ...H } } } } }
      fragment H on ServiceHealth { service status @include(if: false) issues(first: 2) { nodes { id title } } }`,
    target: 1,
  },
  {
    name: 'one service with issues and posts',
    query: `{ admin { serviceAnnouncement { healthOverview(id: "Exchange") { service issues(first: 10) { nodes { title posts { postType } } } } } } }`,
    target: 1,
  },
];

it('costs the target number of upstream requests, never more than the naive resolver-per-field baseline', async () => {
  const rows: Array<{ operation: string; ours: number; naive: number }> = [];
  for (const op of operations) {
    gw.clearUpstreamRequests();
    const ours = await gw.query(op.query);
    expect(ours.body.errors).toBeUndefined();
    const oursCount = gw.upstreamRequests('graph').length;
    gw.clearUpstreamRequests();
    const theirs = (await naive(op.query)) as { errors?: unknown[]; data?: unknown };
    expect(theirs.errors).toBeUndefined();
    const naiveCount = gw.upstreamRequests('graph').length;
    // Same answers: the baseline is a fair comparison, not a different query.
    expect(JSON.parse(JSON.stringify(theirs.data))).toEqual(ours.body.data);
    rows.push({ operation: op.name, ours: oursCount, naive: naiveCount });
    expect(oursCount).toBe(op.target);
    expect(oursCount).toBeLessThanOrEqual(naiveCount);
  }
  console.table(rows);
});
