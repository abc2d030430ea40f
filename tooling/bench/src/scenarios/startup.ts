/**
 * Scenario 6, start-up: process spawn to the `initialize` response of the app-server (empty config,
 * an already-migrated data dir), median of 20, against a script that only imports effect and the SDK
 * client and prints a line (the floor our dependency choice sets) and against `node -e` printing a line.
 */
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"
import { PromiseClient } from "@mcp-resources/app-server-client"
import { interleaved } from "../internal/harness.js"
import { timeToFirstLine } from "../internal/firstLine.js"
import { type Output, type Result, type Row, atMost, info, rowOf } from "../internal/report.js"
import { loadedPackages, newestProfile, summarizeFile } from "../internal/profile.js"
import { type Context, perRun } from "../internal/scenario.js"

/** `apps/app-server/dist/main.js` of this checkout. */
export const appServerMain = fileURLToPath(new URL("../../../../apps/app-server/dist/main.js", import.meta.url))
const floorScript = fileURLToPath(new URL("../startupFloor.js", import.meta.url))

/** The first line the app-server prints must be the `initialize` response. */
const isInitializeResponse = (line: string): boolean => {
  const message = JSON.parse(line) as { id?: unknown; result?: { serverInfo?: unknown } }
  return message.id === 1 && message.result?.serverInfo !== undefined
}

const initialize = `${JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { clientInfo: { name: "bench" } } })}\n`

export const run = async (ctx: Context): Promise<Output> => {
  if (!Fs.existsSync(appServerMain)) throw new Error(`${appServerMain} is not built`)
  const dir = Fs.mkdtempSync(Path.join(Os.tmpdir(), "mcp-bench-startup-"))
  try {
    const config = Path.join(dir, "empty.toml")
    Fs.writeFileSync(config, "")
    const dataDir = Path.join(dir, "data")
    const serverArgs = [appServerMain, "--config", config, "--data-dir", dataDir]
    // Migrate the data dir once, outside the measurement.
    const first = await PromiseClient.connectStdio({ command: process.execPath, args: serverArgs, stderr: "ignore" })
    await first.request("initialize", { clientInfo: { name: "bench" } }).finally(() => first.close())
    if (!Fs.existsSync(Path.join(dataDir, "state.sqlite")))
      throw new Error("the app-server did not create state.sqlite")

    // The measured interval is spawn to the first line; the exit that follows is not timed.
    const ours = async () => ({
      overriddenDuration: await timeToFirstLine(process.execPath, serverArgs, initialize, isInitializeResponse)
    })
    const floor = async () => ({ overriddenDuration: await timeToFirstLine(process.execPath, [floorScript]) })
    const bare = async () => ({
      overriddenDuration: await timeToFirstLine(process.execPath, ["-e", "console.log('ready')"])
    })
    const [f, o, n] = await interleaved(
      [
        { name: "import effect + SDK client", fn: floor },
        { name: "app-server initialize", fn: ours },
        { name: "node -e", fn: bare }
      ],
      { iterations: ctx.quick ? 4 : perRun(ctx, 20, 8), rounds: ctx.quick ? 2 : 4, warmupIterations: ctx.quick ? 1 : 2 }
    )
    const scenario = "6. start-up (spawn -> first line)"
    const base = f!.summary.median
    const rows: Array<Row> = [f!, o!, n!].map((m) => rowOf(scenario, m, base, { ratioLabel: "vs imports floor" }))
    const check = atMost("start-up", "ratio of medians vs effect + SDK import floor", o!.summary.median / base, 1.5)
    const notes: Array<string> = []
    if (check.met === false) {
      // One more start under the V8 profiler: where the time goes, and which packages were loaded at all.
      const profDir = Path.join(dir, "prof")
      await timeToFirstLine(process.execPath, ["--cpu-prof", "--cpu-prof-dir", profDir, ...serverArgs], initialize)
      const file = newestProfile(profDir)
      if (file !== undefined) {
        notes.push(`missed; one profiled start: ${summarizeFile(file)}`)
        notes.push(`packages with code run during start (files): ${loadedPackages(file, 14)}`)
      }
    }
    const results: Array<Result> = [
      check,
      info("start-up", "ratio of medians vs node -e", o!.summary.median / n!.summary.median),
      info("start-up", "app-server median ms", o!.summary.median)
    ]
    ctx.log(
      `   ours ${o!.summary.median.toFixed(1)} ms, floor ${base.toFixed(1)} ms, node -e ${n!.summary.median.toFixed(1)} ms`
    )
    return { rows, results, notes }
  } finally {
    Fs.rmSync(dir, { recursive: true, force: true })
  }
}
