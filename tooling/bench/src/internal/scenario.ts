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

/** A scenario module exports `run`. */
export interface ScenarioModule {
  readonly run: (ctx: Context) => Promise<Output>
}

/** A scenario of the issue, loaded lazily so that one whose packages are missing does not stop the rest. */
export interface Scenario {
  readonly id: number
  readonly title: string
  readonly load: () => Promise<ScenarioModule>
}
