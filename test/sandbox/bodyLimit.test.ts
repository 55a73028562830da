import { Readable } from 'node:stream';
import { Agent } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../src/sandbox/server.js';

/**
 * A body over the sandbox's limit (src/sandbox/http.ts) is refused with 413 and `Connection: close`, and its socket is
 * closed after the answer, as real servers do: a client's pool never sends its next request on a socket whose
 * unread body the server would take for that request.
 */
describe("a request body over the sandbox's limit", () => {
  let sandbox: Sandbox;
  // One socket, so the second request can only go where the first went, or on a new one.
  let agent: Agent;
  beforeAll(async () => {
    sandbox = await startSandbox({ settings: { chatTokenDelayMs: 0 } });
    agent = new Agent({ connections: 1, pipelining: 1 });
  });
  afterAll(async () => {
    await agent?.close();
    await sandbox?.close();
  });

  const lookup = async () => {
    const res = await agent.request({
      origin: sandbox.origin,
      path: '/omdb/?apikey=sandbox&i=tt0078346',
      method: 'GET',
      headersTimeout: 10_000,
      bodyTimeout: 10_000,
    });
    expect(res.statusCode).toBe(200);
    return JSON.parse(await res.body.text()) as unknown;
  };

  it('is answered 413 with Connection: close, and the next request on the same pool is answered at once', async () => {
    const { origin } = sandbox;
    let connections = 0;
    sandbox.server.on('connection', () => connections++);
    const big = JSON.stringify({
      model: 'kimi-k2-0905-preview',
      messages: [{ role: 'user', content: 'x'.repeat(11 * 1024 * 1024) }],
    });
    const first = await agent.request({
      origin,
      path: '/moonshot/v1/chat/completions',
      method: 'POST',
      headers: { authorization: 'Bearer sandbox', 'content-type': 'application/json' },
      body: big,
    });
    const text = await first.body.text();
    expect(first.statusCode).toBe(413);
    expect(first.headers.connection).toBe('close');
    expect(JSON.parse(text)).toEqual({
      error: { code: 'RequestTooLarge', message: 'request body larger than 10485760 bytes: send a smaller one.' },
    });
    // The whole body was read before the answer, and nothing of it recorded as a request of its own.
    expect(sandbox.record.list()).toEqual([]);

    // On the reused socket it waited until undici gave up (HeadersTimeoutError); now it goes on a new one.
    expect(await lookup()).toMatchObject({ Title: 'Superman' });
    expect(connections).toBe(2);
  });

  it('drops the socket of a body that goes on past what the sandbox reads and drops, and the pool goes on', async () => {
    // 80 MiB in 1 MiB chunks, generated as sent: past the 10 MiB read and the 64 MiB dropped.
    const chunk = Buffer.alloc(1024 * 1024, 'x');
    const endless = Readable.from(
      (function* () {
        for (let i = 0; i < 80; i++) yield chunk;
      })(),
    );
    const sent = agent.request({
      origin: sandbox.origin,
      path: '/moonshot/v1/chat/completions',
      method: 'POST',
      headers: { authorization: 'Bearer sandbox', 'content-type': 'application/json' },
      body: endless,
    });
    await expect(sent).rejects.toThrow();
    expect(await lookup()).toMatchObject({ Title: 'Superman' });
  });
});
