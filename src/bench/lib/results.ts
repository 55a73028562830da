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
}

export interface Sizes {
  /** Measured runs per figure; the figure is their median. */
  rounds: number;
  loadSeconds: number;
  connections: number;
  cacheOperations: number;
  streamRuns: number;
  streamTokens: number;
  /** Streams started at once for the time-to-first-token figure (its goal is stated for 100). */
  streamsTogether: number;
  concurrentSubscriptions: number;
}

/** Collects figures and notes as scenarios run. */
export class Results {
  readonly figures: Figure[] = [];
  readonly notes: Record<string, string[]> = {};

  add(f: Omit<Figure, 'ratio' | 'met' | 'goal'> & { goal?: string | null; met?: boolean | null; ratio?: number | null }): Figure {
    const ratio = f.ratio !== undefined ? f.ratio : f.gateway !== null && f.baseline !== null && f.baseline !== 0 ? f.gateway / f.baseline : null;
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
    };
    this.figures.push(figure);
    return figure;
  }

  note(scenario: string, text: string): void {
    (this.notes[scenario] ??= []).push(text);
  }
}
