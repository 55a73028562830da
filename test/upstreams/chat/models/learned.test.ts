import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../../../src/sandbox/server.js';
import { startTestGateway, type TestGateway } from '../../../support/gateway.js';
import { wsClient } from '../../../support/ws.js';
import { COMPLETION, WEATHER_TOOL, streamAll, user } from '../../../support/chat.js';

/**
 * What the gateway sends of its own accord, and what it does when a provider refuses it (upstreams/chat/additions.ts):
 * retried once without, learned for every replica (source LEARNED, a log line), never sent again.
 */
const MODELS = `{ chatProviders { id modelDetails { id reasoning reasoningEffort vision factSources { reasoning } } } }`;

let t: TestGateway | undefined;
let upstream: Sandbox | undefined;
afterEach(async () => {
  await t?.close();
  await upstream?.close();
  t = upstream = undefined;
});

const completions = () => t!.upstreamRequests('moonshot').filter((r) => r.url.endsWith('/chat/completions'));
const sent = () => completions().map((r) => JSON.parse(r.body) as Record<string, unknown>);

describe("the gateway's own additions: retried without, and remembered", () => {
  it('a refused reasoning switch costs two requests once, then none: the fact is learned (LEARNED) and logged', async () => {
    // The operator's stale fact: kimi-k3.1-pro can be switched off. Kimi refuses `thinking: {type: "disabled"}` on it.
    t = await startTestGateway({ MOONSHOT_MODELS: 'kimi-k3.1-pro:reasoning=on' });
    const agent = {
      provider: 'moonshot',
      model: 'kimi-k3.1-pro',
      tools: [WEATHER_TOOL],
      toolChoice: { name: 'get_weather' },
      messages: [user('Weather in Oslo?')],
    };

    const first = await t.query(COMPLETION, { input: agent });
    // 1: the gateway's switch, refused; 2: the same request without it, refused for the caller's forced tool choice.
    expect(sent().map((b) => b.thinking ?? null)).toEqual([{ type: 'disabled' }, null]);
    expect(sent()[1]).toMatchObject({
      tool_choice: { type: 'function', function: { name: 'get_weather' } },
      model: 'kimi-k3.1-pro',
    });
    expect(first.body.errors![0].extensions).toMatchObject({
      code: 'BAD_USER_INPUT',
      upstream: 'moonshot',
      status: 400,
      model: 'kimi-k3.1-pro',
    });
    expect(first.body.errors![0].message).toBe(
      "The moonshot service refused the request for model kimi-k3.1-pro (invalid_request_error): tool_choice 'specified' is incompatible with thinking enabled",
    );
    const learned = t.logs.json().filter((l) => String(l.msg).includes('which the gateway added'));
    expect(learned.map((l) => [l.msg, l.field, l.model])).toEqual([
      [
        'moonshot refused thinking, which the gateway added to a request for kimi-k3.1-pro; sent again without it, and learned for every replica ({"reasoning":"always"}, source LEARNED)',
        'thinking',
        'kimi-k3.1-pro',
      ],
    ]);

    const { body } = await t.query(MODELS);
    const model = body
      .data!.chatProviders.find((p: { id: string }) => p.id === 'moonshot')
      .modelDetails.find((m: { id: string }) => m.id === 'kimi-k3.1-pro');
    expect(model).toMatchObject({ reasoning: 'ALWAYS', factSources: { reasoning: 'LEARNED' } });

    // The next call: refused by the gateway itself, before any request, with what to change.
    t.clearUpstreamRequests();
    const second = await t.query(COMPLETION, { input: agent });
    expect(completions()).toHaveLength(0);
    expect(second.body.errors![0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', argument: 'input.toolChoice' });
    expect(second.body.errors![0].message).toBe(
      'moonshot refuses a toolChoice naming a tool while reasoning, and kimi-k3.1-pro always reasons; use toolChoice AUTO, or a model that can answer without reasoning.',
    );

    // With toolChoice AUTO it answers in one request, and no switch is sent.
    const auto = await t.query(COMPLETION, { input: { ...agent, toolChoice: { mode: 'AUTO' } } });
    expect(auto.body.errors).toBeUndefined();
    expect(sent().map((b) => 'thinking' in b)).toEqual([false]);
  });

  it('the same on a stream: two requests before its first event once, then none', async () => {
    t = await startTestGateway({ MOONSHOT_MODELS: 'kimi-k3.1-pro:reasoning=on' });
    const client = wsClient(t.gateway.wsUrl);
    try {
      const input = {
        provider: 'moonshot',
        model: 'kimi-k3.1-pro',
        tools: [WEATHER_TOOL],
        toolChoice: { name: 'get_weather' },
        messages: [user('Weather?')],
      };
      const first = await streamAll(client, input);
      expect(first.errors![0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', model: 'kimi-k3.1-pro' });
      expect(sent().map((b) => [b.stream, b.thinking ?? null])).toEqual([
        [true, { type: 'disabled' }],
        [true, null],
      ]);
      t.clearUpstreamRequests();
      const second = await streamAll(client, input);
      expect(second.errors![0].message).toContain('kimi-k3.1-pro always reasons');
      expect(completions()).toHaveLength(0);
    } finally {
      await client.dispose();
    }
  });

  it('learns nothing when the retry is refused the same way: a refusal that only happens to name the field teaches no replica', async () => {
    // A provider that refuses every chat request with the same words, which name `thinking` (as a caller's own text
    // echoed in an error might): the retry without the gateway's switch changes nothing, so the switch was not the cause.
    const bodies: Array<Record<string, unknown>> = [];
    const server = createServer((req, res) => {
      const parts: Buffer[] = [];
      req.on('data', (c: Buffer) => parts.push(c));
      req.on('end', () => {
        if (req.url!.endsWith('/models'))
          return void res
            .writeHead(200, { 'content-type': 'application/json' })
            .end(JSON.stringify({ object: 'list', data: [{ id: 'kimi-k2.6' }] }));
        bodies.push(JSON.parse(Buffer.concat(parts).toString('utf8')));
        res.writeHead(400, { 'content-type': 'application/json' }).end(
          JSON.stringify({
            error: {
              type: 'invalid_request_error',
              message: 'Invalid request: the content "about thinking" is not allowed',
            },
          }),
        );
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      t = await startTestGateway({
        MOONSHOT_BASE_URL: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
        MOONSHOT_API_KEY: 'test-key-0123456789',
      });
      const input = {
        provider: 'moonshot',
        model: 'kimi-k2.6',
        tools: [WEATHER_TOOL],
        toolChoice: { name: 'get_weather' },
        messages: [user('about thinking')],
      };
      const first = await t.query(COMPLETION, { input });
      expect(first.body.errors![0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', model: 'kimi-k2.6' });
      expect(bodies.map((b) => b.thinking ?? null)).toEqual([{ type: 'disabled' }, null]);
      expect(t.logs.json().filter((l) => String(l.msg).includes('which the gateway added'))).toEqual([]);
      // Still switchable: the next call sends the gateway's switch again.
      await t.query(COMPLETION, { input });
      expect(bodies.map((b) => b.thinking ?? null)).toEqual([{ type: 'disabled' }, null, { type: 'disabled' }, null]);
      const models = (await t.query(MODELS)).body.data!.chatProviders.find(
        (p: { id: string }) => p.id === 'moonshot',
      ).modelDetails;
      expect(models.find((m: { id: string }) => m.id === 'kimi-k2.6')).toMatchObject({
        reasoning: 'OPTIONAL_ON',
        factSources: { reasoning: 'CATALOGUE' },
      });
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it("a caller's own switch is never dropped: refused, it is the caller's BAD_USER_INPUT after one request, and nothing is learned", async () => {
    // An always-on model the operator calls switchable; the caller turns reasoning off itself.
    t = await startTestGateway({ MOONSHOT_MODELS: 'kimi-k3:reasoning=on' });
    const { body } = await t.query(COMPLETION, {
      input: { provider: 'moonshot', model: 'kimi-k3', reasoning: { enabled: false }, messages: [user('Hi')] },
    });
    expect(completions()).toHaveLength(1);
    expect(body.errors![0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', model: 'kimi-k3' });
    expect(body.errors![0].message).toContain('thinking cannot be disabled for model kimi-k3');
    const models = (await t.query(MODELS)).body.data!.chatProviders.find(
      (p: { id: string }) => p.id === 'moonshot',
    ).modelDetails;
    expect(models.find((m: { id: string }) => m.id === 'kimi-k3').factSources.reasoning).toBe('OPERATOR');
  });
});

describe("a model the catalogue does not know: the caller's request as asked, the provider decides", () => {
  it("sends no switch under a forced tool choice, passes images and effort through, and answers the provider's refusal as BAD_USER_INPUT naming the model", async () => {
    upstream = await startSandbox({ settings: { chatTokenDelayMs: 0 } });
    // Moonshot's base URL on the DeepSeek emulator: DeepSeek's models are unknown to Moonshot's catalogue.
    t = await startTestGateway({ MOONSHOT_BASE_URL: upstream.baseUrls.deepseek, MOONSHOT_API_KEY: 'sandbox' });
    const posted = () =>
      upstream!.record
        .list()
        .filter((r) => r.url.endsWith('/chat/completions'))
        .map((r) => JSON.parse(r.body));
    const details = (await t.query(MODELS)).body.data!.chatProviders.find((p: { id: string }) => p.id === 'moonshot')
      .modelDetails[0];
    expect(details).toMatchObject({ id: 'deepseek-flash', reasoning: null, reasoningEffort: null, vision: null });

    // Forced tool choice, reasoning left out: nothing added; the provider refuses it while reasoning.
    const forced = await t.query(COMPLETION, {
      input: {
        provider: 'moonshot',
        model: 'deepseek-flash',
        tools: [WEATHER_TOOL],
        toolChoice: { name: 'get_weather' },
        messages: [user('Weather?')],
      },
    });
    expect(posted()).toHaveLength(1);
    expect(posted()[0]).not.toHaveProperty('thinking');
    expect(forced.body.errors![0].extensions).toMatchObject({
      code: 'BAD_USER_INPUT',
      model: 'deepseek-flash',
      status: 400,
    });
    expect(forced.body.errors![0].message).toBe(
      'The moonshot service refused the request for model deepseek-flash (invalid_request_error): Thinking mode does not support this tool_choice',
    );

    // An image and an effort: sent as asked (Moonshot's spelling of HIGH), and answered.
    const image = 'data:image/png;base64,iVBORw0KGgo=';
    const seen = await t.query(COMPLETION, {
      input: {
        provider: 'moonshot',
        model: 'deepseek-flash',
        reasoning: { effort: 'HIGH' },
        messages: [
          {
            role: 'USER',
            parts: [
              { type: 'TEXT', text: 'What is this?' },
              { type: 'IMAGE_URL', imageUrl: image },
            ],
          },
        ],
      },
    });
    expect(seen.body.errors, JSON.stringify(seen.body.errors)).toBeUndefined();
    expect(posted()[1]).toMatchObject({
      reasoning_effort: 'high',
      messages: [{ content: [{ type: 'text' }, { type: 'image_url', image_url: { url: image } }] }],
    });
    expect(posted()[1]).not.toHaveProperty('thinking');
  });
});
