import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../../src/config/env.js';
import { startSandbox, type Sandbox } from '../../../../src/sandbox/server.js';
import { startTestGateway, type TestGateway } from '../../../support/gateway.js';
import { COMPLETION, eventually, user } from '../../../support/chat.js';

const MODELS = `{ chatProviders { id models modelsListedAt
  modelDetails { id contextWindow maxOutputTokens reasoning vision json source factSources { contextWindow maxOutputTokens reasoning vision } } } }`;

let t: TestGateway | undefined;
let upstream: Sandbox | undefined;
afterEach(async () => {
  await t?.close();
  await upstream?.close();
  t = upstream = undefined;
});

/** A gateway whose DeepSeek and Kimi are "live" against a separate sandbox, which then plays the real services. */
async function live(env: Record<string, string> = {}) {
  upstream = await startSandbox({ settings: { chatTokenDelayMs: 0 } });
  t = await startTestGateway({
    DEEPSEEK_BASE_URL: upstream.baseUrls.deepseek,
    DEEPSEEK_API_KEY: 'sandbox',
    MOONSHOT_BASE_URL: upstream.baseUrls.moonshot,
    MOONSHOT_API_KEY: 'sandbox',
    ...env,
  });
  const { body } = await t.query(MODELS);
  const byId = Object.fromEntries((body.data!.chatProviders as Array<Record<string, any>>).map((p) => [p.id, p]));
  return { deepseek: byId.deepseek, moonshot: byId.moonshot, glm: byId.glm };
}

const modelsRequests = () => upstream!.record.list().filter((r) => r.method === 'GET' && r.url.endsWith('/models'));

describe('models come from the services', () => {
  it("reads each live provider's GET /models once at start-up and offers what it lists, with the facts it carries", async () => {
    const { deepseek, moonshot, glm } = await live();
    expect(modelsRequests().map((r) => [r.upstream, r.url])).toEqual([
      ['deepseek', '/deepseek/v1/models'],
      ['moonshot', '/moonshot/v1/models'],
    ]);
    expect(deepseek.models).toEqual(['deepseek-flash', 'deepseek-v4-pro']);
    expect(deepseek.modelsListedAt).toMatch(/^\d{4}-\d\d-\d\dT/);
    // Listed by the provider; its facts from the catalogue.
    expect(deepseek.modelDetails[0]).toMatchObject({
      source: 'PROVIDER',
      contextWindow: 1048576,
      factSources: { contextWindow: 'CATALOGUE', reasoning: 'CATALOGUE' },
    });
    // Kimi's list carries the window and images itself: those facts are the provider's.
    expect(moonshot.modelDetails.find((m: { id: string }) => m.id === 'kimi-k2.6')).toMatchObject({
      source: 'PROVIDER',
      contextWindow: 262144,
      vision: true,
      factSources: { contextWindow: 'PROVIDER', vision: 'PROVIDER', reasoning: 'CATALOGUE' },
    });
    // A provider left in sandbox mode keeps the catalogue, and nothing is asked of it.
    expect(glm.modelsListedAt).toBeNull();
    expect(glm.modelDetails[0].source).toBe('CATALOGUE');
  });

  it('offers a listed model the catalogue does not know with its facts unknown (none guessed), and says so once in the log', async () => {
    upstream = await startSandbox({ settings: { chatTokenDelayMs: 0 } });
    // Moonshot pointed at the DeepSeek emulator: its list names models Moonshot's catalogue knows nothing of.
    t = await startTestGateway({
      MOONSHOT_BASE_URL: upstream.baseUrls.deepseek,
      MOONSHOT_API_KEY: 'sandbox',
      CHAT_MODELS_REFRESH_MS: '50',
    });
    const { body } = await t.query(MODELS);
    const moonshot = (body.data!.chatProviders as Array<Record<string, any>>).find((p) => p.id === 'moonshot')!;
    expect(moonshot.models).toEqual(['deepseek-flash', 'deepseek-v4-pro']);
    expect(moonshot.modelDetails[0]).toEqual({
      id: 'deepseek-flash',
      contextWindow: null,
      maxOutputTokens: null,
      reasoning: null,
      vision: null,
      json: true,
      source: 'PROVIDER',
      factSources: { contextWindow: null, maxOutputTokens: null, reasoning: null, vision: null },
    });
    expect(await eventually(() => modelsRequests().length >= 3, 5_000)).toBe(true);
    const lines = t.logs.json().filter((l) => String(l.msg).includes('which the model catalogue does not describe'));
    expect(lines.map((l) => l.msg)).toEqual([
      'moonshot offers deepseek-flash, deepseek-v4-pro, which the model catalogue does not describe: offered with their window, images, reasoning and effort unknown (what the caller asks goes to moonshot as asked); describe them with MOONSHOT_MODELS or CHAT_MODEL_CATALOGUE_FILE',
    ]);
  });

  it('takes <ID>_MODELS to add and correct models, offered even when the provider does not list them', async () => {
    const { deepseek } = await live({
      DEEPSEEK_MODELS:
        'deepseek-flash:context=500000,deepseek-v5-preview:context=2000000;output=400000;reasoning=always;vision=false',
    });
    expect(deepseek.models).toEqual(['deepseek-flash', 'deepseek-v4-pro', 'deepseek-v5-preview']);
    expect(deepseek.modelDetails[0]).toMatchObject({
      contextWindow: 500000,
      factSources: { contextWindow: 'OPERATOR', maxOutputTokens: 'CATALOGUE' },
    });
    expect(deepseek.modelDetails[2]).toMatchObject({
      source: 'OPERATOR',
      contextWindow: 2000000,
      maxOutputTokens: 400000,
      reasoning: 'ALWAYS',
      factSources: { contextWindow: 'OPERATOR', reasoning: 'OPERATOR' },
    });
    // Offered means callable: the provider decides the rest (this one does not exist upstream: its own 400).
    const { body } = await t!.query(COMPLETION, {
      input: { provider: 'deepseek', model: 'deepseek-v5-preview', messages: [user('Hi')] },
    });
    expect(body.errors![0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', upstream: 'deepseek', status: 400 });
  });

  it('refuses a bad <ID>_MODELS at start with one line naming the variable', () => {
    expect(() => loadConfig({ DEEPSEEK_MODELS: 'deepseek-flash:context=big' })).toThrow(
      /^DEEPSEEK_MODELS: context of "deepseek-flash" must be a whole number of tokens ≥ 1, got "deepseek-flash:context=big"$/,
    );
    expect(() => loadConfig({ MOONSHOT_MODELS: 'kimi-k2.6:speed=fast' })).toThrow(
      /MOONSHOT_MODELS: unknown key "speed"; keys are context, output, reasoning, vision, tools, json/,
    );
    expect(() => loadConfig({ GLM_MODELS: 'glm-5:reasoning=sometimes' })).toThrow(
      /GLM_MODELS: reasoning must be none, off/,
    );
  });

  it('refuses a retired name before any request, naming its successor, unless the provider still lists it', async () => {
    await live();
    upstream!.record.clear();
    const { body } = await t!.query(COMPLETION, {
      input: { provider: 'deepseek', model: 'deepseek-reasoner', messages: [user('Hi')] },
    });
    expect(body.errors![0]).toMatchObject({
      message:
        'deepseek retired model "deepseek-reasoner" on 2026-07-24; use deepseek-flash instead, reasoning is on by default there.',
      extensions: { code: 'BAD_USER_INPUT' },
    });
    expect(upstream!.record.list()).toHaveLength(0);
    // The legacy deepseek-v4-flash is still served, by deepseek-flash.
    const legacy = await t!.query(COMPLETION, {
      input: { provider: 'deepseek', model: 'deepseek-v4-flash', messages: [user('Which name is this?')] },
    });
    expect(legacy.body.errors).toBeUndefined();
  });

  it('reads the lists again every CHAT_MODELS_REFRESH_MS, and keeps offering the last list when a read fails', async () => {
    await live({ CHAT_MODELS_REFRESH_MS: '50' });
    expect(await eventually(() => modelsRequests().filter((r) => r.upstream === 'deepseek').length >= 3, 5_000)).toBe(
      true,
    );
    upstream!.faults.push({ upstream: 'deepseek', times: 1000, status: 500 });
    const before = modelsRequests().length;
    expect(await eventually(() => modelsRequests().length >= before + 2, 5_000)).toBe(true);
    const { body } = await t!.query(MODELS);
    const deepseek = (body.data!.chatProviders as Array<Record<string, any>>).find((p) => p.id === 'deepseek')!;
    expect(deepseek.models).toEqual(['deepseek-flash', 'deepseek-v4-pro']);
    expect(
      t!.logs
        .json()
        .some((l) => l.provider === 'deepseek' && /GET \/models failed; offering its last list/.test(String(l.msg))),
    ).toBe(true);
  });

  it('starts with the catalogue, and says so, when a provider does not answer GET /models', async () => {
    upstream = await startSandbox({ settings: { chatTokenDelayMs: 0 } });
    upstream.faults.push({ upstream: 'deepseek', times: 1, status: 503 });
    t = await startTestGateway({ DEEPSEEK_BASE_URL: upstream.baseUrls.deepseek, DEEPSEEK_API_KEY: 'sandbox' });
    const { body } = await t.query(MODELS);
    const deepseek = (body.data!.chatProviders as Array<Record<string, any>>).find((p) => p.id === 'deepseek')!;
    expect([deepseek.modelsListedAt, deepseek.modelDetails.map((m: { source: string }) => m.source)]).toEqual([
      null,
      ['CATALOGUE', 'CATALOGUE'],
    ]);
    expect(
      t.logs
        .json()
        .some((l) => l.provider === 'deepseek' && /GET \/models failed; offering the catalogue/.test(String(l.msg))),
    ).toBe(true);
  });
});
