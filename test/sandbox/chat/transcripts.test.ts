import { readFileSync, existsSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../../src/sandbox/server.js';
import { startTestGateway } from '../../support/gateway.js';
import { wsClient } from '../../support/ws.js';
import { streamAll } from '../../support/chat.js';

/** The wire of each provider, pinned by transcripts from its documentation (test/fixtures/providers/README.md). */
const dir = new URL('../../fixtures/providers/', import.meta.url);
const read = (provider: string, file: string) => readFileSync(new URL(`${provider}/${file}`, dir), 'utf8');
const json = (provider: string, file: string) => JSON.parse(read(provider, file));
const has = (provider: string, file: string) => existsSync(new URL(`${provider}/${file}`, dir));

/** Keys and value types, recursively (arrays by the set of their elements' shapes): what two answers must share. */
function shape(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return `[${[...new Set(v.map(shape))].sort().join('|')}]`;
  if (typeof v === 'object')
    return `{${Object.keys(v as object)
      .sort()
      .map((k) => `${k}:${shape((v as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  return typeof v;
}

/** The distinct shapes of a stream's data events, `[DONE]` and the comments included as such. */
function streamShapes(raw: string): string[] {
  const events = raw.split('\n\n').filter(Boolean);
  return [
    ...new Set(
      events.map((e) =>
        e.startsWith(':') ? 'comment' : e === 'data: [DONE]' ? '[DONE]' : shape(JSON.parse(e.slice('data: '.length))),
      ),
    ),
  ].sort();
}

const PREFIX = { deepseek: 'DEEPSEEK', glm: 'GLM', ark: 'ARK', moonshot: 'MOONSHOT' } as const;
const PROVIDERS = Object.keys(PREFIX) as Array<keyof typeof PREFIX>;

const ANSWER = `mutation Complete($input: ChatCompletionInput!) {
  createChatCompletion(input: $input) {
    content reasoningUsed
    choices { finishReason message { reasoningContent } }
    usage { promptTokens completionTokens totalTokens reasoningTokens cachedPromptTokens }
  }
}`;
const STREAM_USAGE = 'usage { promptTokens completionTokens totalTokens reasoningTokens cachedPromptTokens }';

/** A provider that answers with the transcript, and keeps the bodies it was sent. */
async function replay(provider: string): Promise<{ server: Server; base: string; bodies: unknown[] }> {
  const bodies: unknown[] = [];
  const server = createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (c: Buffer) => parts.push(c));
    req.on('end', () => {
      if (req.method === 'GET' && req.url!.endsWith('/models')) {
        if (!has(provider, 'models.json')) return void res.writeHead(404).end();
        return void res.writeHead(200, { 'content-type': 'application/json' }).end(read(provider, 'models.json'));
      }
      const body = JSON.parse(Buffer.concat(parts).toString('utf8'));
      bodies.push(body);
      if (body.stream) res.writeHead(200, { 'content-type': 'text/event-stream' }).end(read(provider, 'stream.sse'));
      else res.writeHead(200, { 'content-type': 'application/json' }).end(read(provider, 'completion.json'));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, base: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, bodies };
}

describe.each(PROVIDERS)('%s transcript', (provider) => {
  it('the client sends the documented requests and reads the documented answers, whole and streamed', async () => {
    const fake = await replay(provider);
    const prefix = PREFIX[provider];
    const t = await startTestGateway({
      [`${prefix}_BASE_URL`]: fake.base,
      [`${prefix}_API_KEY`]: 'transcript-key-0123456789',
      ...(provider === 'ark' ? { ARK_ENDPOINTS: 'doubao-pro=ep-20250101-doubao-pro' } : {}),
    });
    try {
      const input = { provider, ...json(provider, 'input.json') };
      const expected = json(provider, 'expected.json');
      const { body } = await t.query(ANSWER, { input });
      expect(body.errors).toBeUndefined();
      const answer = body.data.createChatCompletion;
      expect({
        content: answer.content,
        reasoningContent: answer.choices[0].message.reasoningContent,
        finishReason: answer.choices[0].finishReason,
        reasoningUsed: answer.reasoningUsed,
        usage: answer.usage,
      }).toEqual({
        content: expected.content,
        reasoningContent: expected.reasoningContent,
        finishReason: expected.finishReason,
        reasoningUsed: expected.reasoningUsed,
        usage: expected.usage,
      });

      const client = wsClient(t.gateway.wsUrl);
      let streamed: Awaited<ReturnType<typeof streamAll>>;
      try {
        streamed = await streamAll(client, input);
      } finally {
        await client.dispose();
      }
      expect(streamed.errors).toBeUndefined();
      const chunks = streamed.chunks as Array<
        (typeof streamed.chunks)[number] & { usage: Record<string, unknown> | null }
      >;
      expect(chunks.map((c) => c.delta.content ?? '').join('')).toBe(expected.content);
      expect(chunks.map((c) => c.delta.reasoningContent ?? '').join('') || null).toBe(expected.reasoningContent);
      expect(chunks.at(-1)).toMatchObject({ finishReason: expected.finishReason });

      expect(fake.bodies).toEqual([json(provider, 'request.json'), json(provider, 'stream-request.json')]);
      if (expected.models) {
        const listed = (await t.query('{ chatProviders { id models } }')).body.data.chatProviders.find(
          (p: { id: string }) => p.id === provider,
        );
        expect(listed.models).toEqual(expected.models);
      }
    } finally {
      await t.close();
      await new Promise((resolve) => fake.server.close(resolve));
    }
  });

  it("the stream's last chunk carries the documented usage", async () => {
    const fake = await replay(provider);
    const prefix = PREFIX[provider];
    const t = await startTestGateway({
      [`${prefix}_BASE_URL`]: fake.base,
      [`${prefix}_API_KEY`]: 'transcript-key-0123456789',
      ...(provider === 'ark' ? { ARK_ENDPOINTS: 'doubao-pro=ep-20250101-doubao-pro' } : {}),
    });
    const client = wsClient(t.gateway.wsUrl);
    try {
      const query = `subscription S($input: ChatCompletionInput!) { chatCompletionStream(input: $input) { finishReason reasoningUsed ${STREAM_USAGE} } }`;
      const results: Array<{ finishReason: string | null; reasoningUsed: boolean | null; usage: unknown }> = [];
      await new Promise<void>((resolve, reject) =>
        client.subscribe(
          { query, variables: { input: { provider, ...json(provider, 'input.json') } } },
          { next: (r) => void results.push((r.data as any).chatCompletionStream), error: reject, complete: resolve },
        ),
      );
      const expected = json(provider, 'expected.json');
      expect(results.at(-1)).toEqual({
        finishReason: expected.finishReason,
        reasoningUsed: expected.reasoningUsed,
        usage: expected.usage,
      });
    } finally {
      await client.dispose();
      await t.close();
      await new Promise((resolve) => fake.server.close(resolve));
    }
  });
});

describe('the emulators answer the documented requests in the documented shape', () => {
  let sandbox: Sandbox;
  beforeAll(async () => {
    sandbox = await startSandbox({ settings: { chatTokenDelayMs: 0 } });
  });
  afterAll(() => sandbox.close());

  const post = (provider: keyof typeof PREFIX, body: unknown) =>
    fetch(`${sandbox.baseUrls[provider]}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer sandbox' },
      body: JSON.stringify(body),
    });

  it.each(PROVIDERS)('%s', async (provider) => {
    const whole = await post(provider, json(provider, 'request.json'));
    expect(whole.status).toBe(200);
    expect(shape(await whole.json())).toBe(shape(json(provider, 'completion.json')));

    const streamed = await post(provider, json(provider, 'stream-request.json'));
    expect(streamed.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(streamShapes(await streamed.text())).toEqual(streamShapes(read(provider, 'stream.sse')));

    if (has(provider, 'models.json')) {
      const list = await (
        await fetch(`${sandbox.baseUrls[provider]}/models`, { headers: { authorization: 'Bearer sandbox' } })
      ).json();
      expect(shape(list)).toBe(shape(json(provider, 'models.json')));
    }
  });
});

/**
 * Refusals the vendors document: Kimi's always-on models answer `thinking: {type: "disabled"}` with a 400, and Ark has
 * no effort `max`. The emulator answers the refused request as the transcript shows; the gateway never sends it: the
 * caller's input is refused before any request, saying what to change.
 */
describe.each(['moonshot', 'ark'] as const)('%s refusal transcript', (provider) => {
  it('the emulator refuses the documented request with the documented answer, and the gateway refuses its input before sending', async () => {
    const sandbox = await startSandbox({ settings: { chatTokenDelayMs: 0 } });
    const refusal = json(provider, 'refusal.json');
    try {
      const res = await fetch(`${sandbox.baseUrls[provider]}/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: 'Bearer sandbox' },
        body: read(provider, 'refusal-request.json'),
      });
      const body = await res.json();
      expect(res.status).toBe(refusal.status);
      expect(shape(body)).toBe(shape(refusal.body));
      // Ark's message ends with a fresh request id.
      expect(body.error.message.replace(/Request id: \w+/, '')).toBe(
        refusal.body.error.message.replace(/Request id: \w+/, ''),
      );
    } finally {
      await sandbox.close();
    }
    const fake = await replay(provider);
    const t = await startTestGateway({
      [`${PREFIX[provider]}_BASE_URL`]: fake.base,
      [`${PREFIX[provider]}_API_KEY`]: 'transcript-key-0123456789',
      ...(provider === 'ark' ? { ARK_ENDPOINTS: 'doubao-pro=ep-20250101-doubao-pro' } : {}),
    });
    try {
      const { body } = await t.query(ANSWER, { input: { provider, ...json(provider, 'refusal-input.json') } });
      expect(body.errors![0].extensions).toMatchObject({ code: 'BAD_USER_INPUT' });
      expect(fake.bodies).toEqual([]);
    } finally {
      await t.close();
      await new Promise((resolve) => fake.server.close(resolve));
    }
  });
});
