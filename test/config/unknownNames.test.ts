import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { closestName, knownNames, unknownNames } from '../../src/config/unknownNames.js';
import { VARIABLES } from '../../src/config/variables.js';
import { spawnGateway } from '../support/process.js';

/** A folder holding `.env` with `text`, for `npm start` to read. */
function folderWithDotenv(text: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'dotenv-names-'));
  writeFileSync(join(dir, '.env'), text);
  return dir;
}

const stop = async (p: ReturnType<typeof spawnGateway>) => {
  p.child.kill('SIGTERM');
  await p.exited;
};

const warnings = (lines: readonly string[]) =>
  lines
    .map((l) => JSON.parse(l) as { level: string; msg: string; variable?: string; closest?: string })
    .filter((l) => l.level === 'warn' && l.variable);

describe('the closest known name', () => {
  const { names } = knownNames([]);
  it.each([
    ['DEEPSEEK_KEY', 'DEEPSEEK_API_KEY'],
    ['CORS_ORIGIN', 'CORS_ORIGINS'],
    ['GLM_APIKEY', 'GLM_API_KEY'],
    ['OMDB_KEY', 'OMDB_API_KEY'],
    ['GRAPH_CLIENTID', 'GRAPH_CLIENT_ID'],
    ['GRAPH_SECRET', 'GRAPH_CLIENT_SECRET'],
    ['REDIS_URI', 'REDIS_URL'],
    ['MOONSHOT_BASEURL', 'MOONSHOT_BASE_URL'],
    ['GATEWAY_API_KEY', 'GATEWAY_API_KEYS'],
    ['CLIENT_MAX_CONNECTION', 'CLIENT_MAX_CONNECTIONS'],
    ['SANDBOX_TOKEN_DELAY', 'SANDBOX_TOKEN_DELAY_MS'],
    ['TRUSTED_PROXY', 'TRUSTED_PROXIES'],
    ['SUBGRAPH_PREFIX', 'SUBGRAPH_TYPE_PREFIX'],
    ['DEEPSEEK_API_TOKEN', 'DEEPSEEK_API_KEY'],
    ['CHAT_DOCUMENTS_MAX_BYTES', 'CHAT_DOCUMENT_MAX_BYTES'],
    ['ARK_ENDPOINT', 'ARK_ENDPOINTS'],
    ['MOONSHOT_MODEL', 'MOONSHOT_MODELS'],
  ])('%s is taken for %s', (typo, meant) => {
    expect(closestName(typo, [...names], typo.split('_')[0])).toBe(meant);
  });

  it("outside an owned prefix, names only a variable within one word's change, else none", () => {
    expect(closestName('LOG_LEVL', [...names])).toBe('LOG_LEVEL');
    expect(closestName('PORTT', [...names])).toBe('PORT');
    expect(closestName('NODE_OPTIONS', [...names])).toBeUndefined();
    expect(closestName('COMPOSE_PROJECT_NAME', [...names])).toBeUndefined();
  });
});

describe('unknown names', () => {
  it("knows every variable, the per-provider names of built-in and configured providers, and the other commands' names", () => {
    const env = {
      ...Object.fromEntries(Object.keys(VARIABLES).map((n) => [n, 'x'])),
      GLM_API_KEY: 'k',
      ARK_MODELS: 'm',
      DEEPSEEK_CONTEXT_WINDOWS: 'w',
      MOONSHOT_DAILY_TOKEN_BUDGET: '1',
      LOCAL_RPM: '5',
      SANDBOX_PORT: '4010',
      GATEWAY_URL: 'http://127.0.0.1:4000/graphql',
    };
    expect(unknownNames(env, Object.keys(env), ['local'])).toEqual([]);
  });

  it('checks every name of .env, but of the environment only those with a prefix the project owns', () => {
    const env = {
      HTTP_PROXY: 'http://proxy',
      NODE_OPTIONS: '--x',
      OTEL_SERVICE_NAME: 'gw',
      npm_config_cache: '/tmp',
      cors_origin: 'lower case: not ours',
      CORS_ORIGIN: 'https://a.example',
      LOCAL_APIKEY: "configured provider ids are the operator's words",
      // Kubernetes' service links for services named redis and gateway.
      REDIS_SERVICE_HOST: '10.0.0.5',
      REDIS_PORT_6379_TCP_ADDR: '10.0.0.5',
      GATEWAY_PORT: 'tcp://10.0.0.7:4000',
      GATEWAY_SERVICE_PORT_HTTP: '4000',
    };
    expect(unknownNames(env, ['DEEPSEEK_KEY', 'COMPOSE_PROJECT_NAME', 'deepseek_api_key'], ['local'])).toEqual([
      { name: 'COMPOSE_PROJECT_NAME', source: '.env', closest: undefined, ownedPrefix: false },
      { name: 'DEEPSEEK_KEY', source: '.env', closest: 'DEEPSEEK_API_KEY', ownedPrefix: true },
      { name: 'deepseek_api_key', source: '.env', closest: 'DEEPSEEK_API_KEY', ownedPrefix: true },
      { name: 'CORS_ORIGIN', source: 'environment', closest: 'CORS_ORIGINS', ownedPrefix: true },
    ]);
  });
});

describe('a hostile .env', () => {
  it('a name of 100,000 letters is reported without a letter-by-letter comparison', () => {
    const long = `GRAPH_${'X'.repeat(100_000)}`;
    expect(unknownNames({}, [long], [])).toEqual([
      { name: long, source: '.env', closest: undefined, ownedPrefix: true },
    ]);
  });
});

describe('npm start with names it does not read', () => {
  it('warns once per name, naming the variable meant, and starts', async () => {
    const dir = folderWithDotenv(
      'DEEPSEEK_KEY=sk-123456\nCORS_ORIGIN=http://127.0.0.1:5173\nCOMPOSE_PROJECT_NAME=gw\nOMDB_DAILY_QUOTA=7\n',
    );
    const p = spawnGateway(
      {
        LOG_FORMAT: 'json',
        MOONSHOT_APIKEY: 'sk-abcdef',
        CORS_ORIGIN: 'http://overridden.example',
        HTTP_PROXY: 'http://proxy.invalid',
      },
      30_000,
      dir,
    );
    await p.origin;
    expect(warnings(p.stdout).map((w) => w.msg)).toEqual([
      'COMPOSE_PROJECT_NAME is set in .env but is not a variable the gateway reads: remove it (docs/configuration.md lists every variable)',
      'CORS_ORIGIN is set in .env but is not a variable the gateway reads: did you mean CORS_ORIGINS? Rename it (docs/configuration.md lists every variable)',
      'DEEPSEEK_KEY is set in .env but is not a variable the gateway reads: did you mean DEEPSEEK_API_KEY? Rename it (docs/configuration.md lists every variable)',
      'MOONSHOT_APIKEY is set in the environment but is not a variable the gateway reads: did you mean MOONSHOT_API_KEY? Rename it (docs/configuration.md lists every variable)',
    ]);
    expect(warnings(p.stdout)[2]).toMatchObject({ variable: 'DEEPSEEK_KEY', closest: 'DEEPSEEK_API_KEY' });
    // Neither the value nor the key it may be leaks into the log.
    expect(p.stdout.join('\n')).not.toContain('sk-123456');
    expect(p.stdout.join('\n')).not.toContain('sk-abcdef');
    await stop(p);
  });

  it('under NODE_ENV=production a misspelt name in .env stops start-up with one line each; a name of the environment, or one far from every variable, is still only warned of', async () => {
    const dir = folderWithDotenv(
      'DEEPSEEK_KEY=sk-123456\nCORS_ORIGIN=https://app.example.com\nCOMPOSE_PROJECT_NAME=gw\n',
    );
    const refused = spawnGateway({ NODE_ENV: 'production' }, 30_000, dir);
    refused.origin.catch(() => undefined);
    expect(await refused.exited).toBe(2);
    expect(refused.stderr).toEqual([
      'configuration error: CORS_ORIGIN: is set in .env but is not a variable the gateway reads: did you mean CORS_ORIGINS? Rename it (docs/configuration.md lists every variable)',
      'configuration error: DEEPSEEK_KEY: is set in .env but is not a variable the gateway reads: did you mean DEEPSEEK_API_KEY? Rename it (docs/configuration.md lists every variable)',
    ]);

    const started = spawnGateway(
      { NODE_ENV: 'production', LOG_FORMAT: 'json', CORS_ORIGIN: 'https://app.example.com' },
      30_000,
      folderWithDotenv('COMPOSE_PROJECT_NAME=gw\n'),
    );
    await started.origin;
    expect(warnings(started.stdout).map((w) => [w.variable, w.closest])).toEqual([
      ['COMPOSE_PROJECT_NAME', undefined],
      ['CORS_ORIGIN', 'CORS_ORIGINS'],
    ]);
    await stop(started);
  });
});
