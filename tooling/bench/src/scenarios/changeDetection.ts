/**
 * Scenario 15, change detection (issue #44), in two parts.
 *
 * Polling cost, in process: 16 in-memory fixture servers that declare no subscriptions, 63 watched
 * resources each (1,008 in all), polled every 0.5 s by our resource client. Reported: the MCP requests
 * per watched resource per interval, counted per server between the starts of two of its ticks K
 * intervals apart (target exactly 1), and the CPU time of this process per 1,000 polled resources
 * (the fixture servers' side included, as they run here too), against the baseline of the same reads
 * issued by raw v2 SDK clients (`@modelcontextprotocol/client`) with the polls stopped; the two sides
 * alternate, three rounds.
 *
 * Change latency, through the app-server over stdio: one extended thread reads a resource on each
 * detection path and the time from a server-side change to `mcp/resource/changed` is taken (median
 * and spread): `stream` (the changes fixture on 2026-07-28, v2 SDK), `subscribe` (the changes fixture
 * on the initialize era, v1 SDK), both told of the change by a line appended to their touch file; and
 * `poll` (the file-tree fixture, v2 SDK, no subscriptions, `poll_changes_sec = 0.5`), changed by
 * rewriting the file: its latency is bounded by the interval, the change landing anywhere in it.
 */
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { PromiseClient } from "@mcp-resources/app-server-client"
import {
  changesStdioCommand,
  connectInMemory,
  fileTreeStdioCommand,
  type InMemoryFixture
} from "@mcp-resources/fixtures"
import { ResourceClient, ServerEntry } from "@mcp-resources/resource-client"
import { Client as ClientV2 } from "@modelcontextprotocol/client"
import { Effect } from "effect"
import { makeStackOf } from "../internal/fixtures.js"
import { exactly, infoOverRuns, type Output, type Result } from "../internal/report.js"
import type { Context } from "../internal/scenario.js"
import { appServerMain } from "./startup.js"

const servers = 16
const perServer = 63
const intervalMs = 500
const rounds = 3

const uriOf = (i: number) => `memo://watched/${i}`

const readsOf = (fixture: InMemoryFixture): number =>
  fixture.requests.reduce((n, r) => (r.method === "resources/read" ? n + 1 : n), 0)

/**
 * Watches each fixture's read count every 20 ms and records the count at the start of each tick (the
 * last quiet count before a burst of reads); resolves once every fixture has `ticks` tick starts.
 */
const tickStarts = (fixtures: ReadonlyArray<InMemoryFixture>, ticks: number, timeoutMs: number) =>
  new Promise<Array<Array<{ readonly at: number; readonly reads: number }>>>((resolve, reject) => {
    const starts = fixtures.map(() => [] as Array<{ at: number; reads: number }>)
    const last = fixtures.map((f) => readsOf(f))
    const started = performance.now()
    const timer = setInterval(() => {
      const now = performance.now()
      fixtures.forEach((fixture, i) => {
        const reads = readsOf(fixture)
        // a count that grows after a quiet sample: the tick started after the last quiet count
        const previous = starts[i]!.at(-1)
        if (reads > last[i]! && (previous === undefined || now - previous.at > intervalMs / 2))
          starts[i]!.push({ at: now, reads: last[i]! })
        last[i] = reads
      })
      if (starts.every((s) => s.length >= ticks)) {
        clearInterval(timer)
        resolve(starts)
      } else if (now - started > timeoutMs) {
        clearInterval(timer)
        reject(new Error(`polls stopped: ticks seen ${starts.map((s) => s.length).join(",")} of ${ticks}`))
      }
    }, 20)
  })

/** The polling-cost part: requests per resource per interval and CPU per 1,000 polled resources, against raw reads. */
const pollingCost = async (ctx: Context): Promise<Array<Result>> => {
  const k = ctx.quick ? 3 : 8
  const fixtures = Array.from({ length: servers }, (_, s) =>
    connectInMemory({
      name: `watched-${s}`,
      reads: Array.from({ length: perServer }, (_, i) => ({
        uri: uriOf(i),
        result: {
          contents: [{ uri: uriOf(i), mimeType: "text/plain", text: `document ${i} of server ${s}\n`.repeat(32) }]
        }
      }))
    })
  )
  const entries = fixtures.map((fixture, s) =>
    ServerEntry.memory(`s${s}`, fixture.connect, { pollChangesSec: intervalMs / 1000 })
  )
  const stack = await makeStackOf(entries)
  const raw = await Promise.all(
    fixtures.map(async (fixture) => {
      const client = new ClientV2({ name: "naive-host", version: "1.0.0" })
      await client.connect(await fixture.connect())
      return client
    })
  )
  const watch = (on: boolean) =>
    stack.runtime.runPromise(
      Effect.flatMap(ResourceClient.ResourceClient, (client) =>
        Effect.forEach(
          entries,
          (entry) =>
            Effect.forEach(
              Array.from({ length: perServer }, (_, i) => uriOf(i)),
              (uri) =>
                on
                  ? Effect.asVoid(
                      Effect.zipRight(client.readResource(entry.name, uri), client.subscribe(entry.name, uri))
                    )
                  : client.unsubscribe(entry.name, uri),
              { concurrency: 4 }
            ),
          { concurrency: "unbounded", discard: true }
        )
      )
    )
  const perInterval: Array<number> = []
  const tickPeriods: Array<number> = []
  const pollCpu: Array<number> = []
  const rawCpu: Array<number> = []
  try {
    for (let round = 0; round < rounds; round++) {
      await watch(true)
      // three ticks to settle, then k intervals between the starts of two ticks of each server
      const starts = await tickStarts(fixtures, k + 3, (k + 10) * intervalMs * 4)
      // the CPU of further k intervals of polling, over the reads they made
      const cpuFrom = process.cpuUsage()
      const readsFrom = fixtures.reduce((n, f) => n + readsOf(f), 0)
      await tickStarts(fixtures, k, (k + 10) * intervalMs * 4)
      const cpu = process.cpuUsage(cpuFrom)
      const polled = fixtures.reduce((n, f) => n + readsOf(f), 0) - readsFrom
      pollCpu.push(((cpu.user + cpu.system) / 1000 / polled) * 1000)
      for (let s = 0; s < servers; s++) {
        const [from, to] = [starts[s]![2]!, starts[s]![k + 2]!]
        perInterval.push((to.reads - from.reads) / (perServer * k))
        tickPeriods.push((to.at - from.at) / k)
      }
      await watch(false)
      // the baseline: the same reads (one per watched resource) by raw SDK clients, 4 at a time per server
      const rawFrom = process.cpuUsage()
      for (let t = 0; t < k; t++) {
        await Promise.all(
          raw.map(async (client) => {
            for (let i = 0; i < perServer; i += 4)
              await Promise.all(
                Array.from({ length: Math.min(4, perServer - i) }, (_, j) => client.readResource({ uri: uriOf(i + j) }))
              )
          })
        )
      }
      const rawUsed = process.cpuUsage(rawFrom)
      rawCpu.push(((rawUsed.user + rawUsed.system) / 1000 / (servers * perServer * k)) * 1000)
    }
  } finally {
    await Promise.all(raw.map((client) => client.close()))
    await stack.dispose()
    await Promise.all(fixtures.map((fixture) => fixture.closeAll()))
  }
  const sorted = [...perInterval].sort((a, b) => a - b)
  ctx.log(
    `   requests per resource per interval ${sorted[0]}-${sorted.at(-1)} over ${perInterval.length} server windows; tick period median ${[...tickPeriods].sort((a, b) => a - b)[Math.floor(tickPeriods.length / 2)]!.toFixed(0)} ms (interval ${intervalMs} ms)`
  )
  ctx.log(
    `   CPU per 1,000 polled resources ${pollCpu.map((c) => c.toFixed(1)).join(", ")} ms; raw SDK reads ${rawCpu.map((c) => c.toFixed(1)).join(", ")} ms`
  )
  return [
    exactly(
      "Change detection: polling, 1,008 watched resources on 16 servers",
      "MCP requests per resource per interval (max over servers and rounds)",
      sorted.at(-1)!,
      1
    ),
    exactly(
      "Change detection: polling, 1,008 watched resources on 16 servers",
      "MCP requests per resource per interval (min over servers and rounds)",
      sorted[0]!,
      1
    ),
    infoOverRuns("Change detection: polling, CPU per 1,000 polled resources per interval", "ms", pollCpu),
    infoOverRuns("Change detection: baseline, CPU per 1,000 raw SDK reads", "ms", rawCpu),
    infoOverRuns(
      "Change detection: polling CPU / raw SDK reads CPU",
      "ratio",
      pollCpu.map((c, i) => c / rawCpu[i]!)
    )
  ]
}

/** The change-latency part: one app-server, one extended thread, a resource on each detection path. */
const changeLatency = async (ctx: Context): Promise<Array<Result>> => {
  const samples = ctx.quick ? 3 : 10
  const dir = Fs.mkdtempSync(Path.join(Os.tmpdir(), "bench-changes-"))
  const root = Path.join(dir, "files")
  Fs.mkdirSync(root)
  const file = Path.join(root, "doc.txt")
  Fs.writeFileSync(file, "version 0\n")
  const touchFiles = { stream: Path.join(dir, "stream.touch"), subscribe: Path.join(dir, "subscribe.touch") }
  const config = Path.join(dir, "config.json")
  Fs.writeFileSync(
    config,
    JSON.stringify({
      mcp_servers: {
        stream: changesStdioCommand({ era: "modern", touchFile: touchFiles.stream }),
        subscribe: changesStdioCommand({ era: "legacy", touchFile: touchFiles.subscribe }),
        poll: { ...fileTreeStdioCommand({ root }), poll_changes_sec: intervalMs / 1000 }
      }
    })
  )
  const app = await PromiseClient.connectStdio(
    {
      command: process.execPath,
      args: [appServerMain, "--config", config, "--data-dir", Path.join(dir, "data")],
      env: { ...process.env, MCP_RESOURCES_LOG: "warn" },
      stderr: "ignore"
    },
    { requestTimeoutMs: 60_000 }
  )
  const changed: Array<{ readonly uri: string; readonly at: number }> = []
  const waiting = new Set<() => void>()
  app.onNotification((n) => {
    if (n.method !== "mcp/resource/changed") return
    changed.push({ uri: (n.params as { uri: string }).uri, at: performance.now() })
    for (const wake of waiting) wake()
  })
  /** The time of the next `mcp/resource/changed` of `uri` after the `seen`-th one; fails after 30 s. */
  const nextChanged = (uri: string, seen: number) =>
    new Promise<number>((resolve, reject) => {
      const check = () => {
        const of = changed.filter((c) => c.uri === uri)
        if (of.length <= seen) return
        clearTimeout(timer)
        waiting.delete(check)
        resolve(of[seen]!.at)
      }
      const timer = setTimeout(() => {
        waiting.delete(check)
        reject(new Error(`no mcp/resource/changed for ${uri} within 30 s`))
      }, 30_000)
      waiting.add(check)
      check()
    })
  const results: Array<Result> = []
  try {
    await app.requestUnknown("initialize", { clientInfo: { name: "bench" } })
    const thread = (await app.requestUnknown("thread/start", {
      ephemeral: true,
      config: { toolProfile: "extended" }
    })) as { thread: { id: string } }
    const threadId = thread.thread.id
    let turn = 0
    const nextTurn = async () => {
      turn += 1
      await app.requestUnknown("turn/start", { threadId, turnId: `t${turn}` })
    }
    await nextTurn()
    const paths = [
      { mode: "stream", server: "stream", uri: "changes://doc/a" },
      { mode: "subscribe", server: "subscribe", uri: "changes://doc/a" },
      { mode: "poll", server: "poll", uri: "file:///doc.txt" }
    ] as const
    for (const path of paths) {
      const read = (await app.requestUnknown("tool/call", {
        threadId,
        turnId: `t${turn}`,
        callId: `read-${path.mode}`,
        name: "read_mcp_resource",
        arguments: JSON.stringify({ server: path.server, uri: path.uri })
      })) as { success: boolean; output: string }
      if (!read.success) throw new Error(`read on ${path.server} failed: ${read.output.slice(0, 300)}`)
    }
    const listed = (await app.requestUnknown("mcpServer/list", {})) as {
      servers: Array<{ name: string; changeDetection?: string }>
    }
    for (const path of paths) {
      const mode = listed.servers.find((s) => s.name === path.server)?.changeDetection
      if (mode !== path.mode) throw new Error(`${path.server} detects changes by ${mode}, not ${path.mode}`)
    }
    // the subscriptions are sent in the background of the reads: a first change of each, not measured
    const latencies: Record<string, Array<number>> = { stream: [], subscribe: [], poll: [] }
    for (let sample = -1; sample < samples; sample++) {
      for (const path of paths) {
        const seen = changed.filter((c) => c.uri === path.uri).length
        const at = performance.now()
        if (path.mode === "poll") Fs.writeFileSync(file, `version ${sample + 2}\n`)
        else Fs.appendFileSync(touchFiles[path.mode], `${path.uri}\n`)
        const arrived = await nextChanged(path.uri, seen)
        if (sample >= 0) latencies[path.mode]!.push(arrived - at)
        // the change handed over: the next one is announced again
        await nextTurn()
      }
    }
    for (const path of paths) {
      const values = latencies[path.mode]!
      const sorted = [...values].sort((a, b) => a - b)
      ctx.log(
        `   ${path.mode}: change → mcp/resource/changed median ${sorted[Math.floor(sorted.length / 2)]!.toFixed(1)} ms [${sorted[0]!.toFixed(1)}-${sorted.at(-1)!.toFixed(1)}]`
      )
      results.push(
        infoOverRuns(
          `Change detection: latency, ${path.mode}${path.mode === "poll" ? ` (interval ${intervalMs} ms)` : ""}`,
          "ms from the change to mcp/resource/changed",
          values
        )
      )
    }
  } finally {
    await app.close()
    Fs.rmSync(dir, { recursive: true, force: true })
  }
  return results
}

export const run = async (ctx: Context): Promise<Output> => ({
  rows: [],
  results: [...(await pollingCost(ctx)), ...(await changeLatency(ctx))],
  notes: [
    "polling CPU is this process's (client and in-memory servers); the baseline's reads skip digests and the change path",
    "the latency samples are 'the change → the notification' as a client of the app-server sees it; the touch files are watched by the fixtures (fs.watch)"
  ]
})
