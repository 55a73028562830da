import type { ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from 'graphql-ws';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { startFakeUpstream, type FakeUpstream } from '../../support/fakeUpstream.js';
import { wsClient } from '../../support/ws.js';
import { streamAll, text } from '../../support/chat.js';

const IDLE_MS = 500;
const LIMIT = 1024 * 1024;
const INPUT = { provider: 'glm', model: 'glm-4-flash', messages: [{ role: 'USER', content: 'hi' }] };

const event = (res: ServerResponse, body: unknown) =>
  res.write(`data: ${typeof body === 'string' ? body : JSON.stringify(body)}\n\n`);
const token = (content: string) => ({
  id: 'fake-1',
  created: 1,
  model: 'glm-4-flash',
  choices: [{ index: 0, delta: { role: 'assistant', content } }],
});
const finish = {
  id: 'fake-1',
  created: 1,
  model: 'glm-4-flash',
  choices: [{ index: 0, finish_reason: 'stop', delta: { role: 'assistant', content: '' } }],
  usage: { prompt_tokens: 1, completion_tokens: 3, total_tokens: 4 },
};
const sse = (res: ServerResponse) => res.writeHead(200, { 'content-type': 'text/event-stream' });
/** The finish chunk with usage, `[DONE]`, and the end of the body: a stream that ends well. */
const endWell = (res: ServerResponse) => {
  event(res, finish);
  event(res, '[DONE]');
  res.end();
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let fake: FakeUpstream;
let gw: TestGateway;
let client: Client;
/** Whether the gateway closed the last stream's connection (it must, on every bad ending). */
let closed: Promise<void>;

beforeAll(async () => {
  fake = await startFakeUpstream();
  gw = await startTestGateway({
    GLM_BASE_URL: `${fake.origin}/glm`,
    GLM_API_KEY: 'fake-glm-key-1234567890',
    CHAT_STREAM_IDLE_TIMEOUT_MS: String(IDLE_MS),
    UPSTREAM_MAX_RESPONSE_BYTES: String(LIMIT),
  });
  client = wsClient(gw.gateway.url.replace(/^http/, 'ws'));
});
afterAll(async () => {
  await client?.dispose();
  await gw?.close();
  await fake?.close();
});

function plan(write: (res: ServerResponse) => Promise<void> | void) {
  fake.answer('/glm', (_req, res) => {
    closed = new Promise((resolve) => res.on('close', () => resolve()));
    void write(res);
  });
}

describe('chat streams that end badly', () => {
  it('passes a well-formed stream through to its finish', async () => {
    plan((res) => {
      sse(res);
      for (const t of ['Hel', 'lo', '!']) event(res, token(t));
      endWell(res);
    });
    const { chunks, errors } = await streamAll(client, INPUT);
    expect(errors).toBeUndefined();
    expect(text(chunks)).toBe('Hello!');
    expect(chunks.at(-1)).toMatchObject({ finishReason: 'STOP', usage: { totalTokens: 4 } });
  });

  it('ends with UPSTREAM_ERROR when the provider closes the stream without a finish or [DONE]', async () => {
    plan((res) => {
      sse(res);
      for (const t of ['a', 'b', 'c']) event(res, token(t));
      res.end();
    });
    const { chunks, errors } = await streamAll(client, INPUT);
    expect(text(chunks)).toBe('abc');
    expect(errors).toHaveLength(1);
    expect(errors![0].extensions).toMatchObject({ code: 'UPSTREAM_ERROR', upstream: 'glm' });
    expect(errors![0].message).toBe('The glm stream ended after 3 chunks without a finish reason or [DONE].');
  });

  it('ends with UPSTREAM_ERROR naming the chunks sent when the provider cuts the connection mid-stream', async () => {
    plan(async (res) => {
      sse(res);
      for (const t of ['a', 'b']) event(res, token(t));
      await sleep(20);
      res.socket?.destroy();
    });
    const { chunks, errors } = await streamAll(client, INPUT);
    expect(text(chunks)).toBe('ab');
    expect(errors).toHaveLength(1);
    expect(errors![0].extensions).toMatchObject({ code: 'UPSTREAM_ERROR', upstream: 'glm' });
    expect(errors![0].message).toMatch(/^The glm stream broke off after 2 chunks \(.+\)/);
  });

  it('loses nothing when the cut comes after the finish and its usage: the stream ends as it would have', async () => {
    plan(async (res) => {
      sse(res);
      for (const t of ['o', 'k']) event(res, token(t));
      event(res, finish);
      await sleep(20);
      res.socket?.destroy();
    });
    const { chunks, errors } = await streamAll(client, INPUT);
    expect(errors).toBeUndefined();
    expect(text(chunks)).toBe('ok');
    expect(chunks.at(-1)).toMatchObject({ finishReason: 'STOP', usage: { totalTokens: 4 } });
  });

  it('ends with UPSTREAM_TIMEOUT when the stream stays silent past CHAT_STREAM_IDLE_TIMEOUT_MS, and closes the upstream connection', async () => {
    plan((res) => {
      sse(res);
      event(res, token('a'));
      event(res, token('b'));
    });
    const { chunks, errors } = await streamAll(client, INPUT);
    expect(text(chunks)).toBe('ab');
    expect(errors![0].extensions).toMatchObject({ code: 'UPSTREAM_TIMEOUT', upstream: 'glm' });
    expect(errors![0].message).toBe(
      `The glm stream sent nothing for ${IDLE_MS} ms after 2 chunks (CHAT_STREAM_IDLE_TIMEOUT_MS).`,
    );
    await closed;
  });

  it('ends with UPSTREAM_TIMEOUT when the provider never sends its headers', async () => {
    plan(() => undefined);
    const { chunks, errors } = await streamAll(client, INPUT);
    expect(chunks).toEqual([]);
    expect(errors![0].extensions).toMatchObject({ code: 'UPSTREAM_TIMEOUT', upstream: 'glm' });
    await closed;
  });

  it('counts keep-alive comments as signs of life: a slow stream outlives the idle limit', async () => {
    plan(async (res) => {
      sse(res);
      for (let i = 0; i < 6; i++) {
        res.write(': keep-alive\n\n');
        await sleep(IDLE_MS / 3);
      }
      event(res, token('late'));
      endWell(res);
    });
    const { chunks, errors } = await streamAll(client, INPUT);
    expect(errors).toBeUndefined();
    expect(text(chunks)).toBe('late');
  });

  it('ends with UPSTREAM_ERROR naming the limit when one event is larger than UPSTREAM_MAX_RESPONSE_BYTES', async () => {
    plan((res) => {
      sse(res);
      event(res, token('a'));
      res.write(`data: {"choices":[{"index":0,"delta":{"content":"${'x'.repeat(2 * LIMIT)}`);
    });
    const { chunks, errors } = await streamAll(client, INPUT);
    expect(text(chunks)).toBe('a');
    expect(errors![0].extensions).toMatchObject({
      code: 'UPSTREAM_ERROR',
      upstream: 'glm',
      upstreamCode: 'RESPONSE_TOO_LARGE',
    });
    expect(errors![0].message).toContain('sent one stream event larger than 1 MiB (1048576 bytes) after 1 chunks');
    await closed;
  });

  it('ends with UPSTREAM_ERROR when the stream carries bytes that are not UTF-8', async () => {
    plan((res) => {
      sse(res);
      event(res, token('a'));
      res.write(
        Buffer.concat([
          Buffer.from('data: {"choices":[{"index":0,"delta":{"content":"'),
          Buffer.from([0xff, 0xfe]),
          Buffer.from('"}}]}\n\n'),
        ]),
      );
    });
    const { errors } = await streamAll(client, INPUT);
    expect(errors![0].extensions).toMatchObject({ code: 'UPSTREAM_ERROR', upstream: 'glm' });
    // Whether the token before them arrives depends on whether both share one TCP read.
    expect(errors![0].message).toMatch(/^The glm stream sent bytes that are not UTF-8 after [01] chunks\.$/);
    await closed;
  });

  it('delivers the tokens before an event that is not JSON when all come in one read, then ends with UPSTREAM_ERROR', async () => {
    plan((res) => {
      sse(res);
      // One write, so one read: the events of a read are made into chunks together (StreamReading).
      res.write(
        `data: ${JSON.stringify(token('a'))}\n\ndata: ${JSON.stringify(token('b'))}\n\ndata: {"choices":\n\ndata: ${JSON.stringify(token('c'))}\n\n`,
      );
    });
    const { chunks, errors } = await streamAll(client, INPUT);
    expect(text(chunks)).toBe('ab');
    expect(errors![0].extensions).toMatchObject({ code: 'UPSTREAM_ERROR', upstream: 'glm' });
    expect(errors![0].message).toMatch(/^The glm stream sent an event that is not JSON after 2 chunks/);
    await closed;
  });
});
