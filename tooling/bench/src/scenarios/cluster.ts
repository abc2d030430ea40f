/**
 * Scenario 16, many app-servers as one (issue #42): three clustered app-servers (`[cluster] enabled`)
 * on one throw-away PostgreSQL cluster, each listening on a loopback WebSocket with its own connection
 * to the widget apps fixture, driven by the typed client. Set up once; each repeated run measures:
 *
 * - **Notifications across instances.** A `turn/start` sent on A; the time until its `turn/started`
 *   reaches a connection on B that resumed the thread (across instances: PostgreSQL `NOTIFY`, then B
 *   reads the record from the store), against the time until it reaches a second connection on A
 *   (the same instance). Targets: cross p50 at most 3x the same-instance p50, cross p99 at most 20 ms.
 * - **Read your writes.** A widget's tool call acknowledged on A, then at once the call's widget read
 *   (`mcp/resource/read` with `originCallId`) on B: the success rate (target: every read), and its
 *   p50 against the same read on A.
 * - **Throughput.** Six connections, each with its own thread, making widget tool calls one after the
 *   other (every call appends its items to PostgreSQL and announces them): all on A, spread over A and
 *   B, and over A, B and C; calls per second against one instance. On a 2-core machine the three
 *   app-servers, PostgreSQL and the driving client share two cores: more instances cannot add CPU.
 *
 * Without PostgreSQL server binaries (or a usable `postgres` user) the scenario is skipped with the reason.
 */
import { type ChildProcess, spawn } from "node:child_process"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { PromiseClient } from "@mcp-resources/app-server-client"
import { startPgCluster, stdioCommand, widgetAppsSpec, widgetUri } from "@mcp-resources/fixtures"
import { atLeast, atMost, info, type Output, type Row } from "../internal/report.js"
import type { Context, Prepared } from "../internal/scenario.js"
import { summarize } from "../internal/stats.js"
import { appServerMain } from "./startup.js"

const scenario = "16. three clustered app-servers"
const tool = "mcp__codex_apps__best_buy_product_search"

/** What a connection learns of turns: when each `turn/started` arrived, by turn id. */
interface Watched {
  readonly client: PromiseClient.PromiseClient
  /** Resolves with the arrival time of `turnId`'s `turn/started` (rejects after 10 s). */
  readonly started: (turnId: string) => Promise<number>
}

const watch = (client: PromiseClient.PromiseClient): Watched => {
  const arrived = new Map<string, number>()
  const waiting = new Map<string, (at: number) => void>()
  client.onNotification((n) => {
    if (n.method !== "turn/started") return
    const turnId = (n.params as { turnId: string }).turnId
    const at = performance.now()
    const resolve = waiting.get(turnId)
    if (resolve !== undefined) {
      waiting.delete(turnId)
      resolve(at)
    } else arrived.set(turnId, at)
  })
  return {
    client,
    started: (turnId) => {
      const at = arrived.get(turnId)
      if (at !== undefined) return Promise.resolve(at)
      return new Promise<number>((resolve, reject) => {
        const timer = setTimeout(() => {
          waiting.delete(turnId)
          reject(new Error(`turn/started of ${turnId} did not arrive within 10 s`))
        }, 10_000)
        waiting.set(turnId, (value) => {
          clearTimeout(timer)
          resolve(value)
        })
      })
    }
  }
}

/** The `ws://` url an instance logs once it listens (60 s at most). */
const listening = (child: ChildProcess, name: string): Promise<string> =>
  new Promise((resolve, reject) => {
    let seen = ""
    const timer = setTimeout(() => reject(new Error(`instance ${name} did not listen within 60 s: ${seen}`)), 60_000)
    child.stderr!.setEncoding("utf8")
    child.stderr!.on("data", (chunk: string) => {
      seen = (seen + chunk).slice(-4000)
      const found = /listening on (ws:\/\/[^\s"]+)/.exec(seen)
      if (found !== null) {
        clearTimeout(timer)
        resolve(found[1]!)
      }
    })
    child.once("exit", (code) => {
      clearTimeout(timer)
      reject(new Error(`instance ${name} exited with code ${code}: ${seen}`))
    })
  })

/** Ends an instance (SIGTERM, then SIGKILL after 10 s). */
const stop = (child: ChildProcess): Promise<void> =>
  new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve()
    const timer = setTimeout(() => child.kill("SIGKILL"), 10_000)
    child.once("exit", () => {
      clearTimeout(timer)
      resolve()
    })
    child.kill("SIGTERM")
  })

export const prepare = async (ctx: Context): Promise<Prepared> => {
  if (!Fs.existsSync(appServerMain)) throw new Error(`${appServerMain} is not built`)
  const pg = await startPgCluster()
  if ("skipped" in pg) {
    ctx.log(`   skipped: ${pg.skipped}`)
    return {
      run: async () => ({ rows: [], results: [], notes: [`scenario 16 skipped: ${pg.skipped}`] }),
      dispose: async () => {}
    }
  }
  const dir = Fs.mkdtempSync(Path.join(Os.tmpdir(), "mcp-bench-cluster-"))
  const config = Path.join(dir, "config.json")
  const apps = stdioCommand(widgetAppsSpec())
  Fs.writeFileSync(
    config,
    JSON.stringify({
      mcp_servers: { codex_apps: { command: apps.command, args: apps.args } },
      persistence: { driver: "postgres", url: pg.url },
      cluster: { enabled: true }
    })
  )
  const env = {
    ...process.env,
    MCP_RESOURCES_LOG: "info",
    MCP_RESOURCES_TOKEN_KEY: Buffer.alloc(32, 7).toString("base64")
  }
  const children: Array<ChildProcess> = []
  const clients: Array<PromiseClient.PromiseClient> = []
  const dispose = async () => {
    await Promise.all(clients.map((client) => client.close().catch(() => undefined)))
    await Promise.all(children.map(stop))
    await pg.stop()
    Fs.rmSync(dir, { recursive: true, force: true })
  }
  /** Starts an instance listening on a WebSocket of a free loopback port; answers its `ws://` url. */
  const instance = async (name: string): Promise<string> => {
    const child = spawn(
      process.execPath,
      [
        appServerMain,
        "--config",
        config,
        "--data-dir",
        Path.join(dir, name),
        "--listen",
        "ws://127.0.0.1:0",
        "--no-stdio"
      ],
      { env, stdio: ["ignore", "ignore", "pipe"] }
    )
    children.push(child)
    return listening(child, name)
  }
  const connect = async (url: string): Promise<PromiseClient.PromiseClient> => {
    const client = await PromiseClient.connectWebSocket({ url }, { requestTimeoutMs: 60_000 })
    clients.push(client)
    await client.requestUnknown("initialize", { clientInfo: { name: "bench" } })
    return client
  }
  try {
    const urls = await Promise.all(["a", "b", "c"].map(instance))
    const [a1, a2, b1] = await Promise.all([connect(urls[0]!), connect(urls[0]!), connect(urls[1]!)])
    const sameA = watch(a2)
    const onB = watch(b1)
    const { thread } = (await a1.requestUnknown("thread/start", {})) as { thread: { id: string } }
    await a2.requestUnknown("thread/resume", { threadId: thread.id })
    await b1.requestUnknown("thread/resume", { threadId: thread.id })
    // the throughput workload: six threads, and a connection per thread on each instance
    const slots = 6
    const workers = await Promise.all(urls.map((url) => Promise.all(Array.from({ length: slots }, () => connect(url)))))
    const workerThreads: Array<string> = []
    for (let slot = 0; slot < slots; slot++) {
      const started = (await workers[0]![slot]!.requestUnknown("thread/start", {})) as { thread: { id: string } }
      await workers[0]![slot]!.requestUnknown("turn/start", { threadId: started.thread.id, turnId: "t" })
      workerThreads.push(started.thread.id)
    }
    let turns = 0
    let calls = 0
    const call = (client: PromiseClient.PromiseClient, threadId: string, turnId: string) =>
      client.requestUnknown("tool/call", {
        threadId,
        turnId,
        callId: `c${++calls}`,
        name: tool,
        arguments: JSON.stringify({ query: "tv" })
      })
    // warm-up: every instance has served the thread, the apps server and the store
    await a1.requestUnknown("turn/start", { threadId: thread.id, turnId: "warm" })
    await Promise.all([sameA.started("warm"), onB.started("warm")])
    for (let i = 0; i < 20; i++) await call(a1, thread.id, "warm")
    for (const onInstance of workers)
      for (let slot = 0; slot < slots; slot++) await call(onInstance[slot]!, workerThreads[slot]!, "t")

    const run = async (index: number): Promise<Output> => {
      const n = ctx.quick ? 30 : 100
      // 1. notification latency: sent on A, received on A's second connection and on B
      const same: Array<number> = []
      const cross: Array<number> = []
      for (let i = 0; i < n; i++) {
        const turnId = `n${++turns}`
        const sent = performance.now()
        await a1.requestUnknown("turn/start", { threadId: thread.id, turnId })
        const [atA, atB] = await Promise.all([sameA.started(turnId), onB.started(turnId)])
        same.push(atA - sent)
        cross.push(atB - sent)
      }
      // 2. read your writes: the call on A, the widget read at once on B, then the same read on A
      const reads = ctx.quick ? 50 : 200
      const readTurn = `r${index}`
      await a1.requestUnknown("turn/start", { threadId: thread.id, turnId: readTurn })
      const onBRead: Array<number> = []
      const onARead: Array<number> = []
      let succeeded = 0
      for (let i = 0; i < reads; i++) {
        await call(a1, thread.id, readTurn)
        const params = { threadId: thread.id, originCallId: `c${calls}`, server: "codex_apps", uri: widgetUri }
        let t = performance.now()
        const read = await b1.requestUnknown("mcp/resource/read", params).then(
          () => true,
          () => false
        )
        onBRead.push(performance.now() - t)
        if (read) succeeded++
        t = performance.now()
        await a1.requestUnknown("mcp/resource/read", params)
        onARead.push(performance.now() - t)
      }
      // 3. throughput: six connections on 1, 2 or 3 instances (alternating order between runs)
      const perWorker = ctx.quick ? 10 : 40
      const spreads = index % 2 === 0 ? [1, 2, 3] : [3, 2, 1]
      const rps = new Map<number, number>()
      for (const count of spreads) {
        // thread `slot` is driven through instance `slot % count`
        const started = performance.now()
        await Promise.all(
          Array.from({ length: slots }, async (_, slot) => {
            const via = workers[slot % count]![slot]!
            for (let i = 0; i < perWorker; i++) await call(via, workerThreads[slot]!, "t")
          })
        )
        rps.set(count, (slots * perWorker * 1000) / (performance.now() - started))
      }
      const s = summarize(same)
      const c = summarize(cross)
      const rb = summarize(onBRead)
      const ra = summarize(onARead)
      const one = rps.get(1)!
      ctx.log(
        `   notifications: same instance p50 ${s.median.toFixed(2)} ms p99 ${s.p99.toFixed(2)} ms, across p50 ${c.median.toFixed(2)} ms p99 ${c.p99.toFixed(2)} ms; ` +
          `reads on B ${succeeded}/${reads} p50 ${rb.median.toFixed(2)} ms (on A ${ra.median.toFixed(2)} ms); ` +
          `calls/s ${[1, 2, 3].map((k) => `${k}: ${rps.get(k)!.toFixed(0)}`).join(", ")}`
      )
      const rows: Array<Row> = [
        { scenario, task: "turn/started, same instance", n: s.n, median: s.median, p95: s.p95, ratio: 1 },
        {
          scenario,
          task: "turn/started, across instances",
          n: c.n,
          median: c.median,
          p95: c.p95,
          ratio: c.median / s.median,
          extra: `p99 ${c.p99.toFixed(2)} ms`
        },
        { scenario, task: "widget read after the call, on A", n: ra.n, median: ra.median, p95: ra.p95, ratio: 1 },
        {
          scenario,
          task: "widget read after the call, on B",
          n: rb.n,
          median: rb.median,
          p95: rb.p95,
          ratio: rb.median / ra.median,
          extra: `${succeeded}/${reads} succeeded`
        }
      ]
      return {
        rows,
        results: [
          atMost("Cluster: turn/started across instances", "p50 ratio to the same instance", c.median / s.median, 3),
          atMost("Cluster: turn/started across instances", "p99 ms", c.p99, 20),
          atLeast("Cluster: widget read on B right after the call on A", "success rate", succeeded / reads, 1),
          info(
            "Cluster: widget read on B right after the call on A",
            "p50 ratio to the read on A",
            rb.median / ra.median
          ),
          info("Cluster: widget calls, 6 connections on 2 instances", "calls/s ratio to 1 instance", rps.get(2)! / one),
          info("Cluster: widget calls, 6 connections on 3 instances", "calls/s ratio to 1 instance", rps.get(3)! / one),
          info("Cluster: widget calls, 6 connections on 1 instance", "calls/s", one)
        ],
        notes: [`scenario 16: ${succeeded} of ${reads} widget reads on B succeeded`]
      }
    }
    return { run, dispose }
  } catch (error) {
    await dispose()
    throw error
  }
}
