/** Order statistics over latency samples (milliseconds). */

/** The q-quantile (0..1) of ascending samples, with linear interpolation (tinybench's definition). */
export const quantileSorted = (sorted: ReadonlyArray<number>, q: number): number => {
  if (sorted.length === 0) return Number.NaN
  const pos = (sorted.length - 1) * q
  const lo = Math.floor(pos)
  const a = sorted[lo]!
  const b = sorted[lo + 1]
  return b === undefined ? a : a + (pos - lo) * (b - a)
}

/** Median, p95, p99 and count of unsorted samples. */
export interface Summary {
  readonly n: number
  readonly median: number
  readonly p95: number
  readonly p99: number
  readonly min: number
}

/** Summarises unsorted samples. */
export const summarize = (samples: ReadonlyArray<number>): Summary => {
  const sorted = [...samples].sort((a, b) => a - b)
  return {
    n: sorted.length,
    median: quantileSorted(sorted, 0.5),
    p95: quantileSorted(sorted, 0.95),
    p99: quantileSorted(sorted, 0.99),
    min: sorted[0] ?? Number.NaN
  }
}

/** Median of unsorted samples. */
export const median = (samples: ReadonlyArray<number>): number => summarize(samples).median

/** A duration in ms, human-sized. */
export const fmtMs = (ms: number): string =>
  Number.isNaN(ms)
    ? "-"
    : ms >= 1000
      ? `${(ms / 1000).toFixed(2)} s`
      : ms >= 1
        ? `${ms.toFixed(2)} ms`
        : `${(ms * 1000).toFixed(1)} µs`

/** A byte count, human-sized. */
export const fmtBytes = (bytes: number | undefined): string => {
  if (bytes === undefined || Number.isNaN(bytes)) return "-"
  const abs = Math.abs(bytes)
  if (abs >= 1024 * 1024) return `${(bytes / 1024 / 1024).toFixed(1)} MiB`
  if (abs >= 1024) return `${(bytes / 1024).toFixed(1)} KiB`
  return `${Math.round(bytes)} B`
}
