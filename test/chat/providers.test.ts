import { afterEach, describe, expect, it } from 'vitest';
import { SANDBOX_MODELS } from '../../src/sandbox/chat/index.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/server.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { wsClient } from '../support/ws.js';
import { COMPLETION, streamAll, text, user } from './support.js';

const PROVIDERS_QUERY = `{ chatProviders {
  id variant models live requestsPerMinute
  modelDetails { id upstreamModel vision contextWindow maxOutputTokens }
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
    expect(providers.map((p) => [p.id, p.variant, p.live, p.requestsPerMinute])).toEqual([
      ['glm', 'P', false, null],
      ['ark', 'Q', false, null],
      ['deepseek', 'R', false, 60],
      ['moonshot', 'S', false, null],
    ]);
    expect(providers[1].models).toEqual(['doubao-pro', 'doubao-lite', 'doubao-vision']);
    expect(providers[1].modelDetails[2]).toEqual({ id: 'doubao-vision', upstreamModel: 'ep-20250101-doubao-vision', vision: true, contextWindow: 32768, maxOutputTokens: 4096 });
    expect(providers[0].capabilities).toEqual({ streaming: true, tools: true, vision: true, contextWindow: 200000, temperatureMin: 0, temperatureMax: 1 });
    expect(providers[2].capabilities).toMatchObject({ vision: false, temperatureMax: 2 });
    expect(t.upstreamRequests()).toHaveLength(0);
  });

  it('offers only models the sandbox serves, with the same vision flag and context window', async () => {
    t = await startTestGateway();
    const { body } = await t.query(PROVIDERS_QUERY);
    for (const p of body.data!.chatProviders as Array<{ id: 'glm' | 'ark' | 'deepseek' | 'moonshot'; modelDetails: Array<Record<string, any>> }>) {
      for (const m of p.modelDetails) {
        const served = SANDBOX_MODELS[p.id].find((s) => s.id === m.upstreamModel);
        expect(served, `${p.id} ${m.id}`).toBeDefined();
        expect([m.id, m.vision, m.contextWindow]).toEqual([m.id, served!.vision === true, served!.contextWindow]);
      }
    }
  });

  it('maps Ark model names to the endpoints of ARK_ENDPOINTS, and marks Ark live', async () => {
    other = await startSandbox({ settings: { chatTokenDelayMs: 0 } });
    t = await startTestGateway({ ARK_BASE_URL: other.baseUrls.ark, ARK_API_KEY: 'sandbox', ARK_ENDPOINTS: 'my-model=ep-20250101-doubao-lite' });
    const { body } = await t.query(PROVIDERS_QUERY);
    const ark = (body.data!.chatProviders as Array<Record<string, any>>).find((p) => p.id === 'ark')!;
    expect(ark).toMatchObject({ live: true, models: ['my-model'] });
    const answer = await t.query(COMPLETION, { input: { provider: 'ark', model: 'my-model', messages: [user('Hi')] } });
    expect(answer.body.data!.createChatCompletion.model).toBe('my-model');
    expect(JSON.parse(other.record.list()[0].body).model).toBe('ep-20250101-doubao-lite');
  });

  it('adds an OpenAI-compatible provider from CHAT_PROVIDERS alone, streaming included', async () => {
    other = await startSandbox({ settings: { chatTokenDelayMs: 0 } });
    t = await startTestGateway({ CHAT_PROVIDERS: `kimi2=${other.baseUrls.moonshot}|moonshot-v1-8k moonshot-v1-32k`, KIMI2_API_KEY: 'sandbox', KIMI2_RPM: '30' });
    const { body } = await t.query(PROVIDERS_QUERY);
    const extra = (body.data!.chatProviders as Array<Record<string, any>>).find((p) => p.id === 'kimi2')!;
    expect(extra).toMatchObject({ variant: null, live: true, models: ['moonshot-v1-8k', 'moonshot-v1-32k'], requestsPerMinute: 30 });
    expect(extra.capabilities).toMatchObject({ streaming: true, tools: true, contextWindow: null });

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
