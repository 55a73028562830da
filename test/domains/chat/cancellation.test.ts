import { afterEach, describe, expect, it } from 'vitest';
import { runningChatWriters } from '../../../src/sandbox/chat/index.js';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { wsClient } from '../../support/ws.js';
import { COMPLETION, PROVIDERS, STREAM, eventually, user } from '../../support/chat.js';

// Slow tokens (20-80 per answer, 50 ms apart) so that the answer is surely still streaming when the client leaves.
const SLOW = { chatTokenDelayMs: 50 };

let t: TestGateway | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

/** Open connections on the sandbox server: the gateway's upstream sockets, since nothing else talks to it here. */
const sandboxConnections = () =>
  new Promise<number>((resolve, reject) =>
    t!.sandbox.server.getConnections((err, n) => (err ? reject(err) : resolve(n))),
  );

/** Subscribes, waits for `count` chunks, then leaves the way `leave` says. */
async function receiveThenLeave(
  provider: string,
  model: string,
  count: number,
  leave: 'complete' | 'close',
): Promise<number> {
  const client = wsClient(t!.gateway.wsUrl);
  let received = 0;
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`fewer than ${count} chunks within 5 s`)), 5_000);
    const stop = client.subscribe(
      {
        query: STREAM,
        variables: { input: { provider, model, messages: [user(`Talk at length about ${provider}.`)] } },
      },
      {
        next: () => {
          received += 1;
          if (received === count) {
            clearTimeout(timer);
            if (leave === 'complete') stop();
            else void client.dispose();
            resolve();
          }
        },
        error: reject,
        complete: () => reject(new Error('the stream completed before the client left')),
      },
    );
  });
  if (leave === 'complete') {
    // The socket stays open: only the operation ended.
    const still = await eventually(() => t!.upstreamRequests(provider)[0]?.aborted === true);
    await client.dispose();
    expect(still).toBe(true);
  }
  return received;
}

describe.each(PROVIDERS)('leaving a $id stream', ({ id, model }) => {
  it('aborts the upstream request at once when the client completes the subscription after 3 chunks, and leaves no socket open', async () => {
    t = await startTestGateway({}, SLOW);
    expect(await sandboxConnections()).toBe(0);
    await receiveThenLeave(id, model, 3, 'complete');

    const [request] = t.upstreamRequests(id);
    expect(request.aborted).toBe(true);
    expect(request.status).toBeNull();
    expect(await eventually(async () => (await sandboxConnections()) === 0)).toBe(true);
    expect(await eventually(() => runningChatWriters() === 0)).toBe(true);
    const line = t.logs.json().find((l) => l.operation === 'Stream' && l.msg === 'operation');
    expect(line).toMatchObject({ type: 'subscription', outcome: 'ok' });
  });

  it('aborts the upstream request when the client closes its socket mid-stream', async () => {
    t = await startTestGateway({}, SLOW);
    await receiveThenLeave(id, model, 3, 'close');

    expect(await eventually(() => t!.upstreamRequests(id)[0]?.aborted === true)).toBe(true);
    expect(await eventually(async () => (await sandboxConnections()) === 0)).toBe(true);
  });
});

describe('leaving a createChatCompletion mutation', () => {
  it('aborts the upstream call when the HTTP client disconnects', async () => {
    t = await startTestGateway({}, SLOW);
    const controller = new AbortController();
    const pending = fetch(t.gateway.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        query: COMPLETION,
        variables: { input: { provider: 'moonshot', model: 'moonshot-v1-8k', messages: [user('A slow answer.')] } },
      }),
      signal: controller.signal,
    }).catch((error: unknown) => error);
    expect(await eventually(() => t!.upstreamRequests('moonshot').length === 1)).toBe(true);
    controller.abort();
    await pending;

    expect(await eventually(() => t!.upstreamRequests('moonshot')[0].aborted)).toBe(true);
    expect(await eventually(async () => (await sandboxConnections()) === 0)).toBe(true);
  });
});
