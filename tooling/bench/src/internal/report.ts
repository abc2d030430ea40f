/** What a scenario reports: table rows for people, result records for `results.json`. */
import type { Measured } from "./harness.js"
import { fmtBytes, fmtMs } from "./stats.js"

/** One line of the printed table. */
export interface Row {
  readonly scenario: string
  readonly task: string
  readonly n?: number
  readonly median?: number
  readonly p95?: number
  /** The ratio of this task's median to the scenario's baseline median. */
  readonly ratio?: number
  readonly ratioLabel?: string
  readonly memory?: number | undefined
  readonly extra?: string
  /** The ratio over repeated runs (each run its own ratio of medians): min / median / max. */
  readonly spread?: Spread
}

/** Min / median / max of a figure over repeated runs. */
export interface Spread {
  readonly runs: number
  readonly min: number
  readonly median: number
  readonly max: number
}

/** The spread of per-run values. */
export const spreadOf = (values: ReadonlyArray<number>): Spread => {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = sorted.length / 2
  return {
    runs: sorted.length,
    min: sorted[0] ?? Number.NaN,
    median: sorted.length % 2 === 1 ? sorted[Math.floor(mid)]! : (sorted[mid - 1]! + sorted[mid]!) / 2,
    max: sorted[sorted.length - 1] ?? Number.NaN
  }
}

const fmtSpread = (s: Spread | undefined): string =>
  s === undefined || s.runs < 2 ? "" : ` [${s.min.toFixed(2)}-${s.max.toFixed(2)}, ${s.runs} runs]`

/** The row of a measured task: its median and p95, and its ratio to the scenario's baseline median. */
export const rowOf = (
  scenario: string,
  measured: Measured,
  base: number,
  more: Pick<Row, "ratioLabel" | "memory" | "extra"> = {}
): Row => ({
  scenario,
  task: measured.name,
  n: measured.summary.n,
  median: measured.summary.median,
  p95: measured.summary.p95,
  ratio: measured.summary.median / base,
  ...more
})

/** One record of `results.json`: `target` like `"<= 1.5"`, null for figures reported for information. */
export interface Result {
  readonly name: string
  readonly metric: string
  readonly value: number
  readonly target: string | null
  readonly met: boolean | null
  /** Over repeated runs: `value` is the median of the runs' values, these are the extremes. */
  readonly runs?: number
  readonly min?: number
  readonly max?: number
}

/** A scenario's whole output. */
export interface Output {
  readonly rows: ReadonlyArray<Row>
  readonly results: ReadonlyArray<Result>
  readonly notes: ReadonlyArray<string>
}

/** A target check: `value <= bound`. */
export const atMost = (name: string, metric: string, value: number, bound: number): Result => ({
  name,
  metric,
  value: round(value),
  target: `<= ${bound}`,
  met: value <= bound
})

/** A target check: `value >= bound`. */
export const atLeast = (name: string, metric: string, value: number, bound: number): Result => ({
  name,
  metric,
  value: round(value),
  target: `>= ${bound}`,
  met: value >= bound
})

/** A target check: `value === bound` (a count that must come out exact). */
export const exactly = (name: string, metric: string, value: number, bound: number): Result => ({
  name,
  metric,
  value: round(value),
  target: `= ${bound}`,
  met: value === bound
})

/**
 * A target check over repeated runs: `median(values) <= bound` ("met" is decided on the median), with
 * the min and max of the runs recorded.
 */
export const atMostOverRuns = (name: string, metric: string, values: ReadonlyArray<number>, bound: number): Result => {
  const s = spreadOf(values)
  return {
    name,
    metric,
    value: round(s.median),
    target: `<= ${bound}`,
    met: s.median <= bound,
    runs: s.runs,
    min: round(s.min),
    max: round(s.max)
  }
}

/** A figure without a target, over repeated runs (median, with min and max). */
export const infoOverRuns = (name: string, metric: string, values: ReadonlyArray<number>): Result => {
  const s = spreadOf(values)
  return {
    name,
    metric,
    value: round(s.median),
    target: null,
    met: null,
    runs: s.runs,
    min: round(s.min),
    max: round(s.max)
  }
}

/** A figure without a target. */
export const info = (name: string, metric: string, value: number): Result => ({
  name,
  metric,
  value: round(value),
  target: null,
  met: null
})

/** Four significant digits are plenty for a benchmark figure. */
export const round = (n: number): number => (Number.isFinite(n) ? Number(n.toPrecision(4)) : n)

const pad = (s: string, width: number, right = false) => (right ? s.padStart(width) : s.padEnd(width))

/** The table of every row, as text. */
export const renderTable = (rows: ReadonlyArray<Row>): string => {
  const header = ["scenario", "task", "n", "median", "p95", "ratio", "memory", "notes"]
  const cells = rows.map((r) => [
    r.scenario,
    r.task,
    r.n === undefined ? "" : String(r.n),
    r.median === undefined ? "" : fmtMs(r.median),
    r.p95 === undefined ? "" : fmtMs(r.p95),
    r.ratio === undefined
      ? ""
      : `${r.ratio.toFixed(2)}x${r.ratioLabel ? ` ${r.ratioLabel}` : ""}${fmtSpread(r.spread)}`,
    r.memory === undefined ? "" : fmtBytes(r.memory),
    r.extra ?? ""
  ])
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i]!.length)))
  const right = [false, false, true, true, true, false, true, false]
  const line = (c: ReadonlyArray<string>) =>
    c
      .map((s, i) => pad(s, widths[i]!, right[i]))
      .join("  ")
      .trimEnd()
  return [line(header), line(widths.map((w) => "-".repeat(w))), ...cells.map(line)].join("\n")
}

const runsText = (r: Result): string =>
  r.runs === undefined ? "" : ` (median of ${r.runs} runs; min ${r.min}, max ${r.max})`

/** The result records, as text. */
export const renderResults = (results: ReadonlyArray<Result>): string =>
  results
    .map(
      (r) =>
        `${r.met === null ? "   info" : r.met ? "    MET" : " MISSED"}  ${r.name}: ${r.metric} = ${r.value}${runsText(r)}${r.target === null ? "" : ` (target ${r.target})`}`
    )
    .join("\n")

/** The table, the target checks and the notes as Markdown (for BENCHMARKS.md). */
export const renderMarkdown = (
  rows: ReadonlyArray<Row>,
  results: ReadonlyArray<Result>,
  notes: ReadonlyArray<string>
): string => {
  const esc = (s: string) => s.replace(/\|/g, "\\|")
  const table = [
    "| scenario | task | n | median | p95 | ratio | memory | notes |",
    "| --- | --- | ---: | ---: | ---: | --- | ---: | --- |",
    ...rows.map(
      (r) =>
        `| ${esc(r.scenario)} | ${esc(r.task)} | ${r.n ?? ""} | ${r.median === undefined ? "" : fmtMs(r.median)} | ${r.p95 === undefined ? "" : fmtMs(r.p95)} | ${r.ratio === undefined ? "" : `${r.ratio.toFixed(2)}x${r.ratioLabel ? ` ${r.ratioLabel}` : ""}${fmtSpread(r.spread)}`} | ${r.memory === undefined ? "" : fmtBytes(r.memory)} | ${esc(r.extra ?? "")} |`
    )
  ].join("\n")
  const checks = [
    "| result | metric | value (median of runs) | min - max (runs) | target | met |",
    "| --- | --- | ---: | --- | --- | --- |",
    ...results.map(
      (r) =>
        `| ${esc(r.name)} | ${esc(r.metric)} | ${r.value} | ${r.runs === undefined ? "1 run" : `${r.min} - ${r.max} (${r.runs})`} | ${r.target ?? ""} | ${r.met === null ? "info" : r.met ? "**met**" : "**missed**"} |`
    )
  ].join("\n")
  return `${table}\n\n${checks}\n${notes.length === 0 ? "" : `\n${notes.map((n) => `- ${esc(n)}`).join("\n")}\n`}`
}
