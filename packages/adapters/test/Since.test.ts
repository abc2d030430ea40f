/**
 * `read_mcp_resource`'s `since` on a binding of `Bridge.connect` (extended profile): the binding keeps
 * the bodies its reads returned in memory, so that a re-read of a changed resource is answered with a
 * unified diff, and the host's own lifecycle callback still gets every event.
 */
import { assert, describe, it } from "@effect/vitest"
import { connectInMemory, type FixtureSpec } from "@mcp-resources/fixtures"
import { Config } from "@mcp-resources/protocol"
import { ServerEntry } from "@mcp-resources/resource-client"
import type { LifecycleSink } from "@mcp-resources/tool-handlers"
import { Effect } from "effect"
import * as Bridge from "../src/Bridge.js"

const uri = "doc://plan"
const text = (edited: boolean) =>
  `${Array.from({ length: 200 }, (_, i) => (edited && i === 99 ? "line 100, edited" : `line ${i + 1}`)).join("\n")}\n`
// ttlMs 0: not cached, every read reaches the server
const reads = (body: string): NonNullable<FixtureSpec["reads"]> => [
  { uri, result: { contents: [{ uri, mimeType: "text/plain", text: body }], ttlMs: 0 } }
]

describe("since on a connected binding", () => {
  it.live("a re-read of a changed resource is a diff against the read the binding kept", () =>
    Effect.acquireUseRelease(
      Effect.sync(() => {
        const spec: FixtureSpec = { reads: reads(text(false)) }
        return { spec, fixture: connectInMemory(spec) }
      }),
      ({ spec, fixture }) =>
        Effect.promise(async () => {
          const events: Array<LifecycleSink.LifecycleEvent> = []
          const thread = await Bridge.connect(Config.empty, {
            profile: "extended",
            servers: [ServerEntry.memory("srv", fixture.connect)],
            onLifecycle: (event) => events.push(event)
          })
          try {
            const read = (callId: string, extra: object = {}) =>
              Bridge.callTool(thread, "read_mcp_resource", JSON.stringify({ server: "srv", uri, ...extra }), { callId })
            assert.isTrue((await read("c1")).success)
            spec.reads = reads(text(true))
            const diff = await read("c2", { since: "last" })
            assert.isTrue(diff.success)
            assert.include(diff.output, "changed since call c1")
            assert.include(diff.output, "@@ -97,7 +97,7 @@")
            assert.include(diff.output, "-line 100\n+line 100, edited")
            const again = await read("c3", { since: { callId: "c2" } })
            assert.match(again.output, /unchanged since call c2/)
            assert.deepStrictEqual(
              events.filter((e) => e.phase === "completed").map((e) => e.item.id),
              ["c1", "c2", "c3"]
            )
          } finally {
            await thread.close()
          }
        }),
      ({ fixture }) => Effect.promise(() => fixture.closeAll())
    )
  )
})
