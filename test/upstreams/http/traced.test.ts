import { Agent } from 'undici';
import { beforeEach, describe, expect, it } from 'vitest';
import { traced } from '../../../src/upstreams/http/traced.js';
import { useLoopback } from './interceptorServer.js';

const server = useLoopback();
let up: ReturnType<typeof server>;
beforeEach(() => (up = server()));

// The spans themselves, their parent and their attributes, are asserted end to end in test/observability/tracing.test.ts.
describe('traced interceptor', () => {
  it('leaves a request outside any traced operation as it was: no span, no trace headers', async () => {
    const a = new Agent().compose(traced('graph'));
    const res = await a.request({
      origin: up.origin,
      path: '/x',
      method: 'GET',
      url: `${up.origin}/x`,
      headers: { accept: 'application/json' },
    } as never);
    expect(await res.body.text()).toBe('ok');
    expect(up.seen[0].headers.accept).toBe('application/json');
    expect(up.seen[0].headers.traceparent).toBeUndefined();
    await a.close();
  });
});
