/**
 * Resources that tell the model they changed, through the app-server: a read on an extended thread
 * subscribes the thread (the fixture sees `resources/subscribe`), an update comes as
 * `mcp/resource/changed` and once in the next `turn/start`'s `resourceChanges`, many updates are one
 * change, the read cache is invalidated, the subscription survives a restart (re-sent on resume) and
 * a reload, a rollback of the reading turn unsubscribes, a server without subscriptions claims
 * nothing, and a codex thread sees none of it. Real v2 SDK servers over stdio.
 */
import { assert, describe, it } from "@effect/vitest"
import { AppServerClient } from "@mcp-resources/app-server-client"
import { type ChangesEra, type ChangesLog, type ChangesRequest, changesStdioCommand } from "@mcp-resources/fixtures"
import { Effect } from "effect"
import {
  type AppServer,
  errorOf,
  mainJs,
  resultOf,
  startInitialized,
  tempDir,
  writeConfig
} from "./utils/AppServerProcess.js"
import { notificationProblems, resultProblems } from "./utils/PublishedSchema.js"

const docA = "changes://doc/a"
const docB = "changes://doc/b"
const docC = "changes://doc/c"

interface Harness {
  readonly app: AppServer
  readonly threadId: string
}

let callCounter = 0
const call = (h: Harness, turnId: string, name: string, args: Record<string, unknown>, callId?: string) =>
  Effect.map(
    h.app.request("tool/call", {
      threadId: h.threadId,
      turnId,
      callId: callId ?? `aux-${++callCounter}`,
      name,
      arguments: JSON.stringify(args)
    }),
    (m) => resultOf(m) as { success: boolean; output: string }
  )

const read = (h: Harness, turnId: string, uri: string, callId: string, server = "docs") =>
  call(h, turnId, "read_mcp_resource", { server, uri }, callId)

/** The fixture's log (with `until`, once that uri is subscribed there, or after 10 s). */
const fixtureLog = (h: Harness, turnId: string, server = "docs", until?: string) =>
  Effect.map(call(h, turnId, `mcp__${server}__subscriptions`, until === undefined ? {} : { until }), (r) => {
    const text = r.output
    return JSON.parse(text.slice(text.indexOf("{"), text.lastIndexOf("}") + 1)) as ChangesLog
  })

const touch = (h: Harness, turnId: string, uri: string, times = 1, server = "docs") =>
  call(h, turnId, `mcp__${server}__touch`, { uri, times })

const turn = (h: Harness, turnId: string) =>
  Effect.map(h.app.request("turn/start", { threadId: h.threadId, turnId }), (m) => resultOf(m))

const changedCount = (h: Harness, uri: string) =>
  h.app.notifications("mcp/resource/changed").filter((m) => (m.params as { uri: string }).uri === uri).length

/** Waits for one more `mcp/resource/changed` of the uri than `before`. */
const nextChanged = (h: Harness, uri: string, before: number) =>
  Effect.map(
    h.app.waitFor(() => changedCount(h, uri) > before, "20 seconds", `mcp/resource/changed for ${uri}`),
    () =>
      h.app
        .notifications("mcp/resource/changed")
        .filter((m) => (m.params as { uri: string }).uri === uri)
        .at(-1)!.params as Record<string, unknown>
  )

/**
 * The fixture's log once the uri is subscribed there: a restore runs in the background and the
 * app-server does not announce its end, so the fixture's `subscriptions` tool waits for it (`until`,
 * at most 10 s) and answers with the log as it is then.
 */
const awaitSubscribed = (h: Harness, turnId: string, uri: string, server = "docs") =>
  Effect.gen(function* () {
    const log = yield* fixtureLog(h, turnId, server, uri)
    if (!log.subscribed.includes(uri)) return assert.fail(`${uri} was never subscribed on ${server}`)
    return log
  })

/** What the fixture saw last when the set became `uris` by one change: a legacy request, or a listen of the whole set. */
const lastRequest = (
  era: ChangesEra,
  change: "subscribe" | "unsubscribe",
  uri: string,
  uris: ReadonlyArray<string>
): ChangesRequest => (era === "legacy" ? { method: change, uri } : { method: "listen", uris })

const isoInstant = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/

describe.each(["legacy", "modern"] as const)("resource changes over the app-server (%s era)", (era) => {
  const docs = changesStdioCommand({ era })
  it.scopedLive(
    "read → subscribe → mcp/resource/changed and turn/start resourceChanges; coalescing; cache; restart; reload",
    () =>
      Effect.gen(function* () {
        const dir = tempDir()
        const dataDir = tempDir()
        const config = writeConfig(dir, { mcp_servers: { docs } })
        const app = yield* startInitialized({ config, dataDir })
        const started = resultOf(yield* app.request("thread/start", { config: { toolProfile: "extended" } }))
        const h: Harness = { app, threadId: (started.thread as { id: string }).id }
        const first = yield* turn(h, "t1")
        assert.deepStrictEqual(first.resourceChanges, [])

        const readA = yield* read(h, "t1", docA, "c1")
        assert.isTrue(readA.success)
        assert.include(readA.output, `${docA} read 1 times`)
        assert.isTrue((yield* read(h, "t1", docB, "c2")).success)
        // cached: a second read without an update sends no request
        const c3 = yield* read(h, "t1", docB, "c3")
        assert.include(c3.output, `${docB} read 1 times`)
        const log = yield* fixtureLog(h, "t1")
        assert.deepStrictEqual(log.subscribed, [docA, docB])
        if (era === "legacy") {
          assert.deepStrictEqual(
            log.requests.map((r) => r.method),
            ["subscribe", "subscribe"]
          )
        } else {
          // one listen stream, opened again with the whole set each time it grew
          assert.isTrue(log.requests.every((r) => r.method === "listen"))
          assert.deepStrictEqual(log.requests.at(-1), lastRequest(era, "subscribe", docB, [docA, docB]))
        }

        yield* touch(h, "t1", docA)
        const changed = yield* nextChanged(h, docA, 0)
        assert.strictEqual(changed.threadId, h.threadId)
        assert.strictEqual(changed.server, "docs")
        assert.strictEqual(changed.readInCallId, "c1")
        assert.match(changed.changedAt as string, isoInstant)
        assert.deepStrictEqual(notificationProblems("mcp/resource/changed", changed), [])

        const second = yield* turn(h, "t2")
        assert.deepStrictEqual(resultProblems("turn/start", second), [])
        // the body read in c1 was one kept text: its digest and size, and a diff can be asked for
        assert.strictEqual(changed.sizeBefore, Buffer.byteLength(`${docA} read 1 times`))
        assert.match(changed.digestBefore as string, /^[0-9a-f]{64}$/)
        assert.deepStrictEqual(second.resourceChanges, [
          {
            server: "docs",
            uri: docA,
            readInCallId: "c1",
            changedAt: changed.changedAt,
            sizeBefore: changed.sizeBefore,
            sizeAfter: null,
            digestBefore: changed.digestBefore,
            digestAfter: null,
            diffAvailable: true
          }
        ])
        assert.deepStrictEqual((yield* turn(h, "t3")).resourceChanges, [])

        // the update invalidated the cached read: the next read reaches the server
        assert.include((yield* read(h, "t3", docA, "c4")).output, `${docA} read 2 times`)

        // 1000 updates, then one of B: all of A's were handled before B's (one queue, in order)
        const beforeB = changedCount(h, docB)
        yield* touch(h, "t3", docA, 1000)
        yield* touch(h, "t3", docB)
        yield* nextChanged(h, docB, beforeB)
        const coalesced = (yield* turn(h, "t4")).resourceChanges as Array<Record<string, unknown>>
        assert.deepStrictEqual(
          coalesced.map((c) => [c.uri, c.readInCallId]),
          [
            [docA, "c4"],
            [docB, "c3"]
          ]
        )

        // restart on the same data dir: resume subscribes again (a new fixture process sees it)
        yield* app.endInput
        yield* app.exited("20 seconds")
        const again = yield* startInitialized({ config, dataDir })
        const h2: Harness = { app: again, threadId: h.threadId }
        resultOf(yield* again.request("thread/resume", { threadId: h.threadId }))
        const restored = yield* awaitSubscribed(h2, "t4", docA)
        assert.includeMembers([...restored.subscribed], [docA, docB])
        yield* touch(h2, "t4", docA)
        const afterRestart = yield* nextChanged(h2, docA, 0)
        assert.strictEqual(afterRestart.readInCallId, "c4")
        assert.deepStrictEqual(
          ((yield* turn(h2, "t5")).resourceChanges as Array<{ uri: string }>).map((c) => c.uri),
          [docA]
        )

        // reload on a changed config (another server added): still subscribed on the new set
        writeConfig(dir, { mcp_servers: { docs, more: changesStdioCommand({ era }) } })
        resultOf(yield* again.request("config/mcpServer/reload", {}))
        yield* awaitSubscribed(h2, "t5", docA)
        const beforeReload = changedCount(h2, docA)
        yield* touch(h2, "t5", docA)
        yield* nextChanged(h2, docA, beforeReload)
        assert.deepStrictEqual(
          ((yield* turn(h2, "t6")).resourceChanges as Array<{ uri: string }>).map((c) => c.uri),
          [docA]
        )
      }),
    120_000
  )

  it.scopedLive("a rollback of the reading turn unsubscribes; UIs subscribe and unsubscribe with clear errors", () =>
    Effect.gen(function* () {
      const config = writeConfig(tempDir(), { mcp_servers: { docs } })
      const app = yield* startInitialized({ config })
      const started = resultOf(yield* app.request("thread/start", { config: { toolProfile: "extended" } }))
      const h: Harness = { app, threadId: (started.thread as { id: string }).id }
      yield* turn(h, "t1")
      assert.isTrue((yield* read(h, "t1", docA, "c1")).success)
      yield* turn(h, "t2")
      assert.isTrue((yield* read(h, "t2", docC, "c2")).success)
      assert.deepStrictEqual((yield* fixtureLog(h, "t2")).subscribed, [docA, docC])
      resultOf(yield* app.request("thread/rollback", { threadId: h.threadId, numTurns: 1 }))
      yield* turn(h, "t3")
      const log = yield* fixtureLog(h, "t3")
      assert.deepStrictEqual(log.subscribed, [docA])
      assert.deepStrictEqual(log.requests.at(-1), lastRequest(era, "unsubscribe", docC, [docA]))

      // a UI's subscription: no call id
      const subscribed = resultOf(
        yield* app.request("mcp/resource/subscribe", { threadId: h.threadId, server: "docs", uri: docB })
      )
      assert.deepStrictEqual(subscribed, { subscribed: true })
      assert.deepStrictEqual(resultProblems("mcp/resource/subscribe", subscribed), [])
      yield* touch(h, "t3", docB)
      assert.strictEqual((yield* nextChanged(h, docB, 0)).readInCallId, null)
      const unsubscribed = resultOf(
        yield* app.request("mcp/resource/unsubscribe", { threadId: h.threadId, server: "docs", uri: docB })
      )
      assert.deepStrictEqual(resultProblems("mcp/resource/unsubscribe", unsubscribed), [])
      const afterUnsubscribe = yield* fixtureLog(h, "t3")
      assert.notInclude(afterUnsubscribe.subscribed, docB)
      assert.deepStrictEqual(afterUnsubscribe.requests.at(-1), lastRequest(era, "unsubscribe", docB, [docA]))

      const unknownServer = errorOf(
        yield* app.request("mcp/resource/subscribe", { threadId: h.threadId, server: "nope", uri: docB })
      )
      assert.include(unknownServer.message, "nope")
      const unknownThread = errorOf(
        yield* app.request("mcp/resource/subscribe", { threadId: "no-such-thread", server: "docs", uri: docB })
      )
      assert.include(unknownThread.message, "no-such-thread")
    })
  )
})

describe("resource changes: what is not claimed", () => {
  it.scopedLive("codex threads and servers that cannot tell a change: nothing subscribed, nothing claimed", () =>
    Effect.gen(function* () {
      // no subscriptions and polling off (with polling on, the default, such a server is watched by
      // polling: resource-client's Detection.test.ts)
      const off = { poll_changes_sec: 0 }
      const config = writeConfig(tempDir(), {
        mcp_servers: {
          docs: changesStdioCommand(),
          plain: { ...changesStdioCommand({ subscribe: false }), ...off },
          plainModern: { ...changesStdioCommand({ subscribe: false, era: "modern" }), ...off }
        }
      })
      // the typed client: params and results checked against the protocol's schemas
      const client = yield* AppServerClient.stdio({
        command: process.execPath,
        args: [mainJs, "--config", config, "--data-dir", tempDir()]
      })
      const init = yield* client.initialize({ name: "test", version: "1" })
      assert.isTrue(init.capabilities?.resourceChanges)
      const extended = (yield* client.request("thread/start", { config: { toolProfile: "extended" } })).thread.id
      const codex = (yield* client.request("thread/start", {})).thread.id
      const extendedTurn = yield* client.request("turn/start", { threadId: extended, turnId: "t1" })
      assert.deepStrictEqual(extendedTurn.resourceChanges, [])
      const codexTurn = yield* client.request("turn/start", { threadId: codex, turnId: "t1" })
      assert.isFalse("resourceChanges" in codexTurn)

      const plainRead = yield* client.request("tool/call", {
        threadId: extended,
        turnId: "t1",
        callId: "p1",
        name: "read_mcp_resource",
        arguments: JSON.stringify({ server: "plain", uri: docA })
      })
      assert.isTrue(plainRead.success)
      for (const server of ["plain", "plainModern"]) {
        const read = yield* client.request("tool/call", {
          threadId: extended,
          turnId: "t1",
          callId: `p-${server}`,
          name: "read_mcp_resource",
          arguments: JSON.stringify({ server, uri: docB })
        })
        assert.isTrue(read.success, server)
        assert.deepStrictEqual(
          yield* client.request("mcp/resource/subscribe", { threadId: extended, server, uri: docA }),
          { subscribed: false }
        )
        // the server saw no subscription request of any kind
        const seen = yield* client.request("tool/call", {
          threadId: extended,
          turnId: "t1",
          callId: `s-${server}`,
          name: `mcp__${server}__subscriptions`,
          arguments: "{}"
        })
        assert.match(JSON.stringify(seen.output), /requests\\*":\[\]/, server)
      }

      const codexRead = yield* client.request("tool/call", {
        threadId: codex,
        turnId: "t1",
        callId: "k1",
        name: "read_mcp_resource",
        arguments: JSON.stringify({ server: "docs", uri: docA })
      })
      assert.isTrue(codexRead.success)
      const subscribedOnDocs = yield* client.request("tool/call", {
        threadId: codex,
        turnId: "t1",
        callId: "k2",
        name: "mcp__docs__subscriptions",
        arguments: "{}"
      })
      // the codex read reached the server, and no subscribe did
      assert.match(JSON.stringify(subscribedOnDocs.output), /requests\\*":\[\]/)
      const refused = yield* Effect.flip(
        client.request("mcp/resource/subscribe", { threadId: codex, server: "docs", uri: docA })
      )
      assert.include(refused.message, "codex tool profile")
      assert.isFalse("resourceChanges" in (yield* client.request("turn/start", { threadId: codex, turnId: "t2" })))
      const second = yield* client.request("turn/start", { threadId: extended, turnId: "t2" })
      assert.deepStrictEqual(second.resourceChanges, [])
    })
  )
})
