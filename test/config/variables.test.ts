import { readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CONFIGURATION_GUIDE, renderEnvExample, withTable } from '../../src/config/docs.js';
import { ConfigError, loadConfig } from '../../src/config/env.js';
import { PROVIDER_VARIABLES, VARIABLES } from '../../src/config/variables.js';
import { freePort } from '../../src/bench/lib/proc.js';
import { spawnGateway } from '../support/process.js';

const root = new URL('../../', import.meta.url);
const problemsOf = (env: Record<string, string>) => {
  try {
    loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems.map((p) => `${p.variable}: ${p.message}`);
    throw error;
  }
  return [];
};

describe('the variable schema', () => {
  it("is what the configuration guide's table and .env.example say (npm run config:docs writes both)", () => {
    const guide = readFileSync(new URL(CONFIGURATION_GUIDE, root), 'utf8');
    expect(withTable(guide)).toBe(guide);
    expect(readFileSync(new URL('.env.example', root), 'utf8')).toBe(renderEnvExample());
    for (const name of Object.keys(VARIABLES)) expect(guide).toContain(`| \`${name}\` |`);
  });

  it('holds every variable loadConfig reads', () => {
    const read = new Set<string>();
    const env = new Proxy({ CHAT_PROVIDERS: 'local=http://127.0.0.1:9/v1|m' } as Record<string, string>, {
      get: (target, name: string) => (read.add(name), target[name]),
    });
    loadConfig(env);
    const families = Object.keys(PROVIDER_VARIABLES).map((suffix) => new RegExp(`^[A-Z][A-Z0-9_]*_${suffix}$`));
    expect([...read].filter((name) => !(name in VARIABLES) && !families.some((f) => f.test(name)))).toEqual([]);
    expect(Object.keys(VARIABLES).filter((name) => !read.has(name))).toEqual([]);
  });
});

/** MCP_AUTH=jwt and the three variables it needs. */
const MCP_JWT = {
  MCP_AUTH: 'jwt',
  MCP_JWT_JWKS_URL: 'http://127.0.0.1:9/jwks.json',
  MCP_JWT_ISSUER: 'https://login.example/',
  MCP_JWT_AUDIENCE: 'https://gateway.example/mcp',
};

/** Routers told of changes: the endpoints need the shared key. */
const ROUTERS = {
  ROUTER_INVALIDATION_URLS: 'http://127.0.0.1:9/invalidation',
  ROUTER_INVALIDATION_SECRET: 'a-shared-key-of-16-chars',
};

/** A valid value other than the default, for each kind of variable; some need a companion to take effect. */
function sample(name: string, type: string, fallback: string | undefined): Record<string, string> {
  const special: Record<string, Record<string, string>> = {
    HOST: { HOST: 'localhost' },
    // Application permissions take all three (one alone is a configuration set half-way).
    GRAPH_TENANT_ID: { GRAPH_TENANT_ID: 't', GRAPH_CLIENT_ID: 'c', GRAPH_CLIENT_SECRET: 'secret-1234' },
    GRAPH_CLIENT_ID: { GRAPH_CLIENT_ID: 'c', GRAPH_TENANT_ID: 't', GRAPH_CLIENT_SECRET: 'secret-1234' },
    GRAPH_CLIENT_SECRET: { GRAPH_CLIENT_SECRET: 'secret-1234', GRAPH_TENANT_ID: 't', GRAPH_CLIENT_ID: 'c' },
    // A live service needs its key.
    OMDB_BASE_URL: { OMDB_BASE_URL: 'http://127.0.0.1:9/elsewhere', OMDB_API_KEY: 'k' },
    ARK_ENDPOINTS: { ARK_ENDPOINTS: 'doubao-pro=ep-1', ARK_API_KEY: 'k' },
    CHAT_PROVIDERS: { CHAT_PROVIDERS: 'local=http://127.0.0.1:9/v1|m' },
    CHAT_ROUTES: { CHAT_ROUTES: 'fast=glm/glm-4-flash' },
    GATEWAY_API_KEYS: { GATEWAY_API_KEYS: 'a-key-of-16-chars-or-more' },
    CORS_ORIGINS: { CORS_ORIGINS: 'https://app.example.com' },
    ALLOWED_ORIGINS: { ALLOWED_ORIGINS: 'https://app.example.com' },
    TRUSTED_PROXIES: { TRUSTED_PROXIES: '10.0.0.0/8' },
    TRUSTED_ROUTER_KEYS: { TRUSTED_ROUTER_KEYS: 'a-router-key-of-16-chars' },
    REDIS_URL: { REDIS_URL: 'redis://127.0.0.1:6379/0' },
    REDIS_KEY_PREFIX: { REDIS_URL: 'redis://127.0.0.1:6379/0', REDIS_KEY_PREFIX: 'other:' },
    REDIS_COMMAND_TIMEOUT_MS: { REDIS_URL: 'redis://127.0.0.1:6379/0', REDIS_COMMAND_TIMEOUT_MS: '77' },
    GRAPH_API_VERSION: { GRAPH_API_VERSION: 'beta' },
    GATEWAY_DOMAINS: { GATEWAY_DOMAINS: 'chat' },
    SUBGRAPH_TYPE_PREFIX: { SUBGRAPH_TYPE_PREFIX: 'Ops' },
    SUBGRAPH_RENAMES: { SUBGRAPH_RENAMES: 'Title=Movie' },
    SUBGRAPH_OVERRIDES: { SUBGRAPH_OVERRIDES: 'Title.plot=movies@percent(10)' },
    // With keys the default is api-key; none is the other value that needs no companion of its own.
    MCP_AUTH: { MCP_AUTH: 'none', GATEWAY_API_KEYS: 'a-key-of-16-chars-or-more' },
    ...Object.fromEntries(['MCP_JWT_JWKS_URL', 'MCP_JWT_ISSUER', 'MCP_JWT_AUDIENCE'].map((name) => [name, MCP_JWT])),
    ...Object.fromEntries(['ROUTER_INVALIDATION_URLS', 'ROUTER_INVALIDATION_SECRET'].map((name) => [name, ROUTERS])),
  };
  if (special[name]) return special[name];
  if (/whole number|port/.test(type)) return { [name]: String(Number(fallback ?? 0) + 7) };
  if (type === 'http(s) URL') return { [name]: 'http://127.0.0.1:9/elsewhere' };
  if (type === 'number 0…1') return { [name]: '0.5' };
  if (type === '`true` or `false`') return { [name]: fallback === 'false' ? 'true' : 'false' };
  if (type.startsWith('`'))
    return {
      [name]: type
        .split(', ')
        .map((v) => v.replaceAll('`', ''))
        .find((v) => v !== fallback)!,
    };
  return { [name]: 'some-value' };
}

describe('every variable of the schema', () => {
  it.each(Object.entries(VARIABLES))('%s changes the configuration', (name, variable) => {
    const env = sample(name, variable.type.name, 'default' in variable ? variable.default : undefined);
    // Variables that only take effect together (application permissions, MCP_AUTH=jwt's) are compared with none of them set.
    const together = [
      'GRAPH_TENANT_ID',
      'GRAPH_CLIENT_ID',
      'GRAPH_CLIENT_SECRET',
      'MCP_JWT_JWKS_URL',
      'MCP_JWT_ISSUER',
      'MCP_JWT_AUDIENCE',
      'ROUTER_INVALIDATION_URLS',
      'ROUTER_INVALIDATION_SECRET',
    ].includes(name);
    const companions = together ? {} : Object.fromEntries(Object.entries(env).filter(([key]) => key !== name));
    expect(JSON.stringify(loadConfig(env))).not.toBe(JSON.stringify(loadConfig(companions)));
  });
});

describe('configuration errors', () => {
  it('are all reported at once, each naming the variable, the value and what it must be', () => {
    expect(
      problemsOf({
        PORT: 'abc',
        LOG_LEVEL: 'loud',
        GRAPH_POLL_INTERVAL_MS: '-5',
        NODE_ENV: 'prod',
        DEEPSEEK_RPM: '0',
        CHAT_ROUTES: 'x',
      }),
    ).toEqual([
      'PORT: must be a port number 0..65535, got "abc"',
      'NODE_ENV: must be one of development, production, test (did you mean production?), got "prod"',
      'LOG_LEVEL: must be one of fatal, error, warn, info, debug, trace, silent, got "loud"',
      'GRAPH_POLL_INTERVAL_MS: must be a whole number >= 1, got "-5"',
      'DEEPSEEK_RPM: must be greater than 0, got "0"',
      'CHAT_ROUTES: entry "x" must be name=provider/model,provider/model, e.g. fast=glm/glm-4-flash,deepseek/deepseek-flash',
    ]);
  });

  it('never echo a secret value', () => {
    const problems = problemsOf({ REDIS_URL: 'http://user:hunter22@cache:6379', GATEWAY_API_KEYS: 'short-secret' });
    expect(problems).toHaveLength(2);
    expect(problems.join('\n')).not.toMatch(/hunter22|short-secret/);
  });

  it('NODE_ENV takes development, production and test; only production turns production mode on', () => {
    expect(loadConfig({}).production).toBe(false);
    expect(loadConfig({ NODE_ENV: 'test' }).production).toBe(false);
    expect(loadConfig({ NODE_ENV: 'production' })).toMatchObject({ production: true, introspection: false });
  });

  it('npm start lists every bad variable, unresolvable HOST and missing manifest included, and exits 2 without a stack trace', async () => {
    const p = spawnGateway({
      PORT: 'abc',
      LOG_LEVEL: 'loud',
      NODE_ENV: 'prod',
      HOST: 'no-such-host.invalid',
      PERSISTED_OPERATIONS_FILE: '/no/such/manifest.json',
    });
    expect(await p.exited).toBe(2);
    expect(p.stderr.map((l) => l.replace(/^(configuration error: [A-Z_]+): .*/, '$1'))).toEqual([
      'configuration error: PORT',
      'configuration error: NODE_ENV',
      'configuration error: LOG_LEVEL',
      'configuration error: HOST',
      'configuration error: PERSISTED_OPERATIONS_FILE',
    ]);
    expect(p.stderr[3]).toMatch(
      /^configuration error: HOST: "no-such-host.invalid" does not resolve \(\w+\); set HOST to /,
    );
    expect(p.stderr[4]).toMatch(/"\/no\/such\/manifest.json" \(ENOENT.*\); set it to the path of/);
  });

  it('npm start refuses a manifest that does not parse, with exit code 2', async () => {
    const manifest = join(tmpdir(), `manifest-${process.pid}.json`);
    writeFileSync(manifest, '{ "operations": [');
    const p = spawnGateway({ PERSISTED_OPERATIONS_FILE: manifest });
    expect(await p.exited).toBe(2);
    expect(p.stderr).toHaveLength(1);
    expect(p.stderr[0]).toMatch(
      /^configuration error: PERSISTED_OPERATIONS_FILE: cannot read a JSON manifest at ".*manifest-\d+\.json" \(/,
    );
  });
});

describe('GATEWAY_SANDBOX_PORT', () => {
  it('puts the built-in sandbox on the chosen port', async () => {
    const port = await freePort();
    const p = spawnGateway({ GATEWAY_SANDBOX_PORT: String(port) });
    const origin = await p.origin;
    const res = await fetch(`${origin}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ upstreams { id baseUrl } }' }),
    });
    const { data } = (await res.json()) as { data: { upstreams: Array<{ id: string; baseUrl: string }> } };
    expect(new Set(data.upstreams.map((u) => new URL(u.baseUrl).origin))).toEqual(
      new Set([`http://127.0.0.1:${port}`]),
    );
    p.child.kill('SIGTERM');
    expect(await p.exited).toBe(0);
  });
});
