/**
 * `pnpm bench`: runs the scenarios of the benchmark issue, prints the table and the target checks, and
 * writes `tooling/bench/results.json`. Flags: `--quick` (few iterations, for developing; does not
 * write results.json), `--only 1,3` (scenario numbers), `--out FILE`, `--markdown FILE` (the table as
 * Markdown, for BENCHMARKS.md), `--runs N` (repeated runs of every targeted scenario: 5, 1 with
 * `--quick`).
 */
import { spawnSync } from "node:child_process"
import * as Fs from "node:fs"
import * as Os from "node:os"
import { fileURLToPath } from "node:url"
import type { Context, Prepared, Scenario } from "./internal/scenario.js"
import {
  type Output,
  type Result,
  type Row,
  renderMarkdown,
  renderResults,
  renderTable,
  round,
  spreadOf
} from "./internal/report.js"

// The memory scenario needs a forced GC: re-execute this script once with --expose-gc.
if ((globalThis as { gc?: unknown }).gc === undefined) {
  const child = spawnSync(
    process.execPath,
    ["--expose-gc", ...process.execArgv, fileURLToPath(import.meta.url), ...process.argv.slice(2)],
    {
      stdio: "inherit"
    }
  )
  process.exit(child.status ?? 1)
}

const args = process.argv.slice(2)
const flag = (name: string): string | undefined => {
  const i = args.findIndex((a) => a === name || a.startsWith(`${name}=`))
  if (i < 0) return undefined
  const a = args[i]!
  return a.includes("=") ? a.slice(a.indexOf("=") + 1) : (args[i + 1] ?? "")
}
const quick = args.includes("--quick")
const only = flag("--only")
  ?.split(",")
  .map((s) => Number(s.trim()))
  .filter((n) => Number.isInteger(n))
const out = flag("--out") ?? (quick ? undefined : fileURLToPath(new URL("../results.json", import.meta.url)))

/**
 * Scenarios that do not repeat themselves run `ctx.runs` times, each run interleaved with its
 * baselines as before: a scenario with `prepare` is set up and warmed once and measured on each run,
 * the others run whole each time, with `perRun` samples. Their results are merged here: a figure's
 * value is the median of the runs' values, with min and max, and a target is decided on that median. The rows are the last run's, with
 * the spread of each row's ratio over the runs.
 */
const selfRepeating = new Set([5, 10, 11, 12, 15])

const decide = (target: string | null, value: number): boolean | null => {
  if (target === null) return null
  const [op, bound] = target.split(" ")
  return op === "<="
    ? value <= Number(bound)
    : op === ">="
      ? value >= Number(bound)
      : op === "="
        ? value === Number(bound)
        : null
}

const merge = (outputs: ReadonlyArray<Output>): Output => {
  if (outputs.length === 1) return outputs[0]!
  const last = outputs[outputs.length - 1]!
  const results = last.results.map((r): Result => {
    const values = outputs
      .map((o) => o.results.find((x) => x.name === r.name && x.metric === r.metric)?.value)
      .filter((v): v is number => v !== undefined && Number.isFinite(v))
    const s = spreadOf(values)
    return {
      ...r,
      value: round(s.median),
      met: decide(r.target, s.median),
      runs: s.runs,
      min: round(s.min),
      max: round(s.max)
    }
  })
  const rows = last.rows.map((row): Row => {
    const ratios = outputs
      .map((o) => o.rows.find((x) => x.scenario === row.scenario && x.task === row.task)?.ratio)
      .filter((v): v is number => v !== undefined && Number.isFinite(v))
    return ratios.length > 1 ? { ...row, spread: spreadOf(ratios) } : row
  })
  return { rows, results, notes: outputs.flatMap((o, i) => o.notes.map((n) => `run ${i + 1}: ${n}`)) }
}

/** The scenarios, in the issue's priority order; each module is loaded only when it runs. */
const scenarios: ReadonlyArray<Scenario> = [
  { id: 1, title: "tool overhead", load: () => import("./scenarios/toolOverhead.js") },
  { id: 3, title: "large payloads", load: () => import("./scenarios/largePayload.js") },
  { id: 2, title: "fan-out", load: () => import("./scenarios/fanOut.js") },
  { id: 5, title: "resume", load: () => import("./scenarios/resume.js") },
  { id: 4, title: "app-server throughput", load: () => import("./scenarios/appServer.js") },
  { id: 6, title: "start-up", load: () => import("./scenarios/startup.js") },
  { id: 7, title: "bundled start-up", load: () => import("./scenarios/bundledStartup.js") },
  { id: 8, title: "cache", load: () => import("./scenarios/cache.js") },
  { id: 9, title: "extended windows", load: () => import("./scenarios/extendedWindows.js") },
  { id: 10, title: "peers: aggregate listing", load: () => import("./scenarios/peerListing.js") },
  { id: 11, title: "peers: reads", load: () => import("./scenarios/peerReads.js") },
  { id: 12, title: "peers: many servers", load: () => import("./scenarios/manyServers.js") },
  { id: 13, title: "resource search", load: () => import("./scenarios/resourceSearch.js") },
  { id: 14, title: "what changed", load: () => import("./scenarios/whatChanged.js") },
  { id: 15, title: "change detection", load: () => import("./scenarios/changeDetection.js") },
  { id: 16, title: "many app-servers as one", load: () => import("./scenarios/cluster.js") }
]

const cpuModel = (): string => Os.cpus()[0]?.model ?? "unknown CPU"
const runsFlag = Number(flag("--runs"))
const runs = Number.isInteger(runsFlag) && runsFlag > 0 ? runsFlag : quick ? 1 : 5
const ctx: Context = { quick, runs, log: (line) => process.stderr.write(`${line}\n`) }

const main = async (): Promise<void> => {
  ctx.log(
    `mcp-resources bench: node ${process.version}, ${Os.cpus().length} x ${cpuModel()}, ${(Os.totalmem() / 2 ** 30).toFixed(1)} GiB${quick ? " (quick)" : ""}`
  )
  const rows: Array<Row> = []
  const results: Array<Result> = []
  const notes: Array<string> = []
  for (const scenario of scenarios) {
    if (only !== undefined && !only.includes(scenario.id)) continue
    const label = `${scenario.id}. ${scenario.title}`
    ctx.log(`\n== ${label}`)
    const started = performance.now()
    try {
      const module = await scenario.load()
      const outputs: Array<Output> = []
      const times = selfRepeating.has(scenario.id) ? 1 : ctx.runs
      // a scenario without `prepare` is run whole on every run
      const prepared: Prepared =
        "prepare" in module ? await module.prepare(ctx) : { run: () => module.run(ctx), dispose: async () => {} }
      try {
        for (let r = 0; r < times; r++) {
          if (times > 1) ctx.log(`   -- run ${r + 1} of ${times}`)
          outputs.push(await prepared.run(r))
        }
      } finally {
        await prepared.dispose()
      }
      const output = merge(outputs)
      rows.push(...output.rows)
      results.push(...output.results)
      notes.push(...output.notes.map((n) => `${scenario.id}: ${n}`))
    } catch (error) {
      const reason = error instanceof Error ? error.message.split("\n")[0]! : String(error)
      ctx.log(`   not run: ${reason}`)
      rows.push({ scenario: label, task: "NOT RUN", extra: reason })
      notes.push(`${scenario.id}: not run: ${reason}`)
    }
    ctx.log(`   (${((performance.now() - started) / 1000).toFixed(1)} s)`)
  }
  process.stdout.write(`\n${renderTable(rows)}\n\n${renderResults(results)}\n`)
  if (notes.length > 0) process.stdout.write(`\nnotes:\n${notes.map((n) => `  ${n}`).join("\n")}\n`)
  const markdown = flag("--markdown")
  if (markdown !== undefined) Fs.writeFileSync(markdown, renderMarkdown(rows, results, notes))
  if (out !== undefined) {
    Fs.writeFileSync(out, `${JSON.stringify(results, null, 2)}\n`)
    process.stdout.write(`\nwrote ${out}\n`)
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`)
    process.exit(1)
  }
)
