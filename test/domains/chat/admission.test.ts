import type { Client } from 'graphql-ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { wsClient } from '../../support/ws.js';

const STREAM =
  'subscription ($input: ChatCompletionInput!) { chatCompletionStream(input: $input) { delta { content } finishReason } }';
const input = (content: string, model = 'deepseek-flash') => ({
  provider: 'deepseek',
  model,
  messages: [{ role: 'USER', content }],
});

/** How one subscription went, in the order its events came. */
interface Run {
  first?: Promise<void>;
  ended: Promise<{ how: 'complete' | 'error'; error?: { message: string; extensions?: { code?: string } } }>;
  stop: () => void;
}

/** Starts one subscription; every event is also pushed to `log` as `<label>:<event>`, so tests can assert order. */
function start(client: Client, label: string, variables: Record<string, unknown>, log: string[]): Run {
  let firstSeen: () => void = () => undefined;
  const first = new Promise<void>((resolve) => (firstSeen = resolve));
  let stop: () => void = () => undefined;
  const ended = new Promise<Awaited<Run['ended']>>((resolve) => {
    let seen = false;
    stop = client.subscribe(
      { query: STREAM, variables },
      {
        next: (msg) => {
          if (msg.errors?.length) {
            log.push(`${label}:error`);
            return resolve({ how: 'error', error: msg.errors[0] as never });
          }
          if (!seen) {
            seen = true;
            log.push(`${label}:first`);
            firstSeen();
          }
        },
        error: (e) => {
          log.push(`${label}:error`);
          resolve({ how: 'error', error: (Array.isArray(e) ? e[0] : e) as never });
        },
        complete: () => {
          log.push(`${label}:complete`);
          resolve({ how: 'complete' });
        },
      },
    );
  });
  return { first, ended, stop };
}

/** Polls until `check` holds (bounded: 5 s), so an assertion after it reads a settled state, not a timing. */
async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 250 && !check(); i++) await new Promise((resolve) => setTimeout(resolve, 20));
  expect(check()).toBe(true);
}

describe('a chat stream admitted in line, arguments first (CHAT_PROVIDER_MAX_CONNECTIONS full)', () => {
  let gw: TestGateway;
  const clients: Client[] = [];
  beforeAll(async () => {
    gw = await startTestGateway(
      { CHAT_PROVIDER_MAX_CONNECTIONS: '1', DEEPSEEK_RPM: '1000', CLIENT_MAX_CHAT_STREAMS: '3' },
      // A long answer, slowly: the holder keeps the one connection until the test lets it go.
      { chatTokenDelayMs: 50, chatRpm: { deepseek: 0 } },
    );
  });
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.dispose()));
    await gw?.close();
  });

  const sent = (marker: string) => gw.upstreamRequests('deepseek').filter((r) => r.body.includes(`"${marker} `)).length;

  it('refuses bad arguments and caps at once while the pool is full; a good stream waits its turn, then streams', async () => {
    const client = wsClient(gw.gateway.url.replace('http', 'ws'));
    clients.push(client);
    const log: string[] = [];
    // The pool's one connection, held; the next stream waits in line for it.
    const holder = start(client, 'holder', { input: input('H0 [[long:2000]]') }, log);
    await holder.first;
    const waiter = start(client, 'waiter', { input: input('W [[long:3]]') }, log);
    await until(() => gw.upstreamRequests('deepseek').length === 1);

    // Refused at once, in line behind nobody: an unknown model, an empty conversation, an unknown provider.
    const badModel = await start(client, 'badModel', { input: input('B1', 'no-such-model') }, log).ended;
    const noMessages = await start(client, 'noMessages', { input: { ...input('x'), messages: [] } }, log).ended;
    const badProvider = await start(client, 'badProvider', { input: { ...input('x'), provider: 'nobody' } }, log).ended;
    for (const refused of [badModel, noMessages, badProvider]) {
      expect(refused.how).toBe('error');
      expect(refused.error?.extensions?.code).toBe('BAD_USER_INPUT');
    }
    expect(badModel.error?.message).toContain('no-such-model');
    // Its fourth chat stream (CLIENT_MAX_CHAT_STREAMS=3) passes the arguments and is refused by the cap, without waiting.
    const third = start(client, 'third', { input: input('T [[long:3]]') }, log);
    const capped = await start(client, 'capped', { input: input('C [[long:3]]') }, log).ended;
    expect(capped.error?.extensions?.code).toBe('RATE_LIMITED');

    // Nobody waiting got anything, nothing but the holder was sent, the holder still streams.
    expect(log.filter((e) => e.startsWith('waiter') || e.startsWith('third') || e === 'holder:complete')).toEqual([]);
    expect({ holder: sent('H0'), waiter: sent('W'), third: sent('T'), refused: sent('B1') + sent('x') }).toEqual({
      holder: 1,
      waiter: 0,
      third: 0,
      refused: 0,
    });

    // The holder's client leaves: the waiter, first in line, gets the connection, then the stream after it.
    holder.stop();
    expect((await waiter.ended).how).toBe('complete');
    expect((await third.ended).how).toBe('complete');
    expect({ waiter: sent('W'), third: sent('T') }).toEqual({ waiter: 1, third: 1 });
    expect(log.indexOf('waiter:first')).toBeGreaterThan(log.indexOf('capped:error'));
    expect(log.indexOf('waiter:first')).toBeLessThan(log.indexOf('third:first'));
  });

  it('leaves the line when its socket closes: nothing is sent for it, and the connection goes to the next', async () => {
    const log: string[] = [];
    const holding = wsClient(gw.gateway.url.replace('http', 'ws'));
    const leaving = wsClient(gw.gateway.url.replace('http', 'ws'));
    const staying = wsClient(gw.gateway.url.replace('http', 'ws'));
    clients.push(holding, staying);
    const holder = start(holding, 'holder', { input: input('H1 [[long:2000]]') }, log);
    await holder.first;
    // A stream of a socket that goes away while it waits, then one of a socket that stays (CLIENT_MAX_CHAT_STREAMS=3:
    // the three streams of this address).
    start(leaving, 'gone', { input: input('G0 [[long:3]]') }, log);
    const line = gw.gateway.services.clients.chat.get('deepseek')!.connections;
    await until(() => line.waiting === 1);
    const next = start(staying, 'next', { input: input('N [[long:3]]') }, log);
    await until(() => line.waiting === 2);
    // The socket's close ends its wait at once, while the holder still streams.
    await leaving.dispose();
    await until(() => line.waiting === 1);
    holder.stop();
    expect((await next.ended).how).toBe('complete');
    expect({ gone: sent('G0'), next: sent('N') }).toEqual({ gone: 0, next: 1 });
  });
});
