/**
 * Scenario 14, what changed (issue #44): one edited line in a 1 MiB text, read again through the
 * extended profile's `read_mcp_resource` with `since: "last"` (in-memory fixtures before and after the
 * edit, one host `Bodies` keeping the first read's text as the app-server's body store does). Reported:
 * the bytes the model is given by the diff against those of a whole re-read (the body itself, the
 * least a whole re-read gives, windows and notes not counted), target at most 1%, and the diffed
 * read's time.
 */
import { createHash } from "node:crypto"
import { connectInMemory } from "@mcp-resources/fixtures"
import type { ToolCallItem } from "@mcp-resources/protocol"
import { ToolHandlers } from "@mcp-resources/tool-handlers"
import { Effect, Option } from "effect"
import { makeStack } from "../internal/fixtures.js"
import { atMost, info, type Output } from "../internal/report.js"
import type { Context } from "../internal/scenario.js"

const uri = "doc://big"
const lineCount = 16384

/** A 1 MiB text of 64-byte lines; `edited`: its middle line changed. */
const body = (edited: boolean): string =>
  `${Array.from({ length: lineCount }, (_, i) =>
    edited && i === lineCount / 2
      ? `line ${String(i).padStart(5, "0")} EDITED ${"x".repeat(45)}`
      : `line ${String(i).padStart(5, "0")} ${"x".repeat(52)}`
  ).join("\n")}\n`

export const run = async (ctx: Context): Promise<Output> => {
  const [before, after] = [body(false), body(true)]
  const kept = new Map<string, Uint8Array>()
  const reads: Array<ToolHandlers.EarlierRead> = []
  const bodies: ToolHandlers.Bodies = {
    keep: (bytes) =>
      Effect.sync(() => {
        kept.set(createHash("sha256").update(bytes).digest("hex"), Uint8Array.from(bytes))
        return true
      }),
    get: (digest) => Effect.sync(() => Option.fromNullable(kept.get(digest))),
    earlier: ({ server, uri }) =>
      Effect.sync(() =>
        Option.fromNullable([...reads].reverse().find((r) => r.server === server && r.read.uri === uri))
      )
  }
  const fixtures = [before, after].map((text) =>
    connectInMemory({ reads: [{ uri, result: { contents: [{ uri, mimeType: "text/plain", text }] } }] })
  )
  const stacks = await Promise.all(fixtures.map((fixture) => makeStack([{ name: "srv", fixture }], 64 * 1024 * 1024)))
  try {
    const [first, second] = stacks.map((stack) => ({ ...stack.ctx, profile: "extended" as const, bodies })) as [
      ToolHandlers.ToolContext,
      ToolHandlers.ToolContext
    ]
    // the first read: its body kept, its digests recorded as the app-server records them from the item
    const firstOut = await stacks[0]!.runtime.runPromise(
      ToolHandlers.callTool(first, {
        callId: "r1",
        name: "read_mcp_resource",
        arguments: JSON.stringify({ server: "srv", uri })
      })
    )
    if (!firstOut.success) throw new Error(`first read failed: ${firstOut.output.slice(0, 300)}`)
    const contents: Array<ToolCallItem.ReadBody> = [
      {
        digest: createHash("sha256").update(before).digest("hex"),
        size: Buffer.byteLength(before),
        text: true,
        kept: true
      }
    ]
    reads.push({ callId: "r1", server: "srv", read: { uri, contents } })
    const times: Array<number> = []
    let output = ""
    for (let i = 0; i < (ctx.quick ? 3 : 10); i++) {
      const t = performance.now()
      const out = await stacks[1]!.runtime.runPromise(
        ToolHandlers.callTool(second, {
          callId: `r${i + 2}`,
          name: "read_mcp_resource",
          arguments: JSON.stringify({ server: "srv", uri, since: "last" })
        })
      )
      times.push(performance.now() - t)
      if (!out.success || !out.output.includes("unified diff")) throw new Error(`no diff: ${out.output.slice(0, 300)}`)
      output = out.output
    }
    times.sort((a, b) => a - b)
    const diffBytes = Buffer.byteLength(output)
    const wholeBytes = Buffer.byteLength(after)
    ctx.log(
      `   diff ${diffBytes} bytes vs whole ${wholeBytes} bytes; diffed read median ${times[Math.floor(times.length / 2)]!.toFixed(1)} ms`
    )
    return {
      rows: [],
      results: [
        atMost(
          "What changed: one edited line in 1 MiB",
          "diff bytes / whole re-read bytes",
          diffBytes / wholeBytes,
          0.01
        ),
        info("What changed: one edited line in 1 MiB, diff", "bytes", diffBytes),
        info(
          "What changed: one edited line in 1 MiB, read with since",
          "median ms",
          times[Math.floor(times.length / 2)]!
        )
      ],
      notes: []
    }
  } finally {
    for (const stack of stacks) await stack.dispose()
    for (const fixture of fixtures) await fixture.closeAll()
  }
}
