/**
 * Scenario 2, fan-out: the aggregate `list_mcp_resources` (no arguments) over 32 in-memory servers of 3
 * pages each, every page answered after 20 ms, against the same call on one such server alone, and
 * against a naive host that lists the 32 servers one after another with the raw SDK (start-up excluded:
 * every connection is ready before timing starts).
 */
import type { InMemoryFixture } from "@mcp-resources/fixtures"
import type { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { interleaved, medianPeakMemory } from "../internal/harness.js"
import { type Output, type Result, type Row, atMost, info, rowOf } from "../internal/report.js"
import { profileTop } from "../internal/profile.js"
import { type Context, perRun } from "../internal/scenario.js"
import { connectInMemory, type FixtureSpec, makeStack, sdkClient } from "../internal/fixtures.js"

const serverCount = 32
const pageDelayMs = 20
const itemsPerPage = 10

const spec = (name: string): FixtureSpec => {
  const page = (n: number) =>
    Array.from({ length: itemsPerPage }, (_, i) => ({ uri: `memo://${name}/${n}-${i}`, name: `${name}-${n}-${i}` }))
  return {
    name,
    resourcePages: [
      { cursor: null, result: { resources: page(1), nextCursor: "page-2" }, delayMs: pageDelayMs },
      { cursor: "page-2", result: { resources: page(2), nextCursor: "page-3" }, delayMs: pageDelayMs },
      { cursor: "page-3", result: { resources: page(3) }, delayMs: pageDelayMs }
    ]
  }
}

const listAll = async (client: Client): Promise<number> => {
  let count = 0
  let cursor: string | undefined
  do {
    const page = await client.listResources(cursor === undefined ? undefined : { cursor })
    count += page.resources.length
    cursor = page.nextCursor
  } while (cursor !== undefined)
  return count
}

export const run = async (ctx: Context): Promise<Output> => {
  const rows: Array<Row> = []
  const results: Array<Result> = []
  const notes: Array<string> = []
  const names = Array.from({ length: serverCount }, (_, i) => `srv${String(i).padStart(2, "0")}`)
  const fixtures: Array<{ name: string; fixture: InMemoryFixture }> = names.map((name) => ({
    name,
    fixture: connectInMemory(spec(name))
  }))
  const all = await makeStack(fixtures)
  const alone = await makeStack([fixtures[0]!])
  const clients = await Promise.all(fixtures.map(({ fixture }) => sdkClient(fixture)))
  try {
    const expected = serverCount * 3 * itemsPerPage
    let call = 0
    const ours = async () => {
      const out = await all.callTool("list_mcp_resources", "{}", `call-${call++}`)
      if (!out.success || out.output.includes("failedServers"))
        throw new Error(`aggregate list failed: ${out.output.slice(0, 300)}`)
    }
    const one = async () => {
      const out = await alone.callTool("list_mcp_resources", "{}", `call-${call++}`)
      if (!out.success || out.output.includes("failedServers"))
        throw new Error(`list failed: ${out.output.slice(0, 300)}`)
    }
    const naive = async () => {
      let count = 0
      for (const client of clients) count += await listAll(client)
      if (count !== expected) throw new Error(`naive host listed ${count} resources, expected ${expected}`)
    }
    const [a, o, n] = await interleaved(
      [
        { name: "one server alone", fn: one },
        { name: "aggregate over 32", fn: ours },
        { name: "naive sequential 32", fn: naive, weight: 0.25 }
      ],
      {
        iterations: ctx.quick ? 8 : perRun(ctx, 60, 24),
        rounds: ctx.quick ? 2 : 6,
        warmupIterations: ctx.quick ? 2 : 4
      }
    )
    const scenario = "2. fan-out 32x3 pages, 20 ms"
    const base = a!.summary.median
    const memRuns = ctx.quick ? 1 : 5
    for (const [m, fn] of [
      [a!, one],
      [o!, ours],
      [n!, naive]
    ] as const) {
      rows.push(
        rowOf(scenario, m, base, {
          ratioLabel: "vs one alone",
          memory: m === n ? undefined : await medianPeakMemory(fn, memRuns)
        })
      )
    }
    const check = atMost(
      "fan-out 32 servers x 3 pages",
      "ratio of wall-time medians vs one server alone",
      o!.summary.median / base,
      1.3
    )
    results.push(check)
    if (check.met === false)
      notes.push(`missed; profile of the aggregate list: ${await profileTop(ours, ctx.quick ? 3 : 20)}`)
    results.push(
      info(
        "fan-out 32 servers x 3 pages",
        "ratio of wall-time medians vs naive sequential host",
        o!.summary.median / n!.summary.median
      )
    )
    ctx.log(
      `   ours ${o!.summary.median.toFixed(1)} ms, alone ${base.toFixed(1)} ms, naive ${n!.summary.median.toFixed(1)} ms`
    )
    return { rows, results, notes }
  } finally {
    await Promise.all(clients.map((c) => c.close()))
    await all.dispose()
    await alone.dispose()
    await Promise.all(fixtures.map(({ fixture }) => fixture.closeAll()))
  }
}
