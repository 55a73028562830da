import { Counter, Histogram, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { TalliedCounter, TalliedHistogram } from '../../src/observability/tallied.js';

const BUCKETS = [0.001, 0.01, 0.1, 1];

/** A tallied metric and prom-client's own, each in its own registry, fed the same calls: the scrapes must match. */
function pair() {
  const tallied = new Registry();
  const plain = new Registry();
  const config = (registry: Registry) => ({
    counter: { name: 'c_total', help: 'c', labelNames: ['method', 'route', 'status'] as const, registers: [registry] },
    histogram: {
      name: 'h_seconds',
      help: 'h',
      labelNames: ['type', 'name'] as const,
      buckets: BUCKETS,
      registers: [registry],
    },
    bare: { name: 'b', help: 'b', buckets: BUCKETS, registers: [registry] },
  });
  return {
    tallied,
    plain,
    t: {
      counter: new TalliedCounter(config(tallied).counter),
      histogram: new TalliedHistogram(config(tallied).histogram),
      bare: new TalliedHistogram(config(tallied).bare),
    },
    p: {
      counter: new Counter(config(plain).counter),
      histogram: new Histogram(config(plain).histogram),
      bare: new Histogram(config(plain).bare),
    },
  };
}

describe('tallied metrics (per-operation counts handed to prom-client when scraped)', () => {
  it('scrape exactly as prom-client does for the same observations, between and after scrapes', async () => {
    const { tallied, plain, t, p } = pair();
    // Before any observation: an unlabelled histogram shows its zeros, a labelled one nothing.
    expect(await tallied.metrics()).toBe(await plain.metrics());
    const values = [0.0005, 0.001, 0.05, 0.5, 3, 0];
    for (const [i, v] of values.entries()) {
      const name = i % 2 ? 'health' : 'title';
      t.histogram.series('query', name).observe(v);
      p.histogram.observe({ type: 'query', name }, v);
      t.bare.observe({}, v);
      p.bare.observe({}, v);
      t.counter.series('POST', '/graphql', String(200 + (i % 3))).inc();
      p.counter.inc({ method: 'POST', route: '/graphql', status: String(200 + (i % 3)) });
    }
    t.counter.inc({ method: 'GET', route: '/metrics', status: '200' }, 2);
    p.counter.inc({ method: 'GET', route: '/metrics', status: '200' }, 2);
    expect(await tallied.metrics()).toBe(await plain.metrics());
    // More after a scrape: counted once, not again.
    t.histogram.observe({ type: 'mutation', name: 'x' }, 0.002);
    p.histogram.observe({ type: 'mutation', name: 'x' }, 0.002);
    t.counter.series('POST', '/graphql', '200').inc(3);
    p.counter.inc({ method: 'POST', route: '/graphql', status: '200' }, 3);
    expect(await tallied.metrics()).toBe(await plain.metrics());
    expect(await tallied.metrics()).toBe(await plain.metrics());
    expect((await t.counter.get()).values).toEqual((await p.counter.get()).values);
    expect((await t.histogram.get()).values).toEqual((await p.histogram.get()).values);
  });

  it('keeps one series per combination of label values, however it is reached', () => {
    const { t } = pair();
    expect(t.histogram.series('query', 'a')).toBe(t.histogram.series('query', 'a'));
    t.histogram.observe({ type: 'query', name: 'a' }, 1);
    expect(t.histogram.series('query', 'a').count).toBe(1);
    expect(t.histogram.series('query', 'b')).not.toBe(t.histogram.series('query', 'a'));
  });

  it('refuses what prom-client refuses, naming the bad label or value', () => {
    const { t } = pair();
    expect(() => t.counter.inc({ route: '/', nope: 'x' } as never)).toThrow(
      'Added label "nope" is not included in initial labelset: method, route, status',
    );
    expect(() => t.counter.series('GET', '/', '200').inc(-1)).toThrow('It is not possible to decrease a counter');
    expect(() => t.histogram.series('query', 'a').observe(Number.NaN)).toThrow('Value is not a valid number: NaN');
    expect(
      () =>
        new TalliedCounter({ name: 'four', help: 'x', labelNames: ['a', 'b', 'c', 'd'], registers: [new Registry()] }),
    ).toThrow('at most three labels');
  });
});
