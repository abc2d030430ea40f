/**
 * Scenario 7, start-up of the shipped bins side by side with `node -e 0` (all spawn to exit, except
 * the server: spawn to its `initialize` response): `mcp-resources tools` on an empty config, and the
 * app-server on an empty config and an already-migrated SQLite data dir (it still opens and migrates
 * the store at start). Median and spread of interleaved runs; target: each at most 3x `node -e 0`.
 */
import { spawn } from "node:child_process"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"
import { PromiseClient } from "@mcp-resources/app-server-client"
import { interleaved, type Measured } from "../internal/harness.js"
import { timeToFirstLine } from "../internal/firstLine.js"
import { atMost, info, type Output, type Row, rowOf } from "../internal/report.js"
import { type Context, perRun } from "../internal/scenario.js"
import { fmtMs } from "../internal/stats.js"

/** The package's bins: `apps/app-server/dist/bundle/{Cli,main}.js` of this checkout. */
const bundle = (file: string) =>
  fileURLToPath(new URL(`../../../../apps/app-server/dist/bundle/${file}`, import.meta.url))
const cli = bundle("Cli.js")
const server = bundle("main.js")

/** Milliseconds from spawn to a successful exit. */
const timeToExit = (args: ReadonlyArray<string>): Promise<number> =>
  new Promise((resolve, reject) => {
    const started = performance.now()
    const child = spawn(process.execPath, [...args], { stdio: ["ignore", "ignore", "pipe"] })
    let stderr = ""
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString("utf8")
    })
    child.once("error", reject)
    child.once("exit", (code) => {
      const elapsed = performance.now() - started
      if (code === 0) resolve(elapsed)
      else reject(new Error(`node ${args.join(" ")} exited ${code}: ${stderr.slice(-500)}`))
    })
  })

const spread = (m: Measured): string => `min ${fmtMs(m.summary.min)}, p95 ${fmtMs(m.summary.p95)}`

export const run = async (ctx: Context): Promise<Output> => {
  for (const file of [cli, server]) if (!Fs.existsSync(file)) throw new Error(`${file} is not built`)
  const dir = Fs.mkdtempSync(Path.join(Os.tmpdir(), "mcp-bench-bundled-startup-"))
  try {
    const config = Path.join(dir, "empty.toml")
    Fs.writeFileSync(config, "")
    const dataDir = Path.join(dir, "data")
    const serverArgs = [server, "--config", config, "--data-dir", dataDir]
    // Create and migrate the data dir once, outside the measurement.
    const first = await PromiseClient.connectStdio({ command: process.execPath, args: serverArgs, stderr: "ignore" })
    await first.request("initialize", { clientInfo: { name: "bench" } }).finally(() => first.close())

    const initialize = `${JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { clientInfo: { name: "bench" } } })}\n`
    const isInitializeResponse = (line: string) => (JSON.parse(line) as { id?: unknown }).id === 1
    const [bare, tools, initialized] = await interleaved(
      [
        { name: "node -e 0", fn: async () => ({ overriddenDuration: await timeToExit(["-e", "0"]) }) },
        {
          name: "mcp-resources tools (empty config)",
          fn: async () => ({ overriddenDuration: await timeToExit([cli, "tools", "--config", config]) })
        },
        {
          name: "app-server spawn -> initialize",
          fn: async () => ({
            overriddenDuration: await timeToFirstLine(process.execPath, serverArgs, initialize, isInitializeResponse)
          })
        }
      ],
      {
        iterations: ctx.quick ? 6 : perRun(ctx, 30, 12),
        rounds: ctx.quick ? 2 : 4,
        warmupIterations: ctx.quick ? 1 : 2
      }
    )
    const scenario = "7. bundled start-up (spawn -> exit / initialize)"
    const base = bare!.summary.median
    const rows: Array<Row> = [bare!, tools!, initialized!].map((m) =>
      rowOf(scenario, m, base, { ratioLabel: "vs node -e 0", extra: spread(m) })
    )
    const results = [
      atMost("bundled start-up", "mcp-resources tools: ratio of medians vs node -e 0", tools!.summary.median / base, 3),
      atMost(
        "bundled start-up",
        "app-server initialize: ratio of medians vs node -e 0",
        initialized!.summary.median / base,
        3
      ),
      info("bundled start-up", "node -e 0 median ms", base),
      info("bundled start-up", "mcp-resources tools median ms", tools!.summary.median),
      info("bundled start-up", "app-server initialize median ms", initialized!.summary.median)
    ]
    ctx.log(
      `   node -e 0 ${fmtMs(base)} (${spread(bare!)}); tools ${fmtMs(tools!.summary.median)} (${spread(tools!)}); initialize ${fmtMs(initialized!.summary.median)} (${spread(initialized!)})`
    )
    return { rows, results, notes: [] }
  } finally {
    Fs.rmSync(dir, { recursive: true, force: true })
  }
}
