import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadStartupConfig } from '../../../src/app/startupConfig.js';
import { modelsCheck } from '../../../src/build/models-check.js';
import { ConfigError, loadConfig } from '../../../src/config/env.js';
import { startSandbox, type Sandbox } from '../../../src/sandbox/server.js';
import { SANDBOX_MODELS } from '../../../src/sandbox/chat/models.js';
import { layCatalogues } from '../../../src/upstreams/chat/catalogue.js';
import { parseCatalogue, successorProblems } from '../../../src/upstreams/chat/models/catalogueFile.js';
import { providerSpec } from '../../../src/upstreams/chat/registry.js';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { collect, wsClient } from '../../support/ws.js';
import { COMPLETION, STREAM, eventually, user } from '../../support/chat.js';

const BUILT_IN = loadConfig({}).chat.map(providerSpec);
const MODELS = `{ chatProviders { id modelDetails { id contextWindow deprecatedOn retiresOn successor reference factSources { contextWindow } } } }`;

let t: TestGateway | undefined;
let upstream: Sandbox | undefined;
afterEach(async () => {
  await t?.close();
  await upstream?.close();
  t = upstream = undefined;
});

function file(name: string, text: string): string {
  const path = join(mkdtempSync(join(tmpdir(), 'catalogue-')), name);
  writeFileSync(path, text);
  return path;
}

let asked = 0;
/** One model's details; each call a new document, so that the response cache (chatProviders keeps 60 s) does not answer. */
const detailsOf = async (provider: string, model: string) => {
  const alias = `p${asked++}`;
  const { body } = await t!.query(MODELS.replace('chatProviders', `${alias}: chatProviders`));
  return body
    .data![alias].find((p: { id: string }) => p.id === provider)
    .modelDetails.find((m: { id: string }) => m.id === model);
};

describe('the built-in catalogue', () => {
  it('names no successor that is missing or itself retiring, and a source for every model', () => {
    for (const spec of BUILT_IN) {
      expect(successorProblems(spec.id, spec.catalogue), spec.id).toEqual([]);
      for (const m of spec.catalogue.models) expect(m.source.length, `${spec.id} ${m.id}`).toBeGreaterThan(20);
    }
  });

  it('takes Ark Model IDs of every vendor as they are, and no name without a version date', () => {
    const ark = BUILT_IN.find((s) => s.id === 'ark')!;
    for (const id of [
      'deepseek-v3-2-251201',
      'glm-4-7-251222',
      'kimi-k2-thinking-251104',
      'seed-2-0-lite-260228',
      'doubao-seed-1-6-251015',
      'ep-20250101-abc',
    ])
      expect([id, ark.acceptsRawModel!(id)]).toEqual([id, true]);
    for (const id of ['gpt-4o', 'deepseek-v3-2', 'Doubao-Seed-251201', '../ep-1', 'x-251201 '])
      expect([id, ark.acceptsRawModel!(id)]).toEqual([id, false]);
  });

  it('serves every catalogue model in the sandbox, under its id or an alias', () => {
    for (const spec of BUILT_IN) {
      const served = SANDBOX_MODELS[spec.id as keyof typeof SANDBOX_MODELS];
      for (const m of spec.catalogue.models)
        expect(
          served.some((s) => s.id === m.id),
          `${spec.id} ${m.id}`,
        ).toBe(true);
    }
  });
});

describe('CHAT_MODEL_CATALOGUE_FILE', () => {
  it('lays a YAML file over the catalogue at start-up, and reads it again every CHAT_MODELS_REFRESH_MS', async () => {
    const path = file(
      'models.yaml',
      'glm:\n  models:\n    - { id: glm-5.1, contextWindow: 200000, source: "docs.z.ai GLM-5.1 overview (read 2026-11-28)" }\n',
    );
    t = await startTestGateway({ CHAT_MODEL_CATALOGUE_FILE: path, CHAT_MODELS_REFRESH_MS: '50' });
    expect(await detailsOf('glm', 'glm-5.1')).toMatchObject({
      contextWindow: 200000,
      reference: 'docs.z.ai GLM-5.1 overview (read 2026-11-28)',
      factSources: { contextWindow: 'CATALOGUE' },
    });

    // JSON is YAML too; the change is offered from the next read on.
    writeFileSync(path, JSON.stringify({ glm: { models: [{ id: 'glm-5.1', contextWindow: 180000 }] } }));
    expect(
      await eventually(async () => (await detailsOf('glm', 'glm-5.1')).contextWindow === 180000, 5_000),
      JSON.stringify(t.logs.json().filter((l) => String(l.msg).includes('CATALOGUE'))),
    ).toBe(true);
    expect((await detailsOf('glm', 'glm-5.1')).reference).toContain('changed by CHAT_MODEL_CATALOGUE_FILE');

    // A bad file is logged, and the last good one stays.
    writeFileSync(path, 'glm:\n  models:\n    - { id: glm-5.1, contextWindow: -5 }\n');
    expect(
      await eventually(() => t!.logs.json().some((l) => String(l.msg).includes('contextWindow is -5')), 5_000),
    ).toBe(true);
    expect((await detailsOf('glm', 'glm-5.1')).contextWindow).toBe(180000);
  });

  it('refuses to start on a file that does not parse, naming the value and the fix', async () => {
    const cases: Array<[string, string]> = [
      [
        'glm:\n  models:\n    - { id: glm-5.1, contextWindow: lots }\n',
        'glm.models[0].contextWindow is "lots"; it must be a whole number of tokens ≥ 1',
      ],
      [
        'glm:\n  models:\n    - { id: glm-5.1, window: 5 }\n',
        'glm.models[0] has the unknown field "window"; fields are id, aliases',
      ],
      [
        'openai:\n  models: []\n',
        'it names the provider "openai", which is not configured; providers are glm, ark, deepseek, moonshot',
      ],
      [
        'moonshot:\n  models:\n    - { id: kimi-k3, deprecatedOn: 2026-01-01 }\n',
        'moonshot model kimi-k2.6 names the successor kimi-k3, which is itself deprecated (from 2026-01-01)',
      ],
      ['glm: [unclosed', 'it is neither JSON nor YAML'],
    ];
    for (const [text, message] of cases) {
      const path = file('bad.yaml', text);
      const error = await loadStartupConfig({ HOST: '127.0.0.1', CHAT_MODEL_CATALOGUE_FILE: path }).catch(
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(ConfigError);
      const problem = (error as ConfigError).problems.find((p) => p.variable === 'CHAT_MODEL_CATALOGUE_FILE');
      expect(problem?.message, text).toContain(`CHAT_MODEL_CATALOGUE_FILE ${path}: ${message}`);
    }
    const missing = await loadStartupConfig({
      HOST: '127.0.0.1',
      CHAT_MODEL_CATALOGUE_FILE: '/nonexistent/models.yaml',
    }).catch((e: unknown) => e);
    expect((missing as ConfigError).problems[0].message).toBe(
      'CHAT_MODEL_CATALOGUE_FILE /nonexistent/models.yaml cannot be read (ENOENT)',
    );
  });

  it('takes no YAML tags or alias bombs as data', () => {
    expect(() => parseCatalogue('glm: !!js/function "function () {}"', ['glm'])).toThrow(
      /^it is neither JSON nor YAML \(Unresolved tag: tag:yaml.org,2002:js\/function/,
    );
    const bomb = `a: &a [x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: [*c, *c, *c, *c, *c, *c, *c, *c, *c]\n`;
    expect(() => parseCatalogue(bomb, ['glm'])).toThrow();
    expect(() => parseCatalogue('__proto__: { models: [] }', ['glm'])).toThrow(/not configured/);
  });

  it('retires a model by file: refused before any request, naming the successor', async () => {
    const path = file(
      'models.json',
      JSON.stringify({ glm: { retired: [{ id: 'glm-4-plus', successor: 'glm-5.2', since: '2026-12-01' }] } }),
    );
    expect(
      layCatalogues(path, BUILT_IN)
        .catalogues.get('glm')!
        .models.some((m) => m.id === 'glm-4-plus'),
    ).toBe(false);
    t = await startTestGateway({ CHAT_MODEL_CATALOGUE_FILE: path });
    const { body } = await t.query(COMPLETION, {
      input: { provider: 'glm', model: 'glm-4-plus', messages: [user('Hi')] },
    });
    expect(body.errors![0].message).toBe('glm retired model "glm-4-plus" on 2026-12-01; use glm-5.2 instead.');
    expect(t.upstreamRequests()).toHaveLength(0);
  });
});

describe('deprecations are announced before they bite', () => {
  it('a completion on a deprecated model carries extensions.warnings MODEL_RETIRING, whole and streamed, with one log line', async () => {
    t = await startTestGateway();
    expect(await detailsOf('moonshot', 'kimi-k2.6')).toMatchObject({
      deprecatedOn: '2026-10-31',
      retiresOn: '2026-12-31',
      successor: 'kimi-k3',
    });
    const input = { provider: 'moonshot', model: 'kimi-k2.6', messages: [user('Hi')] };
    const warning = {
      code: 'MODEL_RETIRING',
      message:
        'moonshot model kimi-k2.6 is deprecated since 2026-10-31 and retires on 2026-12-31; move to moonshot model kimi-k3.',
    };
    for (let i = 0; i < 2; i++) {
      const { body } = await t.query(COMPLETION, { input });
      expect(body.errors).toBeUndefined();
      expect((body.extensions as Record<string, unknown>).warnings).toEqual([warning]);
    }
    const client = wsClient(t.gateway.wsUrl);
    try {
      const { results } = await collect(client, STREAM, { input });
      // On the first event only.
      expect(results.map((r) => (r.extensions as Record<string, unknown> | undefined)?.warnings ?? null)).toEqual([
        [warning],
        ...results.slice(1).map(() => null),
      ]);
    } finally {
      await client.dispose();
    }
    // A model that is not deprecated: no warning.
    const { body } = await t.query(COMPLETION, { input: { ...input, model: 'kimi-k3' } });
    expect((body.extensions as Record<string, unknown>).warnings).toBeUndefined();
    // Three completions on it, one log line (at most one an hour per model).
    expect(
      t.logs.json().filter((l) => String(l.msg).startsWith('moonshot model kimi-k2.6 is deprecated')),
    ).toHaveLength(1);
  });
});

describe('npm run models:check', () => {
  it('prints, per live provider, what its GET /models lists that the catalogue does not, and the reverse', async () => {
    upstream = await startSandbox({ settings: { chatTokenDelayMs: 0 } });
    // The file describes a GLM model the service does not list.
    const path = file(
      'models.yaml',
      'glm:\n  models:\n    - { id: glm-6, contextWindow: 2000000, reasoning: always }\n',
    );
    const config = loadConfig({
      CHAT_MODEL_CATALOGUE_FILE: path,
      ...Object.fromEntries(
        (['glm', 'ark', 'moonshot'] as const).flatMap((p) => [
          [`${p.toUpperCase()}_BASE_URL`, upstream!.baseUrls[p]],
          [`${p.toUpperCase()}_API_KEY`, 'sandbox'],
        ]),
      ),
    });
    const { lines, ok } = await modelsCheck(config);
    expect(ok).toBe(true);
    expect(lines).toEqual([
      `glm: ${SANDBOX_MODELS.glm.length} models listed by GET /models`,
      '  new (listed, not in the catalogue): none',
      '  missing (in the catalogue, not listed): glm-6',
      '  retired (retired in the catalogue, still listed): none',
      '  retiring (deprecated in the catalogue): none',
      `ark: ${SANDBOX_MODELS.ark.length} models listed by GET /models`,
      '  new (listed, not in the catalogue): deepseek-v3-2-251201',
      '  missing (in the catalogue, not listed): none',
      '  retired (retired in the catalogue, still listed): none',
      '  retiring (deprecated in the catalogue): none',
      'deepseek: sandbox mode (no DEEPSEEK_API_KEY), skipped',
      `moonshot: ${SANDBOX_MODELS.moonshot.length} models listed by GET /models`,
      '  new (listed, not in the catalogue): none',
      '  missing (in the catalogue, not listed): none',
      '  retired (retired in the catalogue, still listed): none',
      '  retiring (deprecated in the catalogue): kimi-k2.6 (deprecated 2026-10-31, retires 2026-12-31, successor kimi-k3), kimi-k2.5 (deprecated 2026-10-31, retires 2026-12-31, successor kimi-k3), kimi-k2.7-code (deprecated 2026-10-31, retires 2026-12-31, successor kimi-k3), kimi-k2.7-code-highspeed (deprecated 2026-10-31, retires 2026-12-31, successor kimi-k3)',
    ]);
  });

  it('says which provider could not be read, without its key, and fails', async () => {
    upstream = await startSandbox({ settings: { chatTokenDelayMs: 0 } });
    const { lines, ok } = await modelsCheck(
      loadConfig({ DEEPSEEK_BASE_URL: upstream.baseUrls.deepseek, DEEPSEEK_API_KEY: 'sk-wrong-key-123456' }),
    );
    expect(ok).toBe(false);
    const line = lines.find((l) => l.startsWith('deepseek'))!;
    expect(line).toMatch(/^deepseek: GET http:\/\/127\.0\.0\.1:\d+\/deepseek\/v1\/models failed \(HTTP 401: /);
    expect(line).not.toContain('sk-wrong-key-123456');
  });
});
