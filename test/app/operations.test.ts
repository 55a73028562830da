import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config/env.js';
import { createLogger } from '../../src/observability/logger.js';
import { spawnGateway } from '../support/process.js';

/** A destination that says it is a terminal, as process.stdout does in one. */
class FakeTerminal extends Writable {
  readonly isTTY = true;
  text = '';
  override _write(chunk: Buffer, _enc: BufferEncoding, cb: () => void): void {
    this.text += chunk.toString('utf8');
    cb();
  }
}

const stop = async (p: ReturnType<typeof spawnGateway>) => {
  p.child.kill('SIGTERM');
  await p.exited;
};

describe('log format', () => {
  it('is human-readable on a terminal, with secrets still redacted', () => {
    const out = new FakeTerminal();
    const log = createLogger({
      level: 'info',
      redact: (s) => s.replaceAll('s3cret-key', '[REDACTED]'),
      destination: out as never,
    });
    log.info({ upstream: 'omdb', url: '/?apikey=s3cret-key' }, 'upstream omdb: live');
    expect(out.text).toMatch(/INFO.*upstream omdb: live/);
    expect(out.text).toContain('[REDACTED]');
    expect(out.text).not.toContain('s3cret-key');
    expect(() => JSON.parse(out.text)).toThrow();
    // One line per entry, its fields on the same line.
    expect(out.text.split('\n').filter(Boolean)).toHaveLength(1);
    expect(out.text).toMatch(/upstream omdb: live.*"upstream":"omdb"/);
  });

  it('is JSON lines when the destination is not a terminal, even for a terminal when LOG_FORMAT=json', () => {
    const out = new FakeTerminal();
    createLogger({ level: 'info', redact: (s) => s, destination: out as never, format: 'json' }).info('hello');
    expect(JSON.parse(out.text)).toMatchObject({ level: 'info', msg: 'hello' });
  });

  it('LOG_FORMAT=pretty makes `npm start` log readable lines to a pipe', async () => {
    const p = spawnGateway({ LOG_FORMAT: 'pretty' });
    const origin = await p.origin;
    expect(origin).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const line = p.stdout.find((l) => l.includes('gateway listening on'))!;
    expect(line).toMatch(/^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: gateway listening on/);
    await stop(p);
  });

  it('a pipe gets JSON by default', async () => {
    const p = spawnGateway({});
    await p.origin;
    expect(JSON.parse(p.stdout.find((l) => l.includes('gateway listening on'))!)).toMatchObject({ level: 'info' });
    await stop(p);
  });
});

describe('.env', () => {
  it('`npm start` reads .env from its folder when there is one; what the environment sets wins; the log names the variables read', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dotenv-'));
    writeFileSync(
      join(dir, '.env'),
      "# a newcomer's settings\nGATEWAY_DOMAINS=titles\nLOG_FORMAT=pretty\nOMDB_DAILY_QUOTA=7\n",
    );
    const p = spawnGateway({ LOG_FORMAT: 'json' }, 30_000, dir);
    const origin = await p.origin;
    const lines = p.stdout.map((l) => JSON.parse(l) as { msg: string; variables?: string[] });
    expect(lines.find((l) => l.msg.startsWith('read '))).toMatchObject({
      msg: 'read 2 variables from .env',
      variables: ['GATEWAY_DOMAINS', 'OMDB_DAILY_QUOTA'],
    });
    expect(lines.filter((l) => l.msg.startsWith('upstream ')).map((l) => l.msg.split(':')[0])).toEqual([
      'upstream omdb',
    ]);
    // The titles domain alone: not even the gateway domain's `upstreams`.
    const res = await fetch(`${origin}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ __schema { queryType { fields { name } } } }' }),
    });
    expect(await res.json()).toEqual({
      data: {
        __schema: {
          queryType: { fields: ['title', 'searchTitles', '_entities', '_service'].map((name) => ({ name })) },
        },
      },
      extensions: { cost: expect.any(Object) },
    });
    await stop(p);
  });

  it('a .env that does not parse is a configuration error, not a crash', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dotenv-'));
    mkdirSync(join(dir, '.env'));
    const p = spawnGateway({}, 30_000, dir);
    expect(await p.exited).toBe(2);
    expect(p.stderr.join('\n')).toMatch(/^configuration error: \.env: /);
  });
});

describe('listen address', () => {
  it('a port already in use exits 2 with one line naming PORT, no stack trace', async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const { port } = blocker.address() as AddressInfo;
    try {
      const p = spawnGateway({ PORT: String(port), HOST: '127.0.0.1' });
      p.origin.catch(() => undefined);
      expect(await p.exited).toBe(2);
      expect(p.stderr).toEqual([
        `configuration error: PORT: 127.0.0.1:${port} is already in use by another process; stop it or choose another PORT (or HOST).`,
      ]);
    } finally {
      blocker.close();
    }
  });

  it('a HOST that is not an address of this machine exits 2 naming HOST', async () => {
    const p = spawnGateway({ HOST: '192.0.2.1' });
    p.origin.catch(() => undefined);
    expect(await p.exited).toBe(2);
    expect(p.stderr).toHaveLength(1);
    expect(p.stderr[0]).toMatch(/^configuration error: HOST: 192\.0\.2\.1 is not an address of this machine/);
  });
});

describe('configuration of the operations variables', () => {
  it('refuses a LOG_FORMAT other than json or pretty, naming it', () => {
    expect(() => loadConfig({ LOG_FORMAT: 'xml' })).toThrow(
      new ConfigError('LOG_FORMAT', 'must be json or pretty, got "xml"'),
    );
  });

  it('refuses an OTEL_EXPORTER_OTLP_ENDPOINT that is not an http(s) URL, naming it', () => {
    expect(() => loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' })).toThrow(
      /OTEL_EXPORTER_OTLP_ENDPOINT: .*absolute http\(s\) URL, got "collector:4318"/,
    );
  });

  it('leaves tracing off and the log format automatic when unset', () => {
    const config = loadConfig({});
    expect(config.otlpEndpoint).toBeUndefined();
    expect(config.logFormat).toBeUndefined();
  });
});
