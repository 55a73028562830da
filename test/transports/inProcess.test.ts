import { describe, expect, it } from 'vitest';
import type { Caller, OperationPipeline } from '../../src/pipeline/index.js';
import { InProcessTransport } from '../../src/transports/inProcess.js';

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** A pipeline that records the caller each operation was entered with and answers an empty result. */
function recordingPipeline(): { pipeline: OperationPipeline; callers: Caller[] } {
  const callers: Caller[] = [];
  const pipeline = {
    execute: async (_payload: unknown, caller: Caller) => {
      callers.push(caller);
      return { kind: 'result', result: { data: {} } };
    },
  } as unknown as OperationPipeline;
  return { pipeline, callers };
}

describe('the in-process transport', () => {
  it('gives a caller without a request id a random version 4 UUID of its own, as the other transports do, and keeps one it brings', async () => {
    const { pipeline, callers } = recordingPipeline();
    const transport = new InProcessTransport(pipeline);
    for (let i = 0; i < 200; i++) await transport.execute({ query: '{ __typename }' });
    await transport.execute({ query: '{ __typename }' }, { requestId: 'tool-call-7', transport: 'mcp' });
    const ids = callers.slice(0, 200).map((c) => c.requestId);
    for (const id of ids) expect(id).toMatch(UUID_V4);
    expect(new Set(ids).size).toBe(200);
    expect(callers[0].transport).toBe('in-process');
    expect(callers[200]).toMatchObject({ requestId: 'tool-call-7', transport: 'mcp' });
  });
});
