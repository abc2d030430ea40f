/**
 * Scenario 12, many servers: 50 configured stdio servers (a light fixture: one resource, no tools),
 * time from spawn to every server ready and the resident memory per server connection, of the
 * app-server (`apps/app-server/dist/main.js`, ready = every server `ready` in `mcpServer/list`) against
 * a process connecting the same 50 with the raw v2 SDK client (`src/rawHost.ts`, `Promise.all`, ready =
 * its one line). Memory per connection = (heapUsed + external with 50 servers - the same with one) /
 * 49, after a forced GC in the process (`src/memoryProbe.ts`, preloaded into both sides): what each
 * connection after the first costs, without what the first one loads once (the app-server loads the
 * MCP SDK with its first connection, the raw host at its start); VmRSS from
 * `/proc/PID/status` at ready is reported too. Target: both within 1.2x of the raw SDK at the median of repeated runs.
 */
import { spawn } from "node:child_process"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"
import { LineSplitter } from "@mcp-resources/protocol/LineFramer"
import { PromiseClient } from "@mcp-resources/app-server-client"
import { type FixtureSpec, stdioCommand } from "@mcp-resources/fixtures"
import { atMostOverRuns, infoOverRuns, type Output, type Result, type Row, spreadOf } from "../internal/report.js"
import type { Context } from "../internal/scenario.js"
import { fmtBytes } from "../internal/stats.js"
import { appServerMain } from "./startup.js"

const serverCount = 50
const rawHostMain = fileURLToPath(new URL("../rawHost.js", import.meta.url))
const probeArgs = ["--expose-gc", "--import", new URL("../memoryProbe.js", import.meta.url).href]
let probes = 0

/**
 * Heap + external of a process after a forced GC: signals its preloaded memory probe and waits (polling
 * the file every 10 ms, at most 60 s) for the answer.
 */
const probeMemory = async (pid: number, file: string): Promise<number> => {
  process.kill(pid, "SIGUSR2")
  const deadline = performance.now() + 60_000
  while (!Fs.existsSync(file)) {
    if (performance.now() > deadline) throw new Error(`no memory probe answer from ${pid}`)
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
  const m = JSON.parse(Fs.readFileSync(file, "utf8")) as { heapUsed: number; external: number }
  Fs.rmSync(file)
  return m.heapUsed + m.external
}
const readyTimeoutMs = 900_000

const light = (name: string): FixtureSpec => ({
  name,
  capabilities: { resources: true, tools: false },
  resourcePages: [{ cursor: null, result: { resources: [{ uri: `memo://${name}/a`, name: "a" }] } }]
})

const rssOf = (pid: number): number => {
  const status = Fs.readFileSync(`/proc/${pid}/status`, "utf8")
  const kib = /VmRSS:\s+(\d+) kB/.exec(status)
  if (kib === null) throw new Error(`no VmRSS for ${pid}`)
  return Number(kib[1]) * 1024
}

interface Sample {
  readonly readyMs: number
  readonly rss: number
  /** heapUsed + external after a forced GC. */
  readonly heap: number
}

/** The raw host: spawn to its `{"ready":N}` line; RSS then; then stdin ends and it exits. */
const rawHost = (dir: string, count: number): Promise<Sample> =>
  new Promise((resolve, reject) => {
    const servers = Array.from({ length: count }, (_, i) => stdioCommand(light(`srv${i}`)))
    const probe = Path.join(dir, `probe-${probes++}.json`)
    const started = performance.now()
    const child = spawn(process.execPath, [...probeArgs, rawHostMain], {
      stdio: ["pipe", "pipe", "pipe"],
      env: { ...process.env, RAW_HOST_SERVERS: JSON.stringify(servers), BENCH_MEMORY_PROBE: probe }
    })
    let sample: Sample | undefined
    let seen = false
    let stderr = ""
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString("utf8")
    })
    const timer = setTimeout(() => child.kill(), readyTimeoutMs)
    const splitter = new LineSplitter(1024 * 1024)
    child.stdout.on("data", (chunk: Buffer) => {
      const first = splitter.push(chunk)[0]
      if (first === undefined || seen) return
      seen = true
      const readyMs = performance.now() - started
      const rss = rssOf(child.pid!)
      probeMemory(child.pid!, probe).then(
        (heap) => {
          sample = { readyMs, rss, heap }
          child.stdin.end()
        },
        (error: unknown) => {
          failure = error
          child.stdin.end()
        }
      )
    })
    let failure: unknown
    child.once("error", reject)
    child.once("exit", (code) => {
      clearTimeout(timer)
      if (failure !== undefined) reject(failure)
      else if (sample === undefined) reject(new Error(`raw host exited (${code}) before ready: ${stderr.slice(-500)}`))
      else resolve(sample)
    })
  })

/** The app-server on a config of `count` light servers: spawn to every server ready in `mcpServer/list`. */
const appServer = async (dir: string, count: number, round: number): Promise<Sample> => {
  const config = Path.join(dir, `config-${count}-${round}.json`)
  const mcp_servers = Object.fromEntries(
    Array.from({ length: count }, (_, i) => {
      const command = stdioCommand(light(`srv${i}`))
      return [`srv${i}`, { command: command.command, args: command.args, startup_timeout_sec: 600 }]
    })
  )
  Fs.writeFileSync(config, JSON.stringify({ mcp_servers, mcp: { startup_concurrency: Math.max(1, count) } }))
  const probe = Path.join(dir, `probe-${probes++}.json`)
  const started = performance.now()
  const client = await PromiseClient.connectStdio(
    {
      command: process.execPath,
      env: { ...process.env, BENCH_MEMORY_PROBE: probe },
      args: [...probeArgs, appServerMain, "--config", config, "--data-dir", Path.join(dir, `data-${count}-${round}`)],
      stderr: "ignore"
    },
    { requestTimeoutMs: readyTimeoutMs }
  )
  try {
    await client.requestUnknown("initialize", { clientInfo: { name: "bench" } })
    const deadline = started + readyTimeoutMs
    for (;;) {
      const list = (await client.requestUnknown("mcpServer/list", {})) as {
        servers: Array<{ name: string; status: string; error?: string }>
      }
      const failed = list.servers.find((s) => s.status === "failed")
      if (failed !== undefined) throw new Error(`server ${failed.name} failed: ${failed.error ?? ""}`)
      if (list.servers.length === count && list.servers.every((s) => s.status === "ready")) break
      if (performance.now() > deadline) throw new Error("the app-server's servers were not ready in time")
      // the next poll after 10 ms: the resolution of the measurement, small against a start of 50 children
      await new Promise((resolve) => setTimeout(resolve, 10))
    }
    const readyMs = performance.now() - started
    const rss = rssOf(client.pid!)
    return { readyMs, rss, heap: await probeMemory(client.pid!, probe) }
  } finally {
    await client.close()
  }
}

export const run = async (ctx: Context): Promise<Output> => {
  if (!Fs.existsSync(appServerMain)) throw new Error(`${appServerMain} is not built`)
  if (!Fs.existsSync("/proc/self/status")) throw new Error("needs /proc (Linux) to read a process's VmRSS")
  const dir = Fs.mkdtempSync(Path.join(Os.tmpdir(), "mcp-bench-many-"))
  const rows: Array<Row> = []
  const results: Array<Result> = []
  const notes: Array<string> = []
  try {
    const runs: Array<{ ours: Sample; ours0: Sample; raw: Sample; raw0: Sample }> = []
    for (let r = 0; r < ctx.runs; r++) {
      // alternate which side goes first
      const first = r % 2 === 0
      // the baselines have one server: the first connection's one-time loading is not per connection
      const raw0 = await rawHost(dir, 1)
      const ours0 = await appServer(dir, 1, r)
      const raw = first ? await rawHost(dir, serverCount) : undefined
      const ours = await appServer(dir, serverCount, r)
      const rawLate = raw ?? (await rawHost(dir, serverCount))
      runs.push({ ours, ours0, raw: rawLate, raw0 })
      ctx.log(
        `   run ${r + 1}: app-server ${ours.readyMs.toFixed(0)} ms ${fmtBytes(ours.rss)} (one server ${ours0.readyMs.toFixed(0)} ms ${fmtBytes(ours0.rss)}), raw ${rawLate.readyMs.toFixed(0)} ms ${fmtBytes(rawLate.rss)} (one server ${raw0.readyMs.toFixed(0)} ms ${fmtBytes(raw0.rss)})`
      )
    }
    const perConn = (s: Sample, s0: Sample) => (s.heap - s0.heap) / (serverCount - 1)
    const rssPerConn = (s: Sample, s0: Sample) => (s.rss - s0.rss) / (serverCount - 1)
    const timeRatios = runs.map((x) => x.ours.readyMs / x.raw.readyMs)
    const addedRatios = runs.map((x) => (x.ours.readyMs - x.ours0.readyMs) / (x.raw.readyMs - x.raw0.readyMs))
    // even after a forced GC a difference can come out negative on a loaded machine: a run
    // whose per-connection figure is not positive on both sides gives no memory ratio
    const memRatios = runs
      .filter((x) => perConn(x.ours, x.ours0) > 0 && perConn(x.raw, x.raw0) > 0)
      .map((x) => perConn(x.ours, x.ours0) / perConn(x.raw, x.raw0))
    const scenario = `12. ${serverCount} stdio servers`
    const med = (values: Array<number>) => spreadOf(values).median
    rows.push({
      scenario,
      task: "raw v2 SDK, Promise.all",
      n: runs.length,
      median: med(runs.map((x) => x.raw.readyMs)),
      memory: med(runs.map((x) => perConn(x.raw, x.raw0))),
      extra: "memory = heap + external per connection after the first, after a forced GC"
    })
    rows.push({
      scenario,
      task: "app-server, all ready",
      n: runs.length,
      median: med(runs.map((x) => x.ours.readyMs)),
      ratio: med(timeRatios),
      ratioLabel: "vs raw (time)",
      spread: spreadOf(timeRatios),
      memory: med(runs.map((x) => perConn(x.ours, x.ours0))),
      extra:
        memRatios.length === 0
          ? "memory ratio not measurable (delta not positive)"
          : `memory ratio ${med(memRatios).toFixed(2)}x [${spreadOf(memRatios).min.toFixed(2)}-${spreadOf(memRatios).max.toFixed(2)}, ${memRatios.length} runs]`
    })
    const name = `${serverCount} stdio servers`
    results.push(atMostOverRuns(name, "time to all ready, app-server / raw SDK", timeRatios, 1.2))
    if (memRatios.length > 0)
      results.push(atMostOverRuns(name, "memory per server connection, app-server / raw SDK", memRatios, 1.2))
    else
      notes.push(
        "memory per server connection not measurable in this run: the memory with 50 servers was not above the memory with one on both sides"
      )
    results.push(infoOverRuns(name, "time the 49 servers after the first add, app-server / raw SDK", addedRatios))
    results.push(
      infoOverRuns(
        name,
        "app-server memory per server connection (bytes)",
        runs.map((x) => perConn(x.ours, x.ours0))
      )
    )
    results.push(
      infoOverRuns(
        name,
        "raw SDK memory per server connection (bytes)",
        runs.map((x) => perConn(x.raw, x.raw0))
      )
    )
    results.push(
      infoOverRuns(
        name,
        "app-server VmRSS per server connection (bytes)",
        runs.map((x) => rssPerConn(x.ours, x.ours0))
      )
    )
    results.push(
      infoOverRuns(
        name,
        "raw SDK VmRSS per server connection (bytes)",
        runs.map((x) => rssPerConn(x.raw, x.raw0))
      )
    )
    return { rows, results, notes }
  } finally {
    Fs.rmSync(dir, { recursive: true, force: true })
  }
}
