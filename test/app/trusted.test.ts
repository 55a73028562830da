/**
 * The trusted toolset (src/app/trusted.ts) is built without the pipeline it runs through: it reads the in-process
 * entry and the estimates only when called, so the wiring needs no placeholder, and nothing runs at build time.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { GraphQLSchema } from 'graphql';
import { createTrustedToolset, loadTrustedOperations } from '../../src/app/trusted.js';
import { loadConfig } from '../../src/config/env.js';
import type { UpstreamEstimates } from '../../src/planning/upstreamEstimate.js';
import { buildSchema } from '../../src/schema/build.js';
import type { InProcessTransport } from '../../src/transports/inProcess.js';
import type { TrustedOperations } from '../../src/trusted/operations.js';

let schema: GraphQLSchema;
let operations: TrustedOperations;
beforeAll(async () => {
  schema = await buildSchema();
  operations = loadTrustedOperations(schema, loadConfig({}));
});

const notBuilt = () => {
  throw new Error('read while the gateway is being built');
};

describe('createTrustedToolset', () => {
  it('reads neither the pipeline nor the estimates while it is built', () => {
    const toolset = createTrustedToolset({ schema, operations, pipeline: notBuilt, estimates: notBuilt });
    expect(toolset.operations.list().length).toBeGreaterThan(0);
  });

  it('estimates an operation on its first use only, and knows nothing of a name it does not have', () => {
    let made = 0;
    const estimates = { of: () => (made++, { graph: 2 }) } as unknown as UpstreamEstimates;
    const toolset = createTrustedToolset({ schema, operations, pipeline: notBuilt, estimates: () => estimates });
    const name = operations.list()[0].name;
    expect(toolset.estimates.get(name)).toEqual({ graph: 2 });
    expect(toolset.estimates.get(name)).toEqual({ graph: 2 });
    expect(made).toBe(1);
    expect(toolset.estimates.get('NoSuchTool')).toBeUndefined();
    expect(made).toBe(1);
  });

  it('counts nothing for an operation while it is being estimated (a graph tool naming itself), instead of recursing', () => {
    const name = operations.list()[0].name;
    let inner: unknown;
    const toolset = createTrustedToolset({
      schema,
      operations,
      pipeline: notBuilt,
      estimates: () =>
        ({ of: () => ((inner = toolset.estimates.get(name)), { omdb: 1 }) }) as unknown as UpstreamEstimates,
    });
    expect(toolset.estimates.get(name)).toEqual({ omdb: 1 });
    expect(inner).toEqual({});
  });

  it('runs an operation through the in-process entry it reads when called', async () => {
    const sent: unknown[] = [];
    const inProcess = {
      execute: async (payload: unknown) => (sent.push(payload), { data: { ok: true } }),
    } as unknown as InProcessTransport;
    const toolset = createTrustedToolset({ schema, operations, pipeline: () => inProcess, estimates: notBuilt });
    const op = operations.list()[0];
    const result = await toolset.execute({ query: op.query, name: op.name }, {}, { requestId: 'r1', transport: 'mcp' });
    expect(result).toEqual({ data: { ok: true } });
    expect(sent).toEqual([{ query: op.query, operationName: op.name, variables: {} }]);
  });
});
