/**
 * Scenario 7, cache: the aggregate `list_mcp_resources` over 4 stdio fixture servers of 2 pages each,
 * and one `read_mcp_resource` of a 16 KiB text, from servers that answer with `ttlMs` (cached by the
 * resource client) against the same calls with `[cache] enabled = false` (every call reaches the
 * servers). Both stacks talk to their own stdio children; start-up is excluded.
 */
import { stdioCommand, type FixtureSpec } from "@mcp-resources/fixtures"
import { Config } from "@mcp-resources/protocol"
import type { ServerEntry } from "@mcp-resources/resource-client"
import { interleaved } from "../internal/harness.js"
import { makeStackOf, type Stack } from "../internal/fixtures.js"
import { atMost, info, type Output, type Result, type Row, rowOf } from "../internal/report.js"
import type { Context } from "../internal/scenario.js"

const serverCount = 4
const itemsPerPage = 50
const readBytes = 16 * 1024
const ttlMs = 10 * 60 * 1000

const spec = (name: string): FixtureSpec => {
  const page = (n: number) =>
    Array.from({ length: itemsPerPage }, (_, i) => ({ uri: `memo://${name}/${n}-${i}`, name: `${name}-${n}-${i}` }))
  return {
    name,
    resourcePages: [
      { cursor: null, result: { resources: page(1), nextCursor: "page-2", ttlMs } },
      { cursor: "page-2", result: { resources: page(2), ttlMs } }
    ],
    reads: [
      {
        uri: `memo://${name}/doc`,
        result: {
          ttlMs,
          contents: [{ uri: `memo://${name}/doc`, mimeType: "text/plain", text: "x".repeat(readBytes) }]
        }
      }
    ]
  }
}

const entries = (): Array<ServerEntry.ServerEntry> =>
  Array.from({ length: serverCount }, (_, i) => {
    const name = `srv${i}`
    const command = stdioCommand(spec(name))
    return {
      name,
      transport: { _tag: "stdio", command: command.command, args: command.args, env: {} },
      enabled: true,
      startupTimeoutSec: 30,
      toolTimeoutSec: 30,
      maxMessageBytes: 64 * 1024 * 1024
    }
  })

export const run = async (ctx: Context): Promise<Output> => {
  const rows: Array<Row> = []
  const results: Array<Result> = []
  const cached = await makeStackOf(entries())
  const uncached = await makeStackOf(entries(), { ...Config.empty, cache: { ...Config.cacheDefaults, enabled: false } })
  try {
    let call = 0
    const list = (stack: Stack) => async () => {
      const out = await stack.callTool("list_mcp_resources", "{}", `call-${call++}`)
      if (!out.success || out.output.includes("failedServers"))
        throw new Error(`aggregate list failed: ${out.output.slice(0, 300)}`)
    }
    const read = (stack: Stack) => async () => {
      const out = await stack.callTool(
        "read_mcp_resource",
        '{"server":"srv0","uri":"memo://srv0/doc"}',
        `call-${call++}`
      )
      if (!out.success) throw new Error(`read failed: ${out.output.slice(0, 300)}`)
    }
    const options = {
      iterations: ctx.quick ? 20 : 200,
      rounds: ctx.quick ? 2 : 6,
      warmupIterations: ctx.quick ? 2 : 10
    }
    const [listOff, listOn] = await interleaved(
      [
        { name: "aggregate list, uncached (stdio)", fn: list(uncached) },
        { name: "aggregate list, cached (stdio)", fn: list(cached) }
      ],
      options
    )
    const [readOff, readOn] = await interleaved(
      [
        { name: "read 16 KiB, uncached (stdio)", fn: read(uncached) },
        { name: "read 16 KiB, cached (stdio)", fn: read(cached) }
      ],
      options
    )
    const scenario = "7. cache 4x2 pages, 16 KiB read, stdio"
    for (const [base, m] of [
      [listOff!, listOff!],
      [listOff!, listOn!],
      [readOff!, readOff!],
      [readOff!, readOn!]
    ] as const) {
      rows.push(rowOf(scenario, m, base.summary.median, { ratioLabel: "vs uncached" }))
    }
    results.push(
      atMost(
        "cached aggregate list (4 stdio servers x 2 pages)",
        "ratio of wall-time medians vs uncached",
        listOn!.summary.median / listOff!.summary.median,
        0.5
      ),
      atMost(
        "cached read (16 KiB, stdio)",
        "ratio of wall-time medians vs uncached",
        readOn!.summary.median / readOff!.summary.median,
        0.5
      ),
      info("cached read (16 KiB, stdio)", "median ms", readOn!.summary.median)
    )
    ctx.log(
      `   list cached ${listOn!.summary.median.toFixed(3)} ms vs ${listOff!.summary.median.toFixed(3)} ms; read cached ${readOn!.summary.median.toFixed(3)} ms vs ${readOff!.summary.median.toFixed(3)} ms`
    )
    return { rows, results, notes: [] }
  } finally {
    await cached.dispose()
    await uncached.dispose()
  }
}
