/**
 * `pnpm --filter @mcp-resources/bench gc-churn`: the measurements behind BENCHMARKS.md's "Where the
 * app-server's GC time goes, and why" (an old `Map`/`Set` table that is rehashed leaves an unreachable
 * old copy that still points at its entries, which the scavenger keeps alive). 64 concurrent loops; each iteration allocates a request object holding some
 * garbage, registers it in a tracking structure, waits one `setImmediate`, and unregisters it. The
 * structure differs per variant and is aged into the old generation before the load starts (as a
 * process's long-lived tables are); each variant runs in a fresh process (the GC state is per
 * process) under `--trace-gc --trace-gc-nvp`, and the parent reads the scavenges' `promoted=` bytes.
 * The results depend on V8 heuristics: the warm-up below is part of the measured setup (with one that
 * does not call `garbage()`, the array variant promoted as well).
 *
 * Variants: `array` (swap-remove, the baseline), `set` and `map` (one long-lived table, an add and a
 * delete per iteration), and two without tracking of our own: `promise` (a plain promise per
 * iteration) and `effect-fiber` (`Effect.runPromise(Effect.async(...))`, where Effect's runtime adds
 * every root fiber to a global `Set`). Prints iterations per second, the ratio to the baseline of its
 * pair, and the mean promoted bytes per scavenge.
 */
import { spawnSync } from "node:child_process"
import { fileURLToPath } from "node:url"
import { Effect } from "effect"

const variants = ["array", "set", "map", "promise", "effect-fiber"] as const
type Variant = (typeof variants)[number]
const loops = 64
const seconds = 2

interface Request {
  readonly id: number
  readonly garbage: ReadonlyArray<{ readonly i: number; readonly s: string }>
  more: ReadonlyArray<{ readonly i: number; readonly s: string }> | undefined
  index: number
}

/** Where a variant registers its requests in flight. */
interface Tracker {
  readonly add: (request: Request) => void
  readonly remove: (request: Request) => void
}

const garbage = () => Array.from({ length: 60 }, (_, i) => ({ i, s: `x${i}` }))
const tick = () => new Promise<void>((resolve) => setImmediate(resolve))

const arrayTracker = (): Tracker => {
  const array: Array<Request> = []
  return {
    add: (request) => {
      request.index = array.push(request) - 1
    },
    remove: (request) => {
      const last = array.pop()!
      if (last === request) return
      array[request.index] = last
      last.index = request.index
    }
  }
}

const setTracker = (): Tracker => {
  const set = new Set<Request>()
  return { add: (request) => set.add(request), remove: (request) => set.delete(request) }
}

const mapTracker = (): Tracker => {
  const map = new Map<number, Request>()
  return { add: (request) => map.set(request.id, request), remove: (request) => map.delete(request.id) }
}

/** One iteration of a variant. */
const stepOf = (variant: Variant): (() => Promise<unknown>) => {
  if (variant === "promise") return tick
  if (variant === "effect-fiber") {
    const fiber = Effect.async<void>((resume) => {
      setImmediate(() => resume(Effect.void))
    })
    return () => Effect.runPromise(fiber)
  }
  const tracker = variant === "array" ? arrayTracker() : variant === "map" ? mapTracker() : setTracker()
  let ids = 0
  return async () => {
    const request: Request = { id: ++ids, garbage: garbage(), more: undefined, index: -1 }
    tracker.add(request)
    await tick()
    request.more = garbage()
    tracker.remove(request)
  }
}

/** Runs one variant in this process; returns the iterations done in `seconds`. */
const runVariant = async (variant: Variant): Promise<number> => {
  const step = stepOf(variant)
  // The tracking structures of a real process live long: let a few scavenges pass before the load, so
  // that they (and their tables) are in the old generation when it starts, as they would be. The
  // warm-up also runs the per-request allocation (see the header).
  for (let i = 0; i < 64; i++) garbage().concat(Array.from({ length: 20_000 }, (_, j) => ({ i: j, s: "" })))
  const deadline = Date.now() + seconds * 1000
  let iterations = 0
  await Promise.all(
    Array.from({ length: loops }, async () => {
      while (Date.now() < deadline) {
        await step()
        iterations++
      }
    })
  )
  return iterations
}

/** The mean `promoted=` bytes of the last scavenges in a `--trace-gc-nvp` output, and the mark-compacts. */
const promotion = (trace: string): { promotedMiB: number; markCompacts: number } => {
  const lines = trace.split("\n")
  const scavenges = lines.filter((line) => line.includes(" gc=s ")).slice(-60)
  const promoted = scavenges.map((line) => Number(/ promoted=(\d+)/.exec(line)?.[1] ?? 0))
  const mean = promoted.length === 0 ? 0 : promoted.reduce((a, b) => a + b, 0) / promoted.length
  return { promotedMiB: mean / 2 ** 20, markCompacts: lines.filter((line) => line.includes(" gc=mc ")).length }
}

const child = process.argv.indexOf("--variant")
if (child >= 0) {
  const variant = process.argv[child + 1] as Variant
  const iterations = await runVariant(variant)
  process.stdout.write(`RESULT ${JSON.stringify({ variant, iterations })}\n`)
} else {
  const self = fileURLToPath(import.meta.url)
  const results = new Map<Variant, { perSecond: number; promotedMiB: number; markCompacts: number }>()
  for (const variant of variants) {
    const run = spawnSync(process.execPath, ["--trace-gc", "--trace-gc-nvp", self, "--variant", variant], {
      encoding: "utf8",
      maxBuffer: 256 * 2 ** 20,
      timeout: 60_000
    })
    const line = run.stdout.split("\n").find((l) => l.startsWith("RESULT "))
    if (run.status !== 0 || line === undefined) {
      process.stderr.write(`variant ${variant} failed (status ${run.status}): ${run.stderr.slice(-500)}\n`)
      process.exit(1)
    }
    const { iterations } = JSON.parse(line.slice("RESULT ".length)) as { iterations: number }
    results.set(variant, { perSecond: iterations / seconds, ...promotion(run.stdout) })
  }
  const baselineOf = (variant: Variant): Variant =>
    variant === "promise" || variant === "effect-fiber" ? "promise" : "array"
  process.stdout.write(
    `gc-churn: ${loops} loops, ${seconds} s per variant, node ${process.version}\n\n` +
      "variant        iterations/s  vs baseline  promoted per scavenge  mark-compacts (process)\n"
  )
  for (const [variant, r] of results) {
    const base = results.get(baselineOf(variant))!
    process.stdout.write(
      `${variant.padEnd(13)}  ${r.perSecond.toFixed(0).padStart(12)}  ${(r.perSecond / base.perSecond).toFixed(2).padStart(10)}x  ${r.promotedMiB.toFixed(2).padStart(17)} MiB  ${String(r.markCompacts).padStart(13)}\n`
    )
  }
}
