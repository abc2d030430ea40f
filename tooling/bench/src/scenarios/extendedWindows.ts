/**
 * Scenario 9, extended windows: a 48 MiB text resource read through the extended profile's
 * `read_mcp_resource` window by window (in-memory fixture). The first window reads the body once and
 * stores it in the result cache; later windows must cost O(window), not O(body): their median is
 * reported as a ratio of the first window's time, and the heap and external memory growth after
 * reading every window is reported against the cache bound (the body is a fresh string per read, as
 * over a real transport; the text holds two- and three-byte characters, so its JavaScript string takes
 * two bytes a unit while its UTF-8 bytes are what the cache counts).
 */
import { connectInMemory } from "@mcp-resources/fixtures"
import { Config } from "@mcp-resources/protocol"
import { ToolHandlers } from "@mcp-resources/tool-handlers"
import { makeStack } from "../internal/fixtures.js"
import { atMost, info, type Output, type Result } from "../internal/report.js"
import type { Context } from "../internal/scenario.js"

const bodyBytes = 48 * 1024 * 1024
const uri = "big://log"

/** Heap plus memory outside it (`external` already includes every Buffer's `arrayBuffers`: not added twice). */
const memory = (): number => {
  ;(globalThis as { gc?: () => void }).gc?.()
  const usage = process.memoryUsage()
  return usage.heapUsed + usage.external
}

export const run = async (ctx: Context): Promise<Output> => {
  const results: Array<Result> = []
  const line = "2026-01-01T00:00:00Z INFO request served in 12 ms — ok ✓\n"
  const text = line.repeat(Math.ceil(bodyBytes / Buffer.byteLength(line)))
  const total = Buffer.byteLength(text)
  // each read answers a freshly parsed result, as a stdio or HTTP transport would: the in-memory
  // transport passes results by reference, and the fixture's own string must not stand in for the
  // client's copy (its memory would not count as growth)
  const json = JSON.stringify({ contents: [{ uri, mimeType: "text/plain", text }] })
  const fixture = connectInMemory({
    reads: [
      {
        uri,
        get result() {
          return JSON.parse(json) as Record<string, unknown>
        }
      }
    ]
  })
  const stack = await makeStack([{ name: "srv", fixture }], 64 * 1024 * 1024)
  const extended: ToolHandlers.ToolContext = { ...stack.ctx, profile: "extended" }
  let call = 0
  const read = async (offset: number) => {
    const out = await stack.runtime.runPromise(
      ToolHandlers.callTool(extended, {
        callId: `w-${call++}`,
        name: "read_mcp_resource",
        arguments: JSON.stringify({ server: "srv", uri, offset })
      })
    )
    if (!out.success) throw new Error(`window read failed: ${out.output.slice(0, 300)}`)
    const next = /with offset (\d+)\]$/.exec(out.output)
    return next === null ? undefined : Number(next[1])
  }
  try {
    const before = memory()
    const t0 = performance.now()
    let offset: number | undefined = await read(0)
    const first = performance.now() - t0
    const later: Array<number> = []
    const limit = ctx.quick ? 50 : Number.POSITIVE_INFINITY
    while (offset !== undefined && later.length < limit) {
      const t = performance.now()
      offset = await read(offset)
      later.push(performance.now() - t)
    }
    const grown = memory() - before
    const requests = fixture.requests.filter((r) => r.method === "resources/read").length
    later.sort((a, b) => a - b)
    const median = later[Math.floor(later.length / 2)] ?? 0
    results.push(
      info("48 MiB in windows: first window", "ms", first),
      info("48 MiB in windows: later window", "median ms", median),
      atMost("48 MiB in windows: later window vs first", "ratio of medians", median / first, 0.05),
      atMost("48 MiB in windows: resources/read requests", "count", requests, 1),
      atMost(
        "48 MiB in windows: memory growth vs cache bound",
        "ratio (heap + external after every window)",
        grown / Config.cacheDefaults.maxBytes,
        1
      ),
      info("48 MiB in windows: windows read", "count", later.length + 1)
    )
    ctx.log(
      `   ${total} bytes in ${later.length + 1} windows: first ${first.toFixed(1)} ms, later median ${median.toFixed(3)} ms, ${requests} read request(s), memory +${(grown / 1048576).toFixed(1)} MiB`
    )
    return { rows: [], results, notes: [] }
  } finally {
    await stack.dispose()
    await fixture.closeAll()
  }
}
