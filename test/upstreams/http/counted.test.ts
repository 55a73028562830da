import { Agent } from 'undici';
import { beforeEach, describe, expect, it } from 'vitest';
import { counted } from '../../../src/upstreams/http/counted.js';
import { UpstreamTally } from '../../../src/upstreams/http/tally.js';
import { useLoopback } from './interceptorServer.js';

const server = useLoopback();
let up: ReturnType<typeof server>;
beforeEach(() => (up = server()));

describe('counted interceptor', () => {
  it('tells the tally of every request it dispatches, answered or not, and leaves requests without a tally alone', async () => {
    const agent = new Agent().compose(counted('omdb'));
    const tally = new UpstreamTally();
    const told: string[] = [];
    tally.onSent = (upstream) => told.push(upstream);
    const res = await agent.request({ origin: up.origin, path: '/a', method: 'GET', tally } as never);
    expect(await res.body.text()).toBe('ok');
    await expect(agent.request({ origin: up.origin, path: '/reset', method: 'GET', tally } as never)).rejects.toThrow();
    await (await agent.request({ origin: up.origin, path: '/b', method: 'GET' })).body.dump();
    expect(tally.total).toBe(2);
    expect(told).toEqual(['omdb', 'omdb']);
    await agent.close();
  });
});
