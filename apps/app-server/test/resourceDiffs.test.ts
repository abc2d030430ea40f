/**
 * What changed, through the app-server in process (docs/templates-and-changes.md, "What changed"): an
 * extended read records the digests of the body the server returned in its item and keeps the text in
 * the body store; a change names the body read before (after a restart too, from the stored items); a
 * re-read with `since` is answered with a diff, also after a compaction and a restart (SQLite); a rollback forgets the reads of the removed
 * turns and releases their bodies; deleting the thread drops them. A real 2026-07-28 changes server
 * over stdio (`changes://doc/long…`: 200 lines, one of which counts the reads).
 */
import { createHash } from "node:crypto"
import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { changesStdioCommand, changesText } from "@mcp-resources/fixtures"
import { BodyStore } from "@mcp-resources/thread-store"
import { Context, Effect, Layer } from "effect"
import { tempDir, writeConfig } from "./utils/AppServerProcess.js"
import { type InProcessServer, resultOf, startInProcess, threadIdOf } from "./utils/InProcess.js"

process.env.MCP_RESOURCES_LOG = "error"

const doc = "changes://doc/long-plan"
const sha = (text: string) => createHash("sha256").update(text).digest("hex")

const call = (server: InProcessServer, threadId: string, turnId: string, callId: string, args: object) =>
  Effect.map(
    server.request("tool/call", {
      threadId,
      turnId,
      callId,
      name: "read_mcp_resource",
      arguments: JSON.stringify({ server: "docs", uri: doc, ...args })
    }),
    (m) => resultOf(m) as { success: boolean; output: string }
  )

let touches = 0
const touch = (server: InProcessServer, threadId: string, turnId: string) =>
  Effect.gen(function* () {
    const before = server.messages.filter((m) => m.method === "mcp/resource/changed").length
    resultOf(
      yield* server.request("tool/call", {
        threadId,
        turnId,
        callId: `touch-${++touches}`,
        name: "mcp__docs__touch",
        arguments: JSON.stringify({ uri: doc })
      })
    )
    yield* server.waitFor(
      (m) =>
        m.method === "mcp/resource/changed" && server.messages.filter((n) => n.method === m.method).length > before,
      "mcp/resource/changed"
    )
    return server.messages.filter((m) => m.method === "mcp/resource/changed").at(-1)!.params!
  })

/**
 * Returns once the document is subscribed at the fixture: a restore runs in the background, so the
 * fixture's `subscriptions` tool waits for it (`until`, at most 10 s) before it answers.
 */
const awaitSubscribed = (server: InProcessServer, threadId: string, turnId: string) =>
  Effect.gen(function* () {
    const answer = resultOf(
      yield* server.request("tool/call", {
        threadId,
        turnId,
        callId: `subscriptions-${++touches}`,
        name: "mcp__docs__subscriptions",
        arguments: JSON.stringify({ until: doc })
      })
    ) as { output: string }
    const text = answer.output
    const log = JSON.parse(text.slice(text.indexOf("{"), text.lastIndexOf("}") + 1)) as { subscribed: Array<string> }
    if (!log.subscribed.includes(doc)) return assert.fail(`${doc} was never subscribed again`)
  })

const completedRead = (server: InProcessServer, callId: string) =>
  server.waitFor(
    (m) => m.method === "item/completed" && (m.params?.item as { id: string } | undefined)?.id === callId,
    `item/completed of ${callId}`
  )

describe("read_mcp_resource since, through the app-server", () => {
  it.scopedLive(
    "a re-read is answered with a diff; compaction, restart, rollback and delete keep the bodies right",
    () =>
      Effect.gen(function* () {
        const dataDir = tempDir()
        const configPath = writeConfig(dataDir, { mcp_servers: { docs: changesStdioCommand({ era: "modern" }) } })
        const [v1, v2, v3] = [1, 2, 3].map((n) => changesText(doc, n)) as [string, string, string]

        const threadId = yield* Effect.scoped(
          Effect.gen(function* () {
            const server = yield* startInProcess({ dataDir, configPath })
            const threadId = threadIdOf(yield* server.request("thread/start", { config: { toolProfile: "extended" } }))
            resultOf(yield* server.request("turn/start", { threadId, turnId: "t1" }))
            assert.isTrue((yield* call(server, threadId, "t1", "c1", {})).success)
            // the item records the whole body's digest and size; the text was kept
            const item = (yield* completedRead(server, "c1")).params?.item as Record<string, unknown>
            assert.deepStrictEqual(item.resourceRead, {
              uri: doc,
              contents: [{ digest: sha(v1), size: Buffer.byteLength(v1), text: true, kept: true }]
            })

            // the change names the body read before; the new one was pushed, not fetched
            const changed = yield* touch(server, threadId, "t1")
            assert.deepStrictEqual(
              {
                sizeBefore: changed.sizeBefore,
                digestBefore: changed.digestBefore,
                sizeAfter: changed.sizeAfter,
                digestAfter: changed.digestAfter,
                diffAvailable: changed.diffAvailable
              },
              {
                sizeBefore: Buffer.byteLength(v1),
                digestBefore: sha(v1),
                sizeAfter: null,
                digestAfter: null,
                diffAvailable: true
              }
            )
            const second = resultOf(yield* server.request("turn/start", { threadId, turnId: "t2" }))
            assert.strictEqual((second.resourceChanges as Array<Record<string, unknown>>)[0]?.digestBefore, sha(v1))

            const diff = yield* call(server, threadId, "t2", "c2", { since: "last" })
            assert.isTrue(diff.success)
            assert.include(diff.output, "changed since call c1")
            assert.include(diff.output, "@@ -97,7 +97,7 @@")
            assert.include(diff.output, `-${doc} read 1 times\n+${doc} read 2 times`)
            assert.notInclude(diff.output, "line 1 of")
            assert.isBelow(diff.output.length, v2.length)

            // a compaction keeps the reads: the next diff is against c2
            resultOf(yield* server.request("thread/compact", { threadId }))
            return threadId
          })
        )

        // a restart on the same data dir: the thread's reads and the kept bodies are still there
        const server = yield* startInProcess({ dataDir, configPath })
        resultOf(yield* server.request("thread/resume", { threadId }))
        resultOf(yield* server.request("turn/start", { threadId, turnId: "t3" }))
        // the restored subscription names the body read before the restart (from the stored items)
        yield* awaitSubscribed(server, threadId, "t3")
        const restored = yield* touch(server, threadId, "t3")
        assert.strictEqual(restored.digestBefore, sha(v2))
        assert.strictEqual(restored.readInCallId, "c2")
        assert.isTrue(restored.diffAvailable)
        // a new server process counts from 1 again: the diff from c2 (before the restart) to this one
        const back = yield* call(server, threadId, "t3", "c3", { since: "last" })
        assert.include(back.output, "changed since call c2")
        assert.include(back.output, `-${doc} read 2 times\n+${doc} read 1 times`)

        // a rollback of t4 forgets its read and releases the body only it held
        resultOf(yield* server.request("turn/start", { threadId, turnId: "t4" }))
        yield* touch(server, threadId, "t4")
        assert.isTrue((yield* call(server, threadId, "t4", "c4", {})).success)
        yield* touch(server, threadId, "t4")
        assert.isTrue((yield* call(server, threadId, "t4", "c5", {})).success)
        const store = Context.get(
          yield* Layer.build(BodyStore.layerSqlite({ filename: join(dataDir, "state.sqlite") })),
          BodyStore.BodyStore
        )
        const held = () => Effect.map(store.list(threadId), (refs) => refs.map((ref) => ref.digest).sort())
        assert.include(yield* held(), sha(v3))
        resultOf(yield* server.request("thread/rollback", { threadId, numTurns: 1 }))
        assert.notInclude(yield* held(), sha(v3))
        assert.includeMembers(yield* held(), [sha(v1), sha(v2)])
        resultOf(yield* server.request("turn/start", { threadId, turnId: "t5" }))
        const gone = yield* call(server, threadId, "t5", "c6", { since: { callId: "c5" } })
        assert.strictEqual(gone.output, "since: call 'c5' is not an earlier read_mcp_resource of this conversation")

        // deleting the thread drops its bodies
        resultOf(yield* server.request("thread/delete", { threadId }))
        assert.deepStrictEqual(yield* held(), [])
      })
  )
})
