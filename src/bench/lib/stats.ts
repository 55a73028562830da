/** Median of a non-empty list (mean of the middle two for even lengths). */
export function median(values: readonly number[]): number {
  if (values.length === 0) return NaN;
  const s = [...values].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
}

/** Nearest-rank percentile, p in 0..100. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return NaN;
  const s = [...values].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))];
}

/** Rounds for display and JSON: 3 significant digits below 100, whole numbers above. */
export function round(n: number): number {
  if (!Number.isFinite(n)) return n;
  if (Math.abs(n) >= 100) return Math.round(n);
  return Number(n.toPrecision(3));
}
