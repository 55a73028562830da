import { Writable } from 'node:stream';
import { loadConfig } from '../../src/config/env.js';
import { startGateway, type Gateway, type StartGatewayOptions } from '../../src/app/gateway.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/server.js';
import type { RecordedRequest } from '../../src/sandbox/record.js';
import { headersOf, post } from './post.js';

/** Keeps every log line the gateway writes, so tests can assert on logs (and on what they must never contain). */
export class LogCapture extends Writable {
  readonly lines: string[] = [];
  override _write(chunk: Buffer, _enc: BufferEncoding, cb: () => void): void {
    this.lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
    cb();
  }
  json(): Array<Record<string, unknown>> {
    return this.lines.map((l) => JSON.parse(l) as Record<string, unknown>);
  }
}

export interface TestGateway {
  gateway: Gateway;
  sandbox: Sandbox;
  logs: LogCapture;
  /** POSTs an operation to /graphql and returns the parsed body (with the HTTP status). */
  query<T = any>(
    query: string,
    variables?: Record<string, unknown>,
    headers?: Record<string, string>,
  ): Promise<{
    status: number;
    body: {
      data?: T;
      errors?: Array<{ message: string; extensions?: Record<string, any>; path?: unknown[] }>;
      extensions?: Record<string, any>;
    };
    headers: Headers;
  }>;
  /** The sandbox's request record, optionally for one upstream. */
  upstreamRequests(upstream?: string): RecordedRequest[];
  clearUpstreamRequests(): void;
  close(): Promise<void>;
}

/** Starts a sandbox and a gateway on free loopback ports, with `env` on top of a clean environment. */
export async function startTestGateway(
  env: Record<string, string> = {},
  sandboxSettings = {},
  options: Pick<StartGatewayOptions, 'multipartHeartbeatMs' | 'directExecution' | 'domains' | 'callbackTimeoutMs'> = {},
): Promise<TestGateway> {
  const sandbox = await startSandbox({ settings: { chatTokenDelayMs: 0, ...sandboxSettings } });
  const logs = new LogCapture();
  const config = loadConfig({ PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', ...env });
  const gateway = await startGateway({ ...options, config, sandbox, logDestination: logs });
  const responses: string[] = [];
  return {
    gateway,
    sandbox,
    logs,
    async query(query, variables, headers = {}) {
      // node:http, not fetch: the same request for a fraction of fetch's CPU (test/support/post.ts).
      const res = await post(gateway.url, JSON.stringify({ query, variables }), {
        'content-type': 'application/json',
        ...headers,
      });
      responses.push(res.text);
      return { status: res.status, body: JSON.parse(res.text) as never, headers: headersOf(res.headers) };
    },
    upstreamRequests: (upstream) => sandbox.record.list().filter((r) => !upstream || r.upstream === upstream),
    clearUpstreamRequests: () => sandbox.record.clear(),
    async close() {
      await gateway.close();
      await sandbox.close();
      assertNoSecretLeaked(config.secrets, sandbox, [...logs.lines, ...responses]);
    },
  };
}

/**
 * Run at every test gateway's close, so the whole suite proves it: no configured key or secret, and no bearer token a
 * caller or the gateway sent upstream, appears in any response body or log line the gateway produced.
 */
export function assertNoSecretLeaked(configured: readonly string[], sandbox: Sandbox, texts: readonly string[]): void {
  const tokens = new Set<string>(configured);
  for (const r of sandbox.record.list()) {
    const auth = r.headers.authorization;
    const token = typeof auth === 'string' ? auth.replace(/^Bearer\s+/i, '') : '';
    if (token.length >= 12) tokens.add(token);
    const key = /[?&]apikey=([^&]+)/.exec(r.url)?.[1];
    if (key && key.length >= 8) tokens.add(decodeURIComponent(key));
    const form = /client_secret=([^&]+)/.exec(r.body)?.[1];
    if (form && form.length >= 8) tokens.add(decodeURIComponent(form));
  }
  for (const token of tokens) {
    const leak = texts.find((t) => t.includes(token));
    if (leak)
      throw new Error(
        `a secret (${token.slice(0, 3)}…, ${token.length} chars) leaked into gateway output: ${leak.slice(0, 200).replaceAll(token, '[LEAK]')}`,
      );
  }
}
