import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config/env.js';
import { spawnGateway } from '../support/process.js';

describe('configuration', () => {
  it('defaults to port 4000 on 127.0.0.1 with every upstream in sandbox mode', () => {
    const c = loadConfig({});
    expect(c.port).toBe(4000);
    expect(c.host).toBe('127.0.0.1');
    expect(c.graph.mode).toBe('sandbox');
    expect(c.omdb).toMatchObject({ mode: 'sandbox', dailyQuota: 1000 });
    expect(c.chat.map((p) => [p.id, p.mode, p.rpm])).toEqual([
      ['glm', 'sandbox', undefined],
      ['ark', 'sandbox', undefined],
      ['deepseek', 'sandbox', undefined],
      ['moonshot', 'sandbox', undefined],
    ]);
  });

  it('counts an upstream as live when any of its variables is set', () => {
    const c = loadConfig({
      OMDB_API_KEY: 'k-123456',
      ARK_ENDPOINTS: 'doubao-pro=ep-1,doubao-lite=ep-2',
      ARK_API_KEY: 'ark-key-123456',
      GRAPH_BASE_URL: 'https://graph.example.com/',
    });
    expect(c.omdb.mode).toBe('live');
    expect(c.graph).toMatchObject({ mode: 'live', baseUrl: 'https://graph.example.com', apiVersion: 'v1.0' });
    expect(c.chat.find((p) => p.id === 'ark')).toMatchObject({
      mode: 'live',
      endpoints: { 'doubao-pro': 'ep-1', 'doubao-lite': 'ep-2' },
    });
    expect(c.secrets).toEqual(expect.arrayContaining(['k-123456', 'ark-key-123456']));
  });

  it.each([
    [{ PORT: 'eighty' }, 'PORT'],
    [{ PORT: '70000' }, 'PORT'],
    [{ GRAPH_BASE_URL: 'not a url' }, 'GRAPH_BASE_URL'],
    [{ OMDB_BASE_URL: 'ftp://x' }, 'OMDB_BASE_URL'],
    [{ OMDB_DAILY_QUOTA: '-5' }, 'OMDB_DAILY_QUOTA'],
    [{ ARK_ENDPOINTS: 'doubao-pro' }, 'ARK_ENDPOINTS'],
    [{ DEEPSEEK_RPM: '0' }, 'DEEPSEEK_RPM'],
    [{ GRAPH_API_VERSION: 'v2' }, 'GRAPH_API_VERSION'],
    [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL'],
    [{ GRAPH_CLIENT_SECRET: 's3cret' }, 'GRAPH_TENANT_ID'],
    [{ GRAPH_TENANT_ID: 'contoso' }, 'GRAPH_CLIENT_ID'],
    [{ GRAPH_TENANT_ID: 'contoso', GRAPH_CLIENT_ID: 'app' }, 'GRAPH_CLIENT_SECRET'],
    [{ DEEPSEEK_BASE_URL: 'https://proxy.example/v1' }, 'DEEPSEEK_API_KEY'],
    [{ ARK_ENDPOINTS: 'doubao-pro=ep-20250101-abc' }, 'ARK_API_KEY'],
    [{ OMDB_BASE_URL: 'https://omdb.example' }, 'OMDB_API_KEY'],
    [{ CHAT_PROVIDERS: 'bad entry' }, 'CHAT_PROVIDERS'],
    [{ GATEWAY_API_KEYS: 'short' }, 'GATEWAY_API_KEYS'],
    [{ CORS_ORIGINS: 'https://app.example.com/path' }, 'CORS_ORIGINS'],
    [{ GATEWAY_MAX_DEPTH: '0' }, 'GATEWAY_MAX_DEPTH'],
    [{ GATEWAY_WS_MAX_OPERATIONS: 'many' }, 'GATEWAY_WS_MAX_OPERATIONS'],
    [{ ALLOWED_HOSTS: 'https://api.example.com' }, 'ALLOWED_HOSTS'],
    [{ ALLOWED_HOSTS: 'api.example.com:443' }, 'ALLOWED_HOSTS'],
    [{ ALLOWED_ORIGINS: 'app.example.com' }, 'ALLOWED_ORIGINS'],
    [{ TRUSTED_PROXIES: '10.0.0.0/33' }, 'TRUSTED_PROXIES'],
    [{ TRUSTED_PROXIES: 'proxy.internal' }, 'TRUSTED_PROXIES'],
    [{ TRUSTED_ROUTER_KEYS: 'short' }, 'TRUSTED_ROUTER_KEYS'],
    [{ ROUTER_CLIENT_HEADER: 'x client' }, 'ROUTER_CLIENT_HEADER'],
    [{ MAX_ENTITY_REPRESENTATIONS: '0' }, 'MAX_ENTITY_REPRESENTATIONS'],
    [{ NODE_ENV: 'production', ERROR_STACK_TRACES: 'true' }, 'ERROR_STACK_TRACES'],
  ])('refuses %j naming %s', (env, variable) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(new RegExp(`^${variable}: `));
  });

  it('reads operation limits, access control and treats API keys as secrets', () => {
    const c = loadConfig({
      GATEWAY_MAX_DEPTH: '20',
      GATEWAY_API_KEYS: 'aaaaaaaaaaaaaaaa1, bbbbbbbbbbbbbbbb2',
      CORS_ORIGINS: 'https://a.example.com,*',
    });
    expect(c.limits).toMatchObject({ maxDepth: 20, maxAliases: 30, maxTokens: 1000 });
    expect(c.apiKeys).toEqual(['aaaaaaaaaaaaaaaa1', 'bbbbbbbbbbbbbbbb2']);
    expect(c.corsOrigins).toEqual(['https://a.example.com', '*']);
    expect(c.secrets).toEqual(expect.arrayContaining(['aaaaaaaaaaaaaaaa1', 'bbbbbbbbbbbbbbbb2']));
  });

  it('reads GATEWAY_MAX_COST as the deprecated name of MAX_OPERATION_COST, the one cost limit, saying which wins', () => {
    expect(loadConfig({}).demandControl.maxOperationCost).toBe(5000);
    expect(loadConfig({}).deprecated).toEqual([]);
    const old = loadConfig({ GATEWAY_MAX_COST: '800' });
    expect(old.demandControl.maxOperationCost).toBe(800);
    expect(old.deprecated).toEqual([
      {
        variable: 'GATEWAY_MAX_COST',
        message: expect.stringMatching(/deprecated: read as MAX_OPERATION_COST=800.*rename it to MAX_OPERATION_COST/),
      },
    ]);
    const both = loadConfig({ GATEWAY_MAX_COST: '800', MAX_OPERATION_COST: '900' });
    expect(both.demandControl.maxOperationCost).toBe(900);
    expect(both.deprecated[0].message).toMatch(
      /ignored: MAX_OPERATION_COST \(900\) is set too and wins; remove GATEWAY_MAX_COST \(800\)/,
    );
    // Checked as MAX_OPERATION_COST is: a whole number of at least 1.
    expect(() => loadConfig({ GATEWAY_MAX_COST: '0' })).toThrow(/^GATEWAY_MAX_COST: /);
  });

  it('reads the trust settings: hosts and origins allowed (loopback names and HOST by default, CORS_ORIGINS joined), proxies, router keys as secrets', () => {
    expect(loadConfig({}).trust).toEqual({
      allowedHosts: ['localhost', '.localhost'],
      allowedOrigins: [],
      trustedProxies: [],
      routerKeys: [],
      routerClientHeader: undefined,
    });
    expect(loadConfig({ HOST: 'Gateway.Internal.' }).trust.allowedHosts).toEqual([
      'localhost',
      '.localhost',
      'gateway.internal',
    ]);
    expect(loadConfig({ HOST: '0.0.0.0' }).trust.allowedHosts).toEqual(['localhost', '.localhost']);
    const c = loadConfig({
      ALLOWED_HOSTS: 'API.example.com, .corp.example, [::1]',
      ALLOWED_ORIGINS: 'https://app.example.com',
      CORS_ORIGINS: 'https://cors.example.com,https://app.example.com',
      TRUSTED_PROXIES: 'loopback, 10.0.0.0/8, fd00::/8',
      TRUSTED_ROUTER_KEYS: 'router-key-0123456789',
      ROUTER_CLIENT_HEADER: 'X-Client-Id',
      MAX_ENTITY_REPRESENTATIONS: '200',
    });
    expect(c.trust).toEqual({
      allowedHosts: ['api.example.com', '.corp.example', '[::1]'],
      allowedOrigins: ['https://app.example.com', 'https://cors.example.com'],
      trustedProxies: ['loopback', '10.0.0.0/8', 'fd00::/8'],
      routerKeys: ['router-key-0123456789'],
      routerClientHeader: 'x-client-id',
    });
    expect(c.limits.maxEntityRepresentations).toBe(200);
    expect(c.secrets).toContain('router-key-0123456789');
  });

  it('adds OpenAI-compatible providers from CHAT_PROVIDERS alone', () => {
    const c = loadConfig({
      CHAT_PROVIDERS: 'local=http://127.0.0.1:9999/v1|llama-3 qwen-2',
      LOCAL_API_KEY: 'abcd1234',
      LOCAL_RPM: '30',
    });
    expect(c.chat.at(-1)).toEqual({
      id: 'local',
      mode: 'live',
      baseUrl: 'http://127.0.0.1:9999/v1',
      apiKey: 'abcd1234',
      rpm: 30,
      endpoints: {},
      models: ['llama-3', 'qwen-2'],
      contextWindows: {},
    });
  });

  it('keeps shared state in process unless REDIS_URL is set, and treats the Redis password as a secret', () => {
    expect(loadConfig({})).toMatchObject({ redis: undefined, replicas: 1 });
    const c = loadConfig({ REDIS_URL: 'rediss://gw:s3cret-pass@redis.internal:6380/2', GATEWAY_REPLICAS: '3' });
    expect(c.redis).toEqual({
      url: 'rediss://gw:s3cret-pass@redis.internal:6380/2',
      keyPrefix: 'gateway:',
      commandTimeoutMs: 500,
    });
    expect(c.replicas).toBe(3);
    expect(c.secrets).toContain('s3cret-pass');
    expect(
      loadConfig({ REDIS_URL: 'redis://127.0.0.1:6379', REDIS_KEY_PREFIX: 'gw-blue:', REDIS_COMMAND_TIMEOUT_MS: '200' })
        .redis,
    ).toMatchObject({ keyPrefix: 'gw-blue:', commandTimeoutMs: 200 });
  });

  it('refuses a REDIS_URL that is not redis:// or rediss:// without echoing it (it may hold a password), and GATEWAY_REPLICAS below 1', () => {
    const bad = (env: Record<string, string>) => {
      try {
        loadConfig(env);
      } catch (error) {
        return (error as ConfigError).message;
      }
      return 'accepted';
    };
    expect(bad({ REDIS_URL: 'http://user:hunter22@cache:6379' })).toBe(
      'REDIS_URL: must be redis://[user:password@]host:port[/db] or rediss://… for TLS',
    );
    expect(bad({ REDIS_URL: 'redis://cache:6379/zero' })).toBe(
      'REDIS_URL: the path must be a database number such as /0, got /zero',
    );
    expect(bad({ GATEWAY_REPLICAS: '0' })).toMatch(/^GATEWAY_REPLICAS: /);
  });

  it('stops start-up with one line naming the bad variable', async () => {
    const p = spawnGateway({ OMDB_DAILY_QUOTA: '-5' });
    const code = await p.exited;
    expect(code).toBe(2);
    expect(p.stderr).toEqual(['configuration error: OMDB_DAILY_QUOTA: must be a whole number >= 0, got "-5"']);
  });
});
