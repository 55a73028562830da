import { pino } from 'pino';
import { Agent } from 'undici';
import { beforeEach, describe, expect, it } from 'vitest';
import { GatewayMetrics } from '../../../src/observability/metrics.js';
import { metered } from '../../../src/upstreams/http/metered.js';
import { useLoopback } from './interceptorServer.js';

const server = useLoopback(503, 'busy');
let up: ReturnType<typeof server>;
beforeEach(() => (up = server()));

const counts = async (metrics: GatewayMetrics) =>
  Object.fromEntries(
    (await metrics.upstreamRequests.get()).values.map((v) => [`${v.labels.upstream}:${v.labels.status}`, v.value]),
  );

describe('metered interceptor', () => {
  it('counts each answer by status and a failed connection as 0, and logs the redacted URL at debug', async () => {
    const metrics = new GatewayMetrics();
    const lines: Array<Record<string, unknown>> = [];
    const log = pino({ level: 'debug' }, { write: (line: string) => lines.push(JSON.parse(line)) });
    const agent = new Agent().compose(
      metered({ upstream: 'graph', metrics, log, redact: (s) => s.replace('secret', '***') }),
    );
    const res = await agent.request({
      origin: up.origin,
      path: '/x?key=secret',
      method: 'GET',
      url: `${up.origin}/x?key=secret`,
      attempt: 2,
    } as never);
    expect(res.statusCode).toBe(503);
    await res.body.dump();
    await expect(
      agent.request({
        origin: up.origin,
        path: '/reset',
        method: 'GET',
        url: `${up.origin}/reset`,
        attempt: 1,
      } as never),
    ).rejects.toThrow();
    expect(await counts(metrics)).toEqual({ 'graph:503': 1, 'graph:0': 1 });
    expect((await metrics.upstreamDuration.get()).values.find((v) => v.metricName?.endsWith('_count'))?.value).toBe(2);
    const logged = lines.filter((l) => l.msg === 'upstream request');
    expect(logged.map((l) => [l.status, l.attempt])).toEqual([
      [503, 2],
      ['network', 1],
    ]);
    expect(JSON.stringify(logged)).not.toContain('secret');
    await agent.close();
  });

  it('does not count an attempt its caller cancelled: it says nothing of the upstream', async () => {
    const metrics = new GatewayMetrics();
    const agent = new Agent().compose(
      metered({ upstream: 'omdb', metrics, log: pino({ level: 'silent' }), redact: (s) => s }),
    );
    const controller = new AbortController();
    const pending = agent.request({
      origin: up.origin,
      path: '/hang',
      method: 'GET',
      signal: controller.signal,
      url: '',
      attempt: 1,
    } as never);
    setTimeout(() => controller.abort(new Error('caller left')), 50);
    await expect(pending).rejects.toThrow('caller left');
    expect(await counts(metrics)).toEqual({});
    await agent.close();
  });
});
