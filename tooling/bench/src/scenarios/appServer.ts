/**
 * Scenario 4, app-server throughput: `mcp/resource/read` with a `threadId` over stdio, 64 threads, 64
 * requests in flight, warm connections to one stdio fixture server; baseline: the raw v2 SDK client
 * (`@modelcontextprotocol/client`, the line the resource client runs on) reading the same fixture
 * directly (its own stdio child) with 64 in flight. For information, the same reads with the v1 SDK
 * client (`@modelcontextprotocol/sdk`), as scenario 1 keeps its v1 naive host. For reference, a
 * minimal JSON-RPC proxy (`src/minimalProxy.ts`) driven like the app-server: what the same two extra
 * pipe hops cost with nothing else. The sides alternate in blocks; throughput is requests over the
 * summed wall time of a side's blocks.
 */
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"
import { PromiseClient } from "@mcp-resources/app-server-client"
import { stdioCommand } from "@mcp-resources/fixtures"
import { Client as ClientV2 } from "@modelcontextprotocol/client"
import { StdioClientTransport as StdioClientTransportV2 } from "@modelcontextprotocol/client/stdio"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import { type Output, type Result, type Row, atLeast, info } from "../internal/report.js"
import { newestProfile, profileClockMicros, summarizeFile } from "../internal/profile.js"
import type { Context, Prepared } from "../internal/scenario.js"
import { summarize } from "../internal/stats.js"
import { appServerMain } from "./startup.js"

/** The compiled minimal proxy (this package's `src/minimalProxy.ts`). */
const minimalProxyMain = fileURLToPath(new URL("../minimalProxy.js", import.meta.url))

const inFlight = 64
const uri = "memo://doc"

/** Linux's `USER_HZ`: 100 on every architecture Node runs on. */
const clockTicks = 100

/**
 * The CPU time a child process has used, in microseconds (user + system, every thread: V8's GC
 * helpers included), from `/proc`; undefined where there is none (not Linux) or the process is gone.
 */
const cpuMicros = (pid: number | undefined): number | undefined => {
  if (pid === undefined) return undefined
  try {
    // the fields after the command name: state is field 3, utime and stime fields 14 and 15 (clock ticks)
    const fields = Fs.readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ")
    return ((Number(fields[11]) + Number(fields[12])) * 1_000_000) / clockTicks
  } catch {
    return undefined
  }
}

/** Runs `total` calls of `one(worker)` with `inFlight` workers; returns the wall time and each call's latency. */
const drive = async (
  total: number,
  one: (worker: number) => Promise<unknown>
): Promise<{ wallMs: number; latencies: Array<number> }> => {
  const latencies: Array<number> = []
  let next = 0
  const started = performance.now()
  await Promise.all(
    Array.from({ length: inFlight }, async (_, worker) => {
      while (next < total) {
        next++
        const t = performance.now()
        await one(worker)
        latencies.push(performance.now() - t)
      }
    })
  )
  return { wallMs: performance.now() - started, latencies }
}

/**
 * Set up once: the app-server, the proxy and the raw client connected and warmed up. Each repeated run
 * then measures alternating blocks on the warm processes (a fresh set-up per run would repeat the
 * 40,000-read warm-up of every side).
 */
export const prepare = async (ctx: Context): Promise<Prepared> => {
  if (!Fs.existsSync(appServerMain)) throw new Error(`${appServerMain} is not built`)
  const dir = Fs.mkdtempSync(Path.join(Os.tmpdir(), "mcp-bench-appserver-"))
  const fixture = stdioCommand({
    name: "fixture",
    reads: [{ uri, result: { contents: [{ uri, mimeType: "text/plain", text: "x".repeat(1024) }] } }]
  })
  const config = Path.join(dir, "config.json")
  Fs.writeFileSync(
    config,
    JSON.stringify({ mcp_servers: { fixture: { command: fixture.command, args: fixture.args } } })
  )
  /**
   * A JSON-RPC child driven like the app-server, with the typed client: initialized, 64 threads, reads
   * of `uri` on the fixture. The timed reads use `requestUnknown` (no schema work on either side of the
   * comparison): the client adds to each read only what any JSON-RPC client must do. Each request is
   * written on its own, as the raw SDK client of the baseline does and as the bench's earlier client
   * did, so that the figures stay comparable with earlier runs.
   */
  const connect = async (command: { args: ReadonlyArray<string>; env: NodeJS.ProcessEnv }) => {
    const server = await PromiseClient.connectStdio(
      { command: process.execPath, args: command.args, env: command.env, stderr: "ignore", batchWrites: false },
      { requestTimeoutMs: 120_000 }
    )
    try {
      await server.requestUnknown("initialize", { clientInfo: { name: "bench" } })
      const threads: Array<string> = []
      for (let i = 0; i < inFlight; i++) {
        const started = (await server.requestUnknown("thread/start", { ephemeral: true })) as { thread: { id: string } }
        threads.push(started.thread.id)
      }
      const read = (worker: number) =>
        server.requestUnknown("mcp/resource/read", { threadId: threads[worker], server: "fixture", uri })
      return { server, read }
    } catch (e) {
      await server.close()
      throw e
    }
  }
  /** An app-server with the fixture configured; `nodeArgs` go before the script (e.g. --cpu-prof). */
  const startServer = (nodeArgs: ReadonlyArray<string>, dataDir: string) =>
    connect({
      args: [...nodeArgs, appServerMain, "--config", config, "--data-dir", Path.join(dir, dataDir)],
      env: { ...process.env, MCP_RESOURCES_LOG: "warn" }
    })
  const { server, read: ours } = await startServer([], "data")
  const clientV2 = new ClientV2({ name: "naive-host", version: "1.0.0" })
  const clientV1 = new Client({ name: "naive-host", version: "1.0.0" })
  let proxyServer: PromiseClient.PromiseClient | undefined
  const dispose = async () => {
    await clientV2.close().catch(() => undefined)
    await clientV1.close().catch(() => undefined)
    await server.close()
    await proxyServer?.close()
    Fs.rmSync(dir, { recursive: true, force: true })
  }
  let sides: Record<"base" | "v1" | "ours" | "proxy", (worker: number) => Promise<unknown>>
  let warmup: number
  try {
    // The reference: the least an app-server can do over the same pipes (no validation, Effect or SDK).
    const { server: started, read: proxy } = await connect({
      args: [minimalProxyMain],
      env: { ...process.env, MINIMAL_PROXY_SERVER: JSON.stringify({ command: fixture.command, args: fixture.args }) }
    })
    proxyServer = started
    await clientV2.connect(
      new StdioClientTransportV2({ command: fixture.command, args: fixture.args, stderr: "ignore" })
    )
    await clientV1.connect(new StdioClientTransport({ command: fixture.command, args: fixture.args, stderr: "ignore" }))

    sides = { base: () => clientV2.readResource({ uri }), v1: () => clientV1.readResource({ uri }), ours, proxy }
    // Warm every path to steady state (the app-server's first read waits for the server's start-up).
    // Measured in blocks of 2000 reads from start (BENCHMARKS.md): the app-server levels off only
    // after about 40,000 reads (17-20k req/s between 10,000 and 20,000, 21-23k after 40,000); the raw
    // SDK client after about 10,000. Every side gets the same warm-up.
    warmup = ctx.quick ? inFlight * 4 : 40000
    for (const side of ["ours", "base", "v1", "proxy"] as const) await drive(warmup, sides[side])
  } catch (error) {
    await dispose()
    throw error
  }
  type Side = keyof typeof sides

  const run = async (index: number): Promise<Output> => {
    const blocks = ctx.quick ? 2 : 6
    const perBlock = ctx.quick ? 256 : 2000
    // the app-server and the proxy are idle while the other sides run: their CPU over the run is their reads'
    const cpuBefore = { ours: cpuMicros(server.pid), proxy: cpuMicros(proxyServer?.pid) }
    const wall: Record<Side, number> = { base: 0, v1: 0, ours: 0, proxy: 0 }
    const latencies: Record<Side, Array<number>> = { base: [], v1: [], ours: [], proxy: [] }
    for (let b = 0; b < blocks; b++) {
      const order: ReadonlyArray<Side> = b % 2 === 0 ? ["base", "ours", "v1", "proxy"] : ["proxy", "v1", "ours", "base"]
      for (const side of order) {
        const r = await drive(perBlock, sides[side])
        wall[side] += r.wallMs
        latencies[side].push(...r.latencies)
      }
    }
    const cpuPerRead = (pid: number | undefined, before: number | undefined) => {
      const after = cpuMicros(pid)
      return after === undefined || before === undefined ? Number.NaN : (after - before) / (blocks * perBlock)
    }
    const oursCpu = cpuPerRead(server.pid, cpuBefore.ours)
    const proxyCpu = cpuPerRead(proxyServer?.pid, cpuBefore.proxy)
    const rps = (side: Side) => (blocks * perBlock * 1000) / wall[side]
    const oursRps = rps("ours")
    const baseRps = rps("base")
    const proxyRps = rps("proxy")
    const v1Rps = rps("v1")
    const o = summarize(latencies.ours)
    const s = summarize(latencies.base)
    const x = summarize(latencies.proxy)
    const v = summarize(latencies.v1)
    const scenario = "4. app-server reads, 64 in flight"
    const rows: Array<Row> = [
      {
        scenario,
        task: "raw v2 SDK client (stdio)",
        n: s.n,
        median: s.median,
        p95: s.p95,
        ratio: 1,
        extra: `${baseRps.toFixed(0)} req/s, p99 ${s.p99.toFixed(2)} ms`
      },
      {
        scenario,
        task: "app-server mcp/resource/read",
        n: o.n,
        median: o.median,
        p95: o.p95,
        ratio: oursRps / baseRps,
        ratioLabel: "throughput vs SDK",
        extra: `${oursRps.toFixed(0)} req/s, p99 ${o.p99.toFixed(2)} ms`
      },
      {
        scenario,
        task: "raw v1 SDK client (stdio)",
        n: v.n,
        median: v.median,
        p95: v.p95,
        ratio: v1Rps / baseRps,
        ratioLabel: "throughput vs SDK",
        extra: `${v1Rps.toFixed(0)} req/s, p99 ${v.p99.toFixed(2)} ms`
      },
      {
        scenario,
        task: "minimal proxy (reference)",
        n: x.n,
        median: x.median,
        p95: x.p95,
        ratio: proxyRps / baseRps,
        ratioLabel: "throughput vs SDK",
        extra: `${proxyRps.toFixed(0)} req/s, p99 ${x.p99.toFixed(2)} ms`
      }
    ]
    const name = "app-server throughput (64 threads, 64 in flight)"
    const check = atLeast(name, "throughput / raw v2 SDK client throughput", oursRps / baseRps, 0.5)
    const notes: Array<string> = []
    if (check.met === false && index === ctx.runs - 1) {
      // One more app-server under the V8 profiler for three blocks of reads (its own process only).
      const profDir = Path.join(dir, "prof")
      // its own data dir: the first server still holds "data"
      const profiled = await startServer(["--cpu-prof", "--cpu-prof-dir", profDir], "data-profiled")
      // the same warm-up first; the summary counts only the reads after it (start-up, warm-up and
      // shutdown are cut off)
      await drive(warmup, profiled.read)
      const since = profileClockMicros()
      await drive(perBlock * 3, profiled.read)
      const window = { since, until: profileClockMicros() }
      await profiled.server.close()
      const file = newestProfile(profDir)
      if (file !== undefined) notes.push(`missed; app-server profile during reads: ${summarizeFile(file, 6, window)}`)
    }
    const results: Array<Result> = [
      check,
      info(name, "requests per second", oursRps),
      info(name, "p50 latency ms", o.median),
      info(name, "p99 latency ms", o.p99),
      info(name, "throughput / minimal proxy throughput", oursRps / proxyRps),
      info(name, "throughput / raw v1 SDK client throughput", oursRps / v1Rps),
      info(name, "app-server CPU per read, µs (/proc, all its threads)", oursCpu),
      info("minimal proxy (64 in flight)", "CPU per read, µs (/proc, all its threads)", proxyCpu),
      info("raw v2 SDK client (64 in flight)", "requests per second", baseRps),
      info("raw v1 SDK client (64 in flight)", "requests per second", v1Rps),
      info("minimal proxy (64 in flight)", "requests per second", proxyRps),
      info("minimal proxy (64 in flight)", "throughput / raw v2 SDK client throughput", proxyRps / baseRps)
    ]
    ctx.log(
      `   ours ${oursRps.toFixed(0)} req/s (p50 ${o.median.toFixed(2)} ms, ${oursCpu.toFixed(1)} µs CPU per read), SDK v2 ${baseRps.toFixed(0)} req/s, SDK v1 ${v1Rps.toFixed(0)} req/s, minimal proxy ${proxyRps.toFixed(0)} req/s`
    )
    return { rows, results, notes }
  }
  return { run, dispose }
}
