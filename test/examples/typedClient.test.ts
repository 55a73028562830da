import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execute } from '../../examples/typed-client/src/client.js';
import { runExample } from '../../examples/typed-client/src/example.js';
import { TitleDocument } from '../../examples/typed-client/src/operations.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';

const root = fileURLToPath(new URL('../..', import.meta.url));

describe('the typed client example (client preset over schema.graphql)', () => {
  let t: TestGateway;
  beforeAll(async () => {
    t = await startTestGateway();
  });
  afterAll(async () => {
    await t?.close();
  });

  it('has generated documents that match schema.graphql (run `npm run example:codegen` when this fails)', async () => {
    const run = promisify(execFile)(
      `${root}node_modules/.bin/graphql-codegen`,
      ['--config', 'examples/typed-client/codegen.yml', '--check'],
      { cwd: root },
    );
    await expect(run).resolves.toBeDefined();
  }, 60_000);

  it('runs its three typed operations against the gateway, each costing one upstream request', async () => {
    t.clearUpstreamRequests();
    const lines = await runExample(t.gateway.url);
    expect(lines.filter((l) => l.startsWith('error'))).toEqual([]);
    expect(lines).toHaveLength(5); // three services, one title, one completion
    expect(lines[3]).toMatch(/^Superman \(1978\), 143 min, Action\//);
    expect(lines[4]).toMatch(/^deepseek\/deepseek-flash: .+ \[\d+ tokens\]$/);
    expect(t.upstreamRequests('graph').filter((r) => !r.url.includes('/oauth2/'))).toHaveLength(1);
    expect(t.upstreamRequests('omdb')).toHaveLength(1);
    expect(t.upstreamRequests('deepseek')).toHaveLength(1);
  });

  it('keeps field errors beside partial data, typed', async () => {
    const result = await execute(t.gateway.url, TitleDocument, { imdbId: 'not-an-id' });
    expect(result.data?.title ?? null).toBeNull();
    expect(result.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
  });
});
