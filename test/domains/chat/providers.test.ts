import { afterEach, describe, expect, it } from 'vitest';
import { SANDBOX_MODELS } from '../../../src/sandbox/chat/index.js';
import { startSandbox, type Sandbox } from '../../../src/sandbox/server.js';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { wsClient } from '../../support/ws.js';
import { COMPLETION, streamAll, text, user } from '../../support/chat.js';

const PROVIDERS_QUERY = `{ chatProviders {
  id variant models live requestsPerMinute maxConcurrentRequests modelsListedAt
  modelDetails { id upstreamModel vision contextWindow maxOutputTokens reasoning reasoningEffort tools json source factSources { contextWindow reasoning vision } reference deprecatedOn retiresOn successor }
  capabilities { streaming tools vision contextWindow temperatureMin temperatureMax }
} }`;

let t: TestGateway | undefined;
let other: Sandbox | undefined;
afterEach(async () => {
  await t?.close();
  await other?.close();
  t = other = undefined;
});

describe('chatProviders', () => {
  it('lists the four built-in providers in sandbox mode with variant, models, limits and capabilities', async () => {
    t = await startTestGateway();
    const { body } = await t.query(PROVIDERS_QUERY);
    const providers = body.data!.chatProviders as Array<Record<string, any>>;
    // DeepSeek limits concurrency, not requests per minute: no RPM limiter, at most CHAT_PROVIDER_MAX_CONNECTIONS open.
    expect(
      providers.map((p) => [p.id, p.variant, p.live, p.requestsPerMinute, p.maxConcurrentRequests, p.modelsListedAt]),
    ).toEqual([
      ['glm', 'P', false, null, 256, null],
      ['ark', 'Q', false, null, 256, null],
      ['deepseek', 'R', false, null, 256, null],
      ['moonshot', 'S', false, null, 256, null],
    ]);
    expect(providers[1].models).toEqual([
      'doubao-pro',
      'doubao-lite',
      'doubao-vision',
      'doubao-seed-1-6-251015',
      'doubao-seed-2-0-lite-260428',
      'doubao-seed-2-0-pro-260215',
      'doubao-seed-2-0-lite-260215',
      'doubao-seed-2-0-mini-260215',
      'doubao-seed-2-0-code-preview-260215',
    ]);
    expect(providers[1].modelDetails[2]).toEqual({
      id: 'doubao-vision',
      upstreamModel: 'ep-20250101-doubao-vision',
      vision: true,
      contextWindow: 32768,
      maxOutputTokens: 16384,
      reasoning: 'OPTIONAL_OFF',
      reasoningEffort: true,
      tools: true,
      json: true,
      source: 'CATALOGUE',
      factSources: { contextWindow: 'CATALOGUE', reasoning: 'CATALOGUE', vision: 'CATALOGUE' },
      reference: expect.stringContaining("emulator's account"),
      deprecatedOn: null,
      retiresOn: null,
      successor: null,
    });
    expect(providers[2].models).toEqual(['deepseek-flash', 'deepseek-v4-pro']);
    expect(providers[2].modelDetails[0]).toMatchObject({
      contextWindow: 1048576,
      maxOutputTokens: 393216,
      reasoning: 'OPTIONAL_ON',
      vision: true,
      reference: expect.stringMatching(/^https:\/\/api-docs\.deepseek\.com\/.*\(read 2026-11-26\)/),
    });
    expect(providers[3].modelDetails.find((m: { id: string }) => m.id === 'kimi-k3')).toMatchObject({
      reasoning: 'ALWAYS',
      contextWindow: 1048576,
    });
    expect(providers[0].capabilities).toEqual({
      streaming: true,
      tools: true,
      vision: true,
      contextWindow: 1048576,
      temperatureMin: 0,
      temperatureMax: 1,
    });
    expect(providers[2].capabilities).toMatchObject({ vision: true, temperatureMax: 2, contextWindow: 1048576 });
    expect(t.upstreamRequests()).toHaveLength(0);
  });

  it('offers only models the sandbox serves, with the same vision flag, reasoning and (where known) context window', async () => {
    t = await startTestGateway();
    const { body } = await t.query(PROVIDERS_QUERY);
    const REASONING = { undefined: 'NONE', off: 'OPTIONAL_OFF', on: 'OPTIONAL_ON', always: 'ALWAYS' } as const;
    for (const p of body.data!.chatProviders as Array<{
      id: 'glm' | 'ark' | 'deepseek' | 'moonshot';
      modelDetails: Array<Record<string, any>>;
    }>) {
      for (const m of p.modelDetails) {
        const served = SANDBOX_MODELS[p.id].find((s) => s.id === m.upstreamModel);
        expect(served, `${p.id} ${m.id}`).toBeDefined();
        expect([m.id, m.reasoning]).toEqual([m.id, REASONING[String(served!.reasoning) as keyof typeof REASONING]]);
        // Where the catalogue does not know (null), images go to the provider as sent, and its answer decides.
        if (m.vision !== null) expect([m.id, m.vision]).toEqual([m.id, served!.vision === true]);
        if (m.contextWindow !== null) expect([m.id, m.contextWindow]).toEqual([m.id, served!.contextWindow]);
      }
    }
  });

  it('maps Ark model names to the endpoints of ARK_ENDPOINTS, and marks Ark live', async () => {
    other = await startSandbox({ settings: { chatTokenDelayMs: 0 } });
    t = await startTestGateway({
      ARK_BASE_URL: other.baseUrls.ark,
      ARK_API_KEY: 'sandbox',
      ARK_ENDPOINTS: 'my-model=ep-20250101-doubao-lite',
    });
    const { body } = await t.query(PROVIDERS_QUERY);
    const ark = (body.data!.chatProviders as Array<Record<string, any>>).find((p) => p.id === 'ark')!;
    // The name ARK_ENDPOINTS gives, then the model ids Ark's GET /models lists (its endpoint ids stay callable raw).
    expect(ark).toMatchObject({
      live: true,
      models: [
        'my-model',
        'doubao-seed-1-6-251015',
        'doubao-seed-2-0-lite-260428',
        'doubao-seed-2-0-pro-260215',
        'doubao-seed-2-0-lite-260215',
        'doubao-seed-2-0-mini-260215',
        'doubao-seed-2-0-code-preview-260215',
        'deepseek-v3-2-251201',
      ],
    });
    // Another vendor's model hosted on Ark: listed, not described, so its facts are unknown (and nothing is guessed).
    expect(ark.modelDetails.at(-1)).toMatchObject({
      id: 'deepseek-v3-2-251201',
      source: 'PROVIDER',
      reasoning: null,
      vision: null,
      reasoningEffort: null,
    });
    expect(ark.modelDetails[0]).toMatchObject({
      source: 'OPERATOR',
      reasoning: 'NONE',
      factSources: { reasoning: 'CATALOGUE' },
    });
    other.record.clear();
    const answer = await t.query(COMPLETION, { input: { provider: 'ark', model: 'my-model', messages: [user('Hi')] } });
    expect(answer.body.data!.createChatCompletion.model).toBe('my-model');
    expect(JSON.parse(other.record.list()[0].body).model).toBe('ep-20250101-doubao-lite');
  });

  it('adds an OpenAI-compatible provider from CHAT_PROVIDERS alone, streaming included', async () => {
    other = await startSandbox({ settings: { chatTokenDelayMs: 0 } });
    t = await startTestGateway({
      CHAT_PROVIDERS: `kimi2=${other.baseUrls.moonshot}|moonshot-v1-8k moonshot-v1-32k`,
      KIMI2_API_KEY: 'sandbox',
      KIMI2_RPM: '30',
    });
    const { body } = await t.query(PROVIDERS_QUERY);
    const extra = (body.data!.chatProviders as Array<Record<string, any>>).find((p) => p.id === 'kimi2')!;
    // The configured names first; then what its GET /models lists, with the facts the listing carries (Kimi's).
    expect(extra).toMatchObject({ variant: null, live: true, requestsPerMinute: 30 });
    expect(extra.models.slice(0, 2)).toEqual(['moonshot-v1-8k', 'moonshot-v1-32k']);
    expect(extra.models).toContain('kimi-k2.6');
    expect(extra.modelDetails[0]).toMatchObject({
      source: 'OPERATOR',
      contextWindow: 8192,
      factSources: { contextWindow: 'PROVIDER' },
    });
    other.record.clear();

    const input = { provider: 'kimi2', model: 'moonshot-v1-8k', messages: [user('Hello from configuration')] };
    const answer = await t.query(COMPLETION, { input });
    const client = wsClient(t.gateway.wsUrl);
    const streamed = await streamAll(client, input);
    await client.dispose();
    expect(text(streamed.chunks)).toBe(answer.body.data!.createChatCompletion.content);
    expect(streamed.chunks.at(-1)!.usage).toEqual(answer.body.data!.createChatCompletion.usage);
    expect(other.record.list().map((r) => [r.url, r.headers.authorization])).toEqual([
      ['/moonshot/v1/chat/completions', 'Bearer sandbox'],
      ['/moonshot/v1/chat/completions', 'Bearer sandbox'],
    ]);
  });
});
