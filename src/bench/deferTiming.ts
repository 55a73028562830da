/**
 * Time to the first part against the whole answer, for a query whose slow part is deferred, against a running
 * gateway and its sandbox:
 *
 *   npx tsx src/bench/deferTiming.ts http://127.0.0.1:4000/graphql http://127.0.0.1:<sandbox port> [runs] [delayMs]
 *
 * (the sandbox's port is in the gateway's start-up log, `upstream graph: sandbox http://127.0.0.1:…/graph/v1.0`).
 * Each run injects `delayMs` of latency into the one Graph request (the sandbox's fault API), then asks the same
 * operation twice: with `@defer` as multipart (Apollo Client's Accept) and without it as plain JSON.
 */
const [
  gateway = 'http://127.0.0.1:4000/graphql',
  sandbox = 'http://127.0.0.1:4010',
  runsText = '10',
  delayText = '800',
] = process.argv.slice(2);
const runs = Number(runsText);
const delayMs = Number(delayText);

const FAST = 'chatProviders { id models } upstreams { id mode }';
const SLOW =
  'admin { serviceAnnouncement { healthOverviews(first: 10) { nodes { id service status issues(first: 3) { nodes { id title } } } } } }';
const DEFERRED = `query Dashboard { ${FAST} ... @defer(label: "health") { ${SLOW} } }`;
const WHOLE = `query Dashboard { ${FAST} ${SLOW} }`;

async function slowGraph(): Promise<void> {
  const res = await fetch(`${sandbox}/_sandbox/faults`, {
    method: 'POST',
    body: JSON.stringify({ upstream: 'graph', times: 1, delayMs, match: 'healthOverviews' }),
  });
  if (!res.ok) throw new Error(`the sandbox refused the fault: ${res.status} ${await res.text()}`);
}

/** Milliseconds to the first part (its delimiter after it read) and to the closing delimiter. */
async function deferred(): Promise<{ firstMs: number; lastMs: number; parts: number }> {
  const t0 = performance.now();
  const res = await fetch(gateway, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'multipart/mixed;deferSpec=20220824,application/json' },
    body: JSON.stringify({ query: DEFERRED }),
  });
  let text = '';
  let firstMs = NaN;
  const decoder = new TextDecoder();
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    text += decoder.decode(chunk, { stream: true });
    // The first part is complete once the delimiter after it arrived (how clients read it).
    if (Number.isNaN(firstMs) && text.indexOf('\r\n---', 1) !== -1) firstMs = performance.now() - t0;
  }
  if (!text.endsWith('\r\n-----\r\n')) throw new Error(`not a closed multipart answer: ${text.slice(0, 300)}`);
  return { firstMs, lastMs: performance.now() - t0, parts: text.split('\r\n---\r\n').length - 1 };
}

async function whole(): Promise<number> {
  const t0 = performance.now();
  const res = await fetch(gateway, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query: WHOLE }),
  });
  const body = (await res.json()) as { errors?: unknown };
  if (body.errors) throw new Error(`the whole answer has errors: ${JSON.stringify(body.errors).slice(0, 300)}`);
  return performance.now() - t0;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const first: number[] = [];
const last: number[] = [];
const plain: number[] = [];
// One run of each unmeasured first, so neither side pays for first-use compilation.
for (let i = 0; i <= runs; i++) {
  await slowGraph();
  const d = await deferred();
  await slowGraph();
  const w = await whole();
  if (i === 0) continue;
  first.push(d.firstMs);
  last.push(d.lastMs);
  plain.push(w);
}
const ms = (v: number) => `${v.toFixed(1)} ms`;
console.log(`Graph latency injected: ${delayMs} ms; ${runs} runs each; medians`);
console.log(`@defer, multipart: first part ${ms(median(first))}, last part ${ms(median(last))}`);
console.log(`no @defer, application/json: whole answer ${ms(median(plain))}`);
