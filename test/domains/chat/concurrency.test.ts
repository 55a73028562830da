import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { wsClient } from '../../support/ws.js';
import { COMPLETION, PROVIDERS, streamAll, text, user } from '../../support/chat.js';

let t: TestGateway;
beforeAll(async () => {
  // DeepSeek's 60 requests per minute (gateway and sandbox) would refuse part of 200 calls: lift both. The test is
  // one client (one address) with 100 sockets and 100 chat streams at once: lift its fair share too.
  t = await startTestGateway(
    { DEEPSEEK_RPM: '1000', CLIENT_MAX_CONNECTIONS: '200', CLIENT_MAX_CHAT_STREAMS: '100' },
    { chatTokenDelayMs: 1, chatRpm: { deepseek: 0 } },
  );
});
afterAll(() => t.close());

/**
 * What it proves is order and counts, not speed: 100 streams of 6,764 chunks in all, tokens 1 ms apart, took over
 * 20 s (streamAll's default bound) at load 5–15 beside the suite's other files, so each stream gets 60 s.
 */
it('gives 100 concurrent subscriptions each exactly its own tokens, in order', async () => {
  const inputs = Array.from({ length: 100 }, (_, i) => {
    const p = PROVIDERS[i % PROVIDERS.length];
    return { provider: p.id, model: p.model, messages: [user(`Prompt number ${i}: describe item ${i * 7}.`)] };
  });
  const clients = Array.from({ length: 10 }, () => wsClient(t.gateway.wsUrl));
  const [answers, streams] = await Promise.all([
    Promise.all(inputs.map((input) => t.query(COMPLETION, { input }))),
    Promise.all(inputs.map((input, i) => streamAll(clients[i % clients.length], input, 60_000))),
  ]);
  await Promise.all(clients.map((c) => c.dispose()));

  const contents = answers.map((a) => a.body.data!.createChatCompletion.content as string);
  expect(new Set(contents).size).toBe(100);
  for (const [i, s] of streams.entries()) {
    expect(s.errors).toBeUndefined();
    expect(text(s.chunks)).toBe(contents[i]);
    expect(new Set(s.chunks.map((c) => c.id)).size).toBe(1);
    expect(s.chunks.at(-1)!.usage).toEqual(answers[i].body.data!.createChatCompletion.usage);
  }
  expect(t.upstreamRequests().filter((r) => JSON.parse(r.body).stream === true)).toHaveLength(100);
  expect(t.upstreamRequests().every((r) => r.status === 200 && !r.aborted)).toBe(true);
}, 90_000);
