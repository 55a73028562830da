import type { WarmUp } from './load.js';
import type { Runtime } from './runtimes.js';
import { round } from './stats.js';

/** One figure of results.json: ours, the baseline's from the same run, their ratio and the goal. */
export interface Figure {
  name: string;
  metric: string;
  unit: string;
  gateway: number | null;
  baseline: number | null;
  baselineName: string;
  /** gateway / baseline */
  ratio: number | null;
  goal: string | null;
  met: boolean | null;
  /** The Node version the measured processes ran on (`v24.21.0`); the figure and its baseline share it. */
  runtime: string;
}

export interface Sizes {
  /** Measured runs per figure; the figure is their median. */
  rounds: number;
  loadSeconds: number;
  /** How each load run's target is warmed up: until its CPU per request is steady, at most so long (`warmUp` in load.ts). */
  warmUp: WarmUp;
  connections: number;
  cacheOperations: number;
  streamRuns: number;
  streamTokens: number;
  /** Streams started at once for the time-to-first-token figure (its goal is stated for 100). */
  streamsTogether: number;
  concurrentSubscriptions: number;
  /** Live-health fan-out: subscribers in all, spread over `fanOutConnections` graphql-ws connections. */
  fanOutSubscribers: number;
  fanOutConnections: number;
}

/** Collects figures and notes as scenarios run, one pass per runtime. */
export class Results {
  readonly figures: Figure[] = [];
  /** The runtimes measured, in the order of their passes. */
  readonly runtimes: Runtime[] = [];
  /** Per scenario, each distinct note and the passes that noted it. */
  private readonly noted = new Map<string, Map<string, Set<string>>>();

  /** Figures and notes from now on are the pass on `runtime`'s. */
  startPass(runtime: Runtime): void {
    this.runtimes.push(runtime);
  }

  private get runtime(): Runtime | undefined {
    return this.runtimes.at(-1);
  }

  add(
    f: Omit<Figure, 'ratio' | 'met' | 'goal' | 'runtime'> & {
      goal?: string | null;
      met?: boolean | null;
      ratio?: number | null;
    },
  ): Figure {
    const ratio =
      f.ratio !== undefined
        ? f.ratio
        : f.gateway !== null && f.baseline !== null && f.baseline !== 0
          ? f.gateway / f.baseline
          : null;
    const figure: Figure = {
      name: f.name,
      metric: f.metric,
      unit: f.unit,
      gateway: f.gateway === null ? null : round(f.gateway),
      baseline: f.baseline === null ? null : round(f.baseline),
      baselineName: f.baselineName,
      ratio: ratio === null ? null : round(ratio),
      goal: f.goal ?? null,
      met: f.met ?? null,
      runtime: this.runtime?.version ?? process.version,
    };
    this.figures.push(figure);
    return figure;
  }

  note(scenario: string, text: string): void {
    let texts = this.noted.get(scenario);
    if (!texts) this.noted.set(scenario, (texts = new Map()));
    let passes = texts.get(text);
    if (!passes) texts.set(text, (passes = new Set()));
    passes.add(this.runtime?.label ?? process.version);
  }

  /** Notes by scenario: words every pass noted once, the others with the runtimes that noted them. */
  get notes(): Record<string, string[]> {
    const all = Math.max(1, this.runtimes.length);
    return Object.fromEntries(
      [...this.noted].map(([scenario, texts]) => [
        scenario,
        [...texts].map(([text, passes]) => (passes.size === all ? text : `(${[...passes].join(', ')}) ${text}`)),
      ]),
    );
  }
}
