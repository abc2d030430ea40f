/**
 * Scenario 11, reads against peers over stdio: a 1 KiB text, a 1 MiB text and a 1 MiB blob, read one
 * at a time from one stdio fixture server. Sides (each over its own child of the same fixture, ready
 * before timing): the raw v2 SDK client (`client.readResource`), ours (`read_mcp_resource`, codex and
 * extended profile over one connection, the result cache off so that every call reads the server),
 * the Vercel AI SDK's MCP client and LangChain's `MultiServerMCPClient.readResource`. Targets, at the
 * median of repeated runs: at most 0.2 ms of p50 added per 1 KiB read over the raw client (codex
 * profile); 1 MiB within 1.1x the raw client.
 */
import { ToolHandlers } from "@mcp-resources/tool-handlers"
import { interleaved, type TaskDef } from "../internal/harness.js"
import {
  type AiSdkClient,
  connectAiSdk,
  connectLangChain,
  connectOurs,
  connectRawV2,
  type LangChainClient,
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

const KiB = 1024
const MiB = 1024 * 1024

interface Size {
  readonly label: string
  readonly uri: string
  readonly content: Record<string, unknown>
  readonly iterations: number
  readonly quick: number
}

const blob = Buffer.alloc(MiB)
for (let i = 0; i < blob.length; i++) blob[i] = (i * 31 + 7) & 0xff

const sizes: ReadonlyArray<Size> = [
  { label: "1 KiB text", uri: "bench://text-1k", content: { text: "x".repeat(KiB) }, iterations: 200, quick: 20 },
  { label: "1 MiB text", uri: "bench://text-1m", content: { text: "y".repeat(MiB) }, iterations: 30, quick: 4 },
  {
    label: "1 MiB blob",
    uri: "bench://blob-1m",
    content: { blob: blob.toString("base64"), mimeType: "application/octet-stream" },
    iterations: 30,
    quick: 4
  }
]

const server: Server = {
  name: "bench",
  spec: {
    name: "bench",
    reads: sizes.map((s) => ({
      uri: s.uri,
      result: { contents: [{ uri: s.uri, mimeType: "text/plain", ...s.content }] }
    }))
  }
}

export const run = async (ctx: Context): Promise<Output> => {
  const rows: Array<Row> = []
  const results: Array<Result> = []
  const notes: Array<string> = []
  const ours = await connectOurs([server], "codex", false)
  const raw = (await connectRawV2([server])).get("bench")!
  const aiSdk = (
    await tryPeer<Map<string, AiSdkClient>>(
      `@ai-sdk/mcp ${versionOf("@ai-sdk/mcp")}`,
      () => connectAiSdk([server]),
      notes
    )
  )?.get("bench")
  const langChain = await tryPeer<LangChainClient>(
    `@langchain/mcp-adapters ${versionOf("@langchain/mcp-adapters")}`,
    () => connectLangChain([server]),
    notes
  )
  try {
    let call = 0
    for (const size of sizes) {
      const args = JSON.stringify({ server: "bench", uri: size.uri })
      const oursCodex = async () => {
        const out = await ours.callTool("read_mcp_resource", args, `call-${call++}`)
        if (!out.success) throw new Error(`read failed: ${out.output.slice(0, 300)}`)
      }
      const extended: ToolHandlers.ToolContext = { ...ours.ctx, profile: "extended" }
      const oursExtended = async () => {
        const out = await ours.runtime.runPromise(
          ToolHandlers.callTool(extended, { callId: `call-${call++}`, name: "read_mcp_resource", arguments: args })
        )
        if (!out.success) throw new Error(`extended read failed: ${out.output.slice(0, 300)}`)
      }
      const rawFn = async () => {
        const result = await raw.readResource({ uri: size.uri })
        if (result.contents.length !== 1) throw new Error("raw v2 read: unexpected contents")
      }
      const tasks: Array<TaskDef> = [
        { name: "raw v2 client", fn: rawFn },
        { name: "ours codex: read_mcp_resource", fn: oursCodex },
        { name: "ours extended: read_mcp_resource", fn: oursExtended },
        ...(aiSdk === undefined
          ? []
          : [
              {
                name: "@ai-sdk/mcp readResource",
                fn: async () => {
                  const result = await aiSdk.readResource({ uri: size.uri })
                  if (result.contents.length !== 1) throw new Error("@ai-sdk/mcp read: unexpected contents")
                }
              }
            ]),
        ...(langChain === undefined
          ? []
          : [
              {
                name: "LangChain readResource",
                fn: async () => {
                  const contents = await langChain.readResource("bench", size.uri)
                  if (contents.length !== 1) throw new Error("LangChain read: unexpected contents")
                }
              }
            ])
      ]
      const perRun: Array<Map<string, number>> = []
      let last: Awaited<ReturnType<typeof interleaved>> = []
      for (let r = 0; r < ctx.runs; r++) {
        last = await interleaved(tasks, {
          iterations: ctx.quick ? size.quick : size.iterations,
          rounds: ctx.quick ? 2 : 4,
          warmupIterations: ctx.quick ? 2 : r === 0 ? 10 : 3
        })
        perRun.push(new Map(last.map((m) => [m.name, m.summary.median])))
      }
      const rawName = tasks[0]!.name
      const scenario = `11. read ${size.label}, stdio`
      const lastRaw = perRun[perRun.length - 1]!.get(rawName)!
      for (const m of last) {
        rows.push({
          ...rowOf(scenario, m, lastRaw, { ratioLabel: "vs raw v2" }),
          spread: spreadOf(perRun.map((run) => run.get(m.name)! / run.get(rawName)!))
        })
      }
      ctx.log(`   ${size.label}: ${last.map((m) => `${m.name} ${m.summary.median.toFixed(3)} ms`).join(", ")}`)
      const name = `read ${size.label} (stdio)`
      for (const profile of ["codex", "extended"] as const) {
        const oursName = tasks[profile === "codex" ? 1 : 2]!.name
        if (size.label === "1 KiB text") {
          const added = perRun.map((run) => run.get(oursName)! - run.get(rawName)!)
          results.push(
            profile === "codex"
              ? atMostOverRuns(name, `ms of p50 added over the raw v2 client (${profile})`, added, 0.2)
              : infoOverRuns(name, `ms of p50 added over the raw v2 client (${profile})`, added)
          )
        } else {
          const ratios = perRun.map((run) => run.get(oursName)! / run.get(rawName)!)
          results.push(atMostOverRuns(name, `ratio of medians vs the raw v2 client (${profile})`, ratios, 1.1))
        }
      }
    }
    return { rows, results, notes }
  } finally {
    await ours.dispose()
    await raw.close()
    await aiSdk?.close()
    await langChain?.close()
  }
}
