import { Counter, Histogram, type CounterConfiguration, type HistogramConfiguration } from 'prom-client';

/**
 * Counters and histograms observed on every operation (the HTTP request's, the operation's, its cost, each upstream
 * request), kept here as plain numbers per series and handed to prom-client only when the registry is read (its
 * `collect` hook, before `/metrics` or `get()`). prom-client's own `inc`/`observe` validates the labels object, builds
 * a string key from it and allocates a closure and two objects per call: ≈ 1 µs and ≈ 150 bytes each, ten times per
 * operation (bench/PROFILE.md, tenth pass). The metric's name, help, labels, buckets and exposition stay prom-client's.
 *
 * A series is found by its label values in `labelNames` order ({@link TalliedCounter.series}), through one small Map
 * per label: they grow only with a new combination of values (routes, statuses, the capped operation names), never
 * per request. A hot path keeps the series it always uses.
 */

type Labels<L extends string> = Partial<Record<L, string>>;

/** The series of one metric by label values, at most three labels deep (every tallied metric has at most three). */
class SeriesIndex<S> {
  private readonly root = new Map<string | undefined, unknown>();
  private only: S | undefined;
  /** Every series, for the scrape. */
  readonly all: S[] = [];

  constructor(
    readonly names: readonly string[],
    private readonly make: (labels: Record<string, string>) => S,
  ) {
    if (names.length > 3) throw new Error(`a tallied metric takes at most three labels, not ${names.join(', ')}`);
  }

  find(a?: string, b?: string, c?: string): S {
    const depth = this.names.length;
    if (depth === 0) return (this.only ??= this.add({}));
    let level = this.root;
    if (depth > 1) level = this.level(level, a);
    if (depth > 2) level = this.level(level, b);
    const last = depth === 1 ? a : depth === 2 ? b : c;
    let series = level.get(last) as S | undefined;
    if (series === undefined) {
      series = this.add(this.labelsOf(a, b, c));
      level.set(last, series);
    }
    return series;
  }

  /** The values of a labels object in `names` order; a name the metric does not have is refused as prom-client does. */
  fromObject(labels: Labels<string> | undefined): S {
    if (!labels) return this.find();
    for (const name in labels) {
      if (!this.names.includes(name))
        throw new Error(`Added label "${name}" is not included in initial labelset: ${this.names.join(', ')}`);
    }
    const [a, b, c] = this.names;
    return this.find(a && labels[a], b && labels[b], c && labels[c]);
  }

  clear(): void {
    this.root.clear();
    this.only = undefined;
    this.all.length = 0;
  }

  private level(map: Map<string | undefined, unknown>, value: string | undefined): Map<string | undefined, unknown> {
    let next = map.get(value) as Map<string | undefined, unknown> | undefined;
    if (next === undefined) map.set(value, (next = new Map()));
    return next;
  }

  private add(labels: Record<string, string>): S {
    const series = this.make(labels);
    this.all.push(series);
    return series;
  }

  private labelsOf(a?: string, b?: string, c?: string): Record<string, string> {
    const labels: Record<string, string> = {};
    const values = [a, b, c];
    this.names.forEach((name, i) => {
      if (values[i] !== undefined) labels[name] = values[i];
    });
    return labels;
  }
}

/** One series of a {@link TalliedCounter}: what it gained since the last scrape. */
export class CounterSeries {
  pending = 0;
  constructor(readonly labels: Record<string, string>) {}

  inc(value = 1): void {
    // prom-client's own checks, at the same moment (the call), with its words.
    if (!Number.isFinite(value)) throw new TypeError(`Value is not a valid number: ${String(value)}`);
    if (value < 0) throw new Error('It is not possible to decrease a counter');
    this.pending += value;
  }
}

/** A prom-client counter whose increments are tallied per series and added to it when it is read. */
export class TalliedCounter<L extends string = string> {
  readonly metric: Counter<L>;
  private readonly index: SeriesIndex<CounterSeries>;

  constructor(config: Omit<CounterConfiguration<L>, 'collect'>) {
    this.index = new SeriesIndex(config.labelNames ?? [], (labels) => new CounterSeries(labels));
    const index = this.index;
    this.metric = new Counter<L>({
      ...config,
      collect() {
        for (const series of index.all) {
          if (series.pending === 0) continue;
          this.inc(series.labels as Labels<L>, series.pending);
          series.pending = 0;
        }
      },
    });
  }

  /** The series of these label values, in `labelNames` order: kept by a caller that always counts the same one. */
  series(a?: string, b?: string, c?: string): CounterSeries {
    return this.index.find(a, b, c);
  }

  /** As prom-client's `inc`: by a labels object. */
  inc(labels?: Labels<L>, value = 1): void {
    this.index.fromObject(labels).inc(value);
  }

  get(): ReturnType<Counter<L>['get']> {
    return this.metric.get();
  }
}

/** One series of a {@link TalliedHistogram}: its count per bucket (not cumulative), sum and count since start. */
export class HistogramSeries {
  sum = 0;
  count = 0;
  readonly counts: number[];

  constructor(
    readonly labels: Record<string, string>,
    private readonly bounds: readonly number[],
  ) {
    this.counts = bounds.map(() => 0);
  }

  observe(value: number): void {
    if (!Number.isFinite(value)) throw new TypeError(`Value is not a valid number: ${String(value)}`);
    const bounds = this.bounds;
    let i = 0;
    while (i < bounds.length && value > bounds[i]) i++;
    // Above the last bound: only the count (+Inf) and the sum have it, as in prom-client.
    if (i < bounds.length) this.counts[i]++;
    this.sum += value;
    this.count++;
  }
}

/** The entries prom-client 15's histogram exports from (`hashMap`, what its `observe` writes and `get` reads). */
interface HistogramEntries {
  hashMap: Record<
    string,
    { labels: Record<string, string>; bucketValues: Record<number, number>; sum: number; count: number }
  >;
}

/** A prom-client histogram whose observations are tallied per series and written into it when it is read. */
export class TalliedHistogram<L extends string = string> {
  readonly metric: Histogram<L>;
  private readonly index: SeriesIndex<HistogramSeries>;

  constructor(config: Omit<HistogramConfiguration<L>, 'collect'> & { buckets: number[] }) {
    const bounds = config.buckets;
    this.index = new SeriesIndex(config.labelNames ?? [], (labels) => new HistogramSeries(labels, bounds));
    const index = this.index;
    this.metric = new Histogram<L>({
      ...config,
      collect() {
        // The tallies are the whole state: prom-client's entries are rebuilt from them, then exported by its own code.
        const hashMap: HistogramEntries['hashMap'] = {};
        index.all.forEach((series, i) => {
          const bucketValues: Record<number, number> = {};
          bounds.forEach((bound, b) => (bucketValues[bound] = series.counts[b]));
          hashMap[i] = { labels: series.labels, bucketValues, sum: series.sum, count: series.count };
        });
        (this as unknown as HistogramEntries).hashMap = hashMap;
      },
    });
    // prom-client shows an unlabelled histogram's zeros before any observation.
    if (this.index.names.length === 0) this.index.find();
  }

  /** The series of these label values, in `labelNames` order: kept by a caller that always observes the same one. */
  series(a?: string, b?: string, c?: string): HistogramSeries {
    return this.index.find(a, b, c);
  }

  /** As prom-client's `observe`: by a labels object. */
  observe(labels: Labels<L>, value: number): void {
    this.index.fromObject(labels).observe(value);
  }

  get(): ReturnType<Histogram<L>['get']> {
    return this.metric.get();
  }
}
