/** The shape of one benchmark scenario module. */
import type { Output } from "./report.js"

/** What every scenario gets. */
export interface Context {
  /** Few iterations: for developing the bench, not for recording numbers. */
  readonly quick: boolean
  /** Repeated runs of a targeted scenario (each interleaved with its baselines): 1 with --quick, else 5. */
  readonly runs: number
  /** Progress to standard error. */
  readonly log: (line: string) => void
}

/**
 * The samples one run takes of a measurement sized `n` for a single run: over repeated runs, each run
 * takes `2n / runs` (at least `min`), so that the runs together take twice the samples of one run
 * rather than `runs` times, and the whole bench stays within its time bound.
 */
export const perRun = (ctx: Context, n: number, min = 2): number =>
  ctx.runs > 1 ? Math.max(min, Math.ceil((n * 2) / ctx.runs)) : n

/** A scenario that is set up once and then measured on each repeated run. */
export interface Prepared {
  /** One run's measurement; `index` counts from 0 to `ctx.runs - 1`. */
  readonly run: (index: number) => Promise<Output>
  readonly dispose: () => Promise<void>
}

/**
 * A scenario module exports `run` (the whole scenario, run once per repeated run) or `prepare` (its
 * set-up and warm-up once, then each repeated run measures on the warm set-up).
 */
export type ScenarioModule =
  | { readonly run: (ctx: Context) => Promise<Output> }
  | { readonly prepare: (ctx: Context) => Promise<Prepared> }

/** A scenario of the issue, loaded lazily so that one whose packages are missing does not stop the rest. */
export interface Scenario {
  readonly id: number
  readonly title: string
  readonly load: () => Promise<ScenarioModule>
}
