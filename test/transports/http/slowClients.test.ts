import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/env.js';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { rawHttp } from '../../support/rawHttp.js';
import { rawSubscriber } from '../../support/ws.js';

let t: TestGateway | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

/** Sends `text` one byte every `everyMs` until done or the server closed; resolves with the bytes it got to send. */
async function dribble(client: ReturnType<typeof rawHttp>, text: string, everyMs: number): Promise<number> {
  let gone = false;
  void client.closed.then(() => (gone = true));
  for (let i = 0; i < text.length; i++) {
    if (gone) return i;
    client.socket.write(text[i]);
    await new Promise((r) => setTimeout(r, everyMs));
  }
  return text.length;
}

describe('slow requests', () => {
  it('defaults to 10 s for the headers and 30 s for a whole request', () => {
    expect(loadConfig({}).http).toEqual({ headersTimeoutMs: 10_000, requestTimeoutMs: 30_000 });
  });

  it('drops a client that sends its headers byte by byte (slowloris) with 408 once HTTP_HEADERS_TIMEOUT_MS passed', async () => {
    t = await startTestGateway({ HTTP_HEADERS_TIMEOUT_MS: '1000', HTTP_REQUEST_TIMEOUT_MS: '2000' });
    expect(t.gateway.server.headersTimeout).toBe(1000);
    const client = rawHttp(t.gateway.url);
    // 120 header bytes at one per 100 ms would take 12 s: the server cuts it long before the end.
    const head = `GET /healthz HTTP/1.1\r\nhost: 127.0.0.1\r\nx-slow: ${'x'.repeat(120)}\r\n\r\n`;
    const sent = await dribble(client, head, 100);
    expect(sent).toBeLessThan(head.length);
    expect(await client.status).toBe(408);
  });

  it('drops a client that sends its body byte by byte with 408 once HTTP_REQUEST_TIMEOUT_MS passed', async () => {
    t = await startTestGateway({ HTTP_HEADERS_TIMEOUT_MS: '1000', HTTP_REQUEST_TIMEOUT_MS: '2000' });
    const body = JSON.stringify({ query: `{ chatProviders { id } } # ${'x'.repeat(100)}` });
    const client = rawHttp(t.gateway.url);
    client.socket.write(
      `POST /graphql HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\n\r\n`,
    );
    const sent = await dribble(client, body, 100);
    expect(sent).toBeLessThan(body.length);
    expect(await client.status).toBe(408);
    expect(t.upstreamRequests()).toHaveLength(0);
  });
});

describe('client-chosen operation ids', () => {
  it('closes a graphql-ws connection whose operation id is 1 MB with 4400, without echoing or logging the id', async () => {
    t = await startTestGateway();
    const sub = await rawSubscriber(t.gateway.wsUrl);
    const id = `op-${'x'.repeat(1024 * 1024)}`;
    sub.subscribe(id, '{ chatProviders { id } }');
    expect(await sub.closed).toEqual({ code: 4400, reason: 'Operation id longer than 128 characters' });
    expect(sub.received.size).toBe(0);
    expect(t.logs.lines.filter((l) => l.includes('x'.repeat(200)))).toEqual([]);
    expect(t.upstreamRequests()).toHaveLength(0);
  });

  it('runs an operation whose id is 128 characters', async () => {
    t = await startTestGateway();
    const sub = await rawSubscriber(t.gateway.wsUrl);
    const id = 'i'.repeat(128);
    sub.subscribe(id, '{ chatProviders { id } }');
    expect(await sub.results(id, 1)).toHaveLength(1);
    sub.ws.close();
  });

  it('refuses a GraphQL over SSE operationId over 128 characters with 400, before running it', async () => {
    t = await startTestGateway();
    const token = await (await fetch(t.gateway.url, { method: 'PUT' })).text();
    const stream = rawHttp(t.gateway.url, {
      method: 'GET',
      headers: { accept: 'text/event-stream', 'x-graphql-event-stream-token': token },
    });
    expect(await stream.status).toBe(200);
    const res = await fetch(t.gateway.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-graphql-event-stream-token': token },
      body: JSON.stringify({ query: '{ chatProviders { id } }', extensions: { operationId: 'o'.repeat(129) } }),
    });
    expect(res.status).toBe(400);
    expect((await res.json()).errors[0]).toEqual({
      message: 'extensions.operationId is longer than 128 characters: use a shorter id (a UUID).',
      extensions: { code: 'BAD_USER_INPUT' },
    });
    expect(stream.received()).not.toContain('ooooo');
    stream.socket.destroy();
  });
});
