import { Agent } from 'undici';
import { beforeEach, describe, expect, it } from 'vitest';
import { GatewayError } from '../../../src/errors/codes.js';
import { UpstreamCode } from '../../../src/upstreams/codes.js';
import { CircuitBreaker, guarded } from '../../../src/upstreams/http/breaker.js';
import { useLoopback } from './interceptorServer.js';

const server = useLoopback();
let up: ReturnType<typeof server>;
beforeEach(() => (up = server()));

const get = (
  a: Agent['compose'] extends (...args: never[]) => infer R ? R : never,
  path = '/x',
  signal?: AbortSignal,
) => a.request({ origin: up.origin, path, method: 'GET', signal } as never);

describe('guarded interceptor (the circuit breaker)', () => {
  it('opens after consecutive 5xx and no-answers, refuses at once with CIRCUIT_OPEN, and closes after a good probe', async () => {
    let now = 0;
    const breaker = new CircuitBreaker(
      { threshold: 2, cooldownMs: 1_000 },
      () => undefined,
      () => now,
    );
    const a = new Agent().compose(guarded('graph', breaker));
    up.plan.push({ status: 502 });
    await (await get(a)).body.dump();
    await expect(get(a, '/reset')).rejects.toThrow();
    expect(breaker.state).toBe('open');
    const refused = await get(a).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(GatewayError);
    expect((refused as GatewayError).extensions).toMatchObject({
      upstream: 'graph',
      upstreamCode: UpstreamCode.CircuitOpen,
      retryAfter: 1,
    });
    expect(up.seen).toHaveLength(2);
    now = 1_000;
    expect((await get(a)).statusCode).toBe(200);
    expect(breaker.state).toBe('closed');
    await a.close();
  });

  it('does not count 4xx answers or callers who left as failures', async () => {
    const breaker = new CircuitBreaker({ threshold: 1, cooldownMs: 60_000 });
    const a = new Agent().compose(guarded('omdb', breaker));
    up.plan.push({ status: 404 });
    await (await get(a)).body.dump();
    const controller = new AbortController();
    const pending = get(a, '/hang', controller.signal);
    setTimeout(() => controller.abort(new Error('caller left')), 100);
    await expect(pending).rejects.toThrow('caller left');
    expect(breaker.state).toBe('closed');
    await a.close();
  });
});
