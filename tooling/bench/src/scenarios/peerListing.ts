/**
 * Scenario 10, aggregate listing against peers: 32 stdio fixture servers of 3 pages each, every page
 * answered after 20 ms, all resources of all servers. Sides (each over its own 32 children of the same
 * fixture, all connected before timing): ours (`list_mcp_resources` without arguments), LangChain's
 * `MultiServerMCPClient.listResources()`, the Vercel AI SDK's MCP client (one client per server, the
 * pages walked per server, servers in `Promise.all`), the raw v2 SDK client (`Promise.all`), and a
 * sequential host (the raw v2 clients, one server after another). Target: ours within 1.1x of the
 * fastest side that lists every resource, at the median of repeated runs.
 */
import { interleaved, type TaskDef } from "../internal/harness.js"
import {
  type AiSdkClient,
  connectAiSdk,
  connectLangChain,
  connectOurs,
  connectRawV2,
  type LangChainClient,
  listAllAiSdk,
  listAllV2,
  type Server,
  tryPeer,
  versionOf
} from "../internal/peers.js"
import {
  atMostOverRuns,
  infoOverRuns,
  type Output,
  type Result,
  type Row,
  rowOf,
  spreadOf
} from "../internal/report.js"
import type { Context } from "../internal/scenario.js"

const serverCount = 32
const pageDelayMs = 20
const itemsPerPage = 10
const expected = serverCount * 3 * itemsPerPage

const servers: ReadonlyArray<Server> = Array.from({ length: serverCount }, (_, i) => {
  const name = `srv${String(i).padStart(2, "0")}`
  const page = (n: number) =>
    Array.from({ length: itemsPerPage }, (_, j) => ({ uri: `memo://${name}/${n}-${j}`, name: `${name}-${n}-${j}` }))
  return {
    name,
    spec: {
      name,
      resourcePages: [
        { cursor: null, result: { resources: page(1), nextCursor: "page-2" }, delayMs: pageDelayMs },
        { cursor: "page-2", result: { resources: page(2), nextCursor: "page-3" }, delayMs: pageDelayMs },
        { cursor: "page-3", result: { resources: page(3) }, delayMs: pageDelayMs }
      ]
    }
  }
})

export const run = async (ctx: Context): Promise<Output> => {
  const rows: Array<Row> = []
  const results: Array<Result> = []
  const notes: Array<string> = []
  const started = performance.now()
  const ours = await connectOurs(servers)
  const raw = await connectRawV2(servers)
  const aiSdk = await tryPeer<Map<string, AiSdkClient>>(
    `@ai-sdk/mcp ${versionOf("@ai-sdk/mcp")}`,
    () => connectAiSdk(servers),
    notes
  )
  const langChain = await tryPeer<LangChainClient>(
    `@langchain/mcp-adapters ${versionOf("@langchain/mcp-adapters")}`,
    () => connectLangChain(servers),
    notes
  )
  ctx.log(`   set-up: ${4 * serverCount} stdio children in ${((performance.now() - started) / 1000).toFixed(1)} s`)
  try {
    let call = 0
    const lastUri = `memo://srv${String(serverCount - 1).padStart(2, "0")}/3-${itemsPerPage - 1}`
    const oursFn = async () => {
      const out = await ours.callTool("list_mcp_resources", "{}", `call-${call++}`)
      if (!out.success || out.output.includes("failedServers") || !out.output.includes(lastUri))
        throw new Error(`aggregate list failed: ${out.output.slice(0, 300)}`)
    }
    const rawClients = [...raw.values()]
    const rawFn = async () => {
      const counts = await Promise.all(rawClients.map(listAllV2))
      const total = counts.reduce((a, b) => a + b, 0)
      if (total !== expected) throw new Error(`raw v2 listed ${total}, expected ${expected}`)
    }
    const sequentialFn = async () => {
      let total = 0
      for (const client of rawClients) total += await listAllV2(client)
      if (total !== expected) throw new Error(`sequential host listed ${total}, expected ${expected}`)
    }
    const aiClients = aiSdk === undefined ? [] : [...aiSdk.values()]
    const aiFn = async () => {
      const counts = await Promise.all(aiClients.map(listAllAiSdk))
      const total = counts.reduce((a, b) => a + b, 0)
      if (total !== expected) throw new Error(`@ai-sdk/mcp listed ${total}, expected ${expected}`)
    }
    let langChainCount = 0
    const langChainFn = async () => {
      const listed = await langChain!.listResources()
      langChainCount = Object.values(listed).reduce((a, list) => a + list.length, 0)
    }
    const tasks: Array<TaskDef> = [
      { name: "raw v2 client, Promise.all", fn: rawFn },
      { name: "ours: list_mcp_resources {}", fn: oursFn },
      ...(aiSdk === undefined ? [] : [{ name: "@ai-sdk/mcp, client per server", fn: aiFn }]),
      ...(langChain === undefined
        ? []
        : [{ name: "LangChain MultiServerMCPClient.listResources()", fn: langChainFn, weight: 0.3 }]),
      { name: "sequential host (raw v2)", fn: sequentialFn, weight: 0.25 }
    ]
    const perRun: Array<Array<{ name: string; median: number }>> = []
    let last: Awaited<ReturnType<typeof interleaved>> = []
    for (let r = 0; r < ctx.runs; r++) {
      last = await interleaved(tasks, {
        iterations: ctx.quick ? 4 : 12,
        rounds: 2,
        warmupIterations: r === 0 ? 2 : 1
      })
      perRun.push(last.map((m) => ({ name: m.name, median: m.summary.median })))
      ctx.log(`   run ${r + 1}: ${last.map((m) => `${m.name} ${m.summary.median.toFixed(1)} ms`).join(", ")}`)
    }
    const medianOf = (run: Array<{ name: string; median: number }>, name: string) =>
      run.find((m) => m.name === name)!.median
    const oursName = tasks[1]!.name
    // the fastest side that lists every resource (LangChain's listResources reads one page per server)
    const complete = tasks.filter((t) => t.name !== oursName && !t.name.startsWith("LangChain")).map((t) => t.name)
    const vsFastest = perRun.map((run) => medianOf(run, oursName) / Math.min(...complete.map((n) => medianOf(run, n))))
    const scenario = `10. listing ${serverCount}x3 pages, 20 ms, stdio`
    const rawName = tasks[0]!.name
    for (const m of last) {
      const ratios = perRun.map((run) => medianOf(run, m.name) / medianOf(run, rawName))
      rows.push({
        ...rowOf(scenario, m, medianOf(perRun[perRun.length - 1]!, rawName), {
          ratioLabel: "vs raw v2",
          ...(m.name.startsWith("LangChain")
            ? { extra: `lists ${langChainCount} of ${expected} resources (first page per server, servers one by one)` }
            : {})
        }),
        spread: spreadOf(ratios)
      })
    }
    const name = `listing ${serverCount} stdio servers x 3 pages`
    results.push(atMostOverRuns(name, "ours / fastest complete side (median of each run)", vsFastest, 1.1))
    results.push(
      infoOverRuns(
        name,
        "ours / sequential host",
        perRun.map((run) => medianOf(run, oursName) / medianOf(run, tasks[tasks.length - 1]!.name))
      )
    )
    if (langChain !== undefined && langChainCount !== expected)
      notes.push(
        `LangChain MultiServerMCPClient.listResources() returned ${langChainCount} of ${expected} resources: it asks each server for its first page only, one server after another`
      )
    return { rows, results, notes }
  } finally {
    await ours.dispose()
    await Promise.all([...raw.values()].map((c) => c.close()))
    if (aiSdk !== undefined) await Promise.all([...aiSdk.values()].map((c) => c.close()))
    if (langChain !== undefined) await langChain.close()
  }
}
