/**
 * Runs a scenario's tasks interleaved on tinybench: the iterations are split into rounds and every
 * round runs every task (tinybench measures each block), so that a baseline and our code see the same
 * machine state (other processes, GC pressure, thermal state). Warm-up runs in the first round.
 */
import { Bench } from "tinybench"
import { summarize, type Summary } from "./stats.js"

/**
 * One measured task. `sync` tasks are timed without a promise around them. A task may return
 * tinybench's `{overriddenDuration}` (ms) when only part of its work is the measured interval.
 */
export interface TaskDef {
  readonly name: string
  readonly fn: () => unknown
  readonly sync?: boolean
  /** This task's share of the iterations (default 1): a slow baseline can take fewer samples. */
  readonly weight?: number
}

/** How many samples, in how many rounds, after how much warm-up. */
export interface RunOptions {
  readonly iterations: number
  readonly rounds: number
  readonly warmupIterations: number
}

/** The per-task samples (ms) and their summary. */
export interface Measured {
  readonly name: string
  readonly samples: ReadonlyArray<number>
  readonly summary: Summary
}

const runOne = async (task: TaskDef, iterations: number, warmupIterations: number): Promise<Array<number>> => {
  const bench = new Bench({
    iterations,
    time: 0,
    warmup: warmupIterations > 0,
    warmupIterations,
    warmupTime: 0,
    throws: true
  })
  // tinybench probes a non-async function by calling it once; declare the kind explicitly instead.
  const fn = task.fn
  bench.add(
    task.name,
    task.sync === true
      ? function syncTask() {
          return fn()
        }
      : async () => await fn()
  )
  await bench.run()
  const result = bench.tasks[0]?.result
  if (result === undefined) throw new Error(`task ${task.name} produced no result`)
  if (result.error !== undefined) throw result.error
  return [...result.latency.samples]
}

/**
 * Runs `tasks` interleaved: `rounds` rounds, each running every task for its share of the iterations
 * (the task order reverses every other round); warm-up happens in the first round. Returns each task's
 * samples, in the order given.
 */
export const interleaved = async (tasks: ReadonlyArray<TaskDef>, options: RunOptions): Promise<Array<Measured>> => {
  const samples = new Map<string, Array<number>>(tasks.map((t) => [t.name, []]))
  for (let round = 0; round < options.rounds; round++) {
    const order = round % 2 === 0 ? tasks : [...tasks].reverse()
    for (const task of order) {
      const total = Math.max(1, Math.round(options.iterations * (task.weight ?? 1)))
      const perRound = Math.max(1, Math.ceil(total / options.rounds))
      const warmup = round === 0 ? Math.max(1, Math.round(options.warmupIterations * (task.weight ?? 1))) : 0
      samples.get(task.name)!.push(...(await runOne(task, perRound, warmup)))
    }
  }
  return tasks.map((t) => {
    const s = samples.get(t.name)!
    return { name: t.name, samples: s, summary: summarize(s) }
  })
}

const gc = (): void => {
  const g = (globalThis as { gc?: () => void }).gc
  if (g === undefined) throw new Error("run node with --expose-gc (main.ts re-executes itself with it)")
  g()
  g()
}

/** heapUsed + external + arrayBuffers, as the benchmark issue defines the memory figure. */
export const memoryNow = (): number => {
  const m = process.memoryUsage()
  return m.heapUsed + m.external + m.arrayBuffers
}

/** heapUsed + external: Node's `external` already includes `arrayBuffers`, so this counts them once. */
export const memoryOnce = (): number => {
  const m = process.memoryUsage()
  return m.heapUsed + m.external
}

/**
 * The peak memory of one call: the max of {@link memoryNow} sampled on every event-loop turn while it
 * runs and once after it returns (before any forced GC, so garbage it left is counted), minus the
 * value before it started, after a forced GC.
 */
export const peakMemory = async (fn: () => unknown, measure: () => number = memoryNow): Promise<number> => {
  gc()
  const base = measure()
  let peak = base
  let running = true
  const poll = (): void => {
    const now = measure()
    if (now > peak) peak = now
    if (running) setImmediate(poll)
  }
  setImmediate(poll)
  await fn()
  running = false
  peak = Math.max(peak, measure())
  return peak - base
}

/** The median peak memory over `runs` calls (by default with the definition, {@link memoryNow}). */
export const medianPeakMemory = async (
  fn: () => unknown,
  runs: number,
  measure: () => number = memoryNow
): Promise<number> => {
  const values: Array<number> = []
  for (let i = 0; i < runs; i++) values.push(await peakMemory(fn, measure))
  values.sort((a, b) => a - b)
  return values[Math.floor(values.length / 2)]!
}
