// Small statistics for benchmark samples.

/** The q-quantile (0..1) of the samples by nearest rank; NaN when there are none. */
export function quantile(samples, q) {
  if (samples.length === 0) return Number.NaN;
  const sorted = Float64Array.from(samples).sort();
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[rank];
}

/** p50, p99 and count of latency samples in ms. */
export function latencySummary(samples) {
  return { p50: quantile(samples, 0.5), p99: quantile(samples, 0.99), count: samples.length };
}
