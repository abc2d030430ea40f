/**
 * Resource changes not yet handed over survive a restart (docs/templates-and-changes.md, "Thread
 * state"): a change a thread's tracker records is stored with the thread (`resourceChanged`, once per
 * resource however many updates), the app-server closes, a new one opens on the same store, and the
 * next `turn/start` hands the change over once (`resourceChangesTaken` is stored), the one after none.
 * A compaction keeps the pending changes; a rollback drops those of the subscriptions its turns made.
 * In this process, on SQLite and on PostgreSQL, with the real changes fixture over stdio pushing
 * `notifications/resources/updated`.
 */
import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { changesStdioCommand } from "@mcp-resources/fixtures"
import type { ThreadEvent } from "@mcp-resources/protocol"
import { ThreadStore } from "@mcp-resources/thread-store"
import { Effect, Exit, type Layer, Scope } from "effect"
import { inject } from "vitest"
import { tempDir, writeConfig } from "./utils/AppServerProcess.js"
import { type InProcessServer, type Message, resultOf, startInProcess, threadIdOf } from "./utils/InProcess.js"
import { freshDatabase } from "./utils/pg.js"

process.env.MCP_RESOURCES_LOG = "error"

const cluster = inject("pgCluster")
const clusterUrl = "url" in cluster ? cluster.url : undefined
if (clusterUrl === undefined && "skipped" in cluster) {
  console.warn(`PostgreSQL case of the resource changes across restarts skipped: ${cluster.skipped}`)
}

const docA = "changes://doc/a"
const docB = "changes://doc/b"
const docC = "changes://doc/c"

/** Where the thread store lives: a layer that opens it again each time (one app-server at a time). */
interface Backend {
  readonly store: () => Layer.Layer<ThreadStore.ThreadStore, ThreadStore.ThreadStoreError>
}

const sqlite: Effect.Effect<Backend> = Effect.sync(() => {
  const filename = join(tempDir(), "state.sqlite")
  return { store: () => ThreadStore.layerSqlite({ filename, exclusive: true }) }
})

const postgres: Effect.Effect<Backend, unknown, Scope.Scope> = Effect.map(freshDatabase(clusterUrl!), (url) => ({
  store: () => ThreadStore.layerPg({ url })
}))

/** One app-server over the backend's store; `close` ends it (its MCP children too) as a restart would. */
const open = (backend: Backend, configPath: string) =>
  Effect.gen(function* () {
    const scope = yield* Scope.make()
    yield* Effect.addFinalizer(() => Scope.close(scope, Exit.void))
    const server = yield* startInProcess({ dataDir: tempDir(), configPath, store: backend.store() }).pipe(
      Scope.extend(scope)
    )
    return { server, close: Scope.close(scope, Exit.void) }
  })

/** The thread's stored records, read with the store opened on its own (no app-server open). */
const storedEvents = (backend: Backend, threadId: string) =>
  Effect.flatMap(ThreadStore.ThreadStore, (store) => store.since(threadId, 0)).pipe(
    Effect.map((records) => records.map((r) => r.event)),
    Effect.scoped,
    Effect.provide(backend.store())
  )

const changedUris = (events: ReadonlyArray<ThreadEvent.ThreadEvent>) =>
  events.flatMap((e) =>
    e._tag === "resourceChanged" ? [e.change.uri] : e._tag === "resourceChangesTaken" ? ["taken"] : []
  )

let callCounter = 0
const call = (server: InProcessServer, threadId: string, turnId: string, name: string, args: object) =>
  Effect.map(
    server.request("tool/call", {
      threadId,
      turnId,
      callId: `restart-${++callCounter}`,
      name,
      arguments: JSON.stringify(args)
    }),
    (m) => resultOf(m) as { success: boolean }
  )

const read = (server: InProcessServer, threadId: string, turnId: string, uri: string, callId: string) =>
  Effect.map(
    server.request("tool/call", {
      threadId,
      turnId,
      callId,
      name: "read_mcp_resource",
      arguments: JSON.stringify({ server: "docs", uri })
    }),
    (m) => assert.isTrue((resultOf(m) as { success: boolean }).success, `read ${uri}`)
  )

const touch = (server: InProcessServer, threadId: string, turnId: string, uri: string, times = 1) =>
  call(server, threadId, turnId, "mcp__docs__touch", { uri, times })

const isChanged = (m: Message, uri: string) =>
  m.method === "mcp/resource/changed" && (m.params as { uri?: string } | undefined)?.uri === uri

/** Waits (bounded) for the `n`th `mcp/resource/changed` of the uri on this server's connection: its change is stored by then. */
const changed = (server: InProcessServer, uri: string, n = 1) => {
  let seen = 0
  return server.waitFor((m) => isChanged(m, uri) && ++seen >= n, `mcp/resource/changed #${n} for ${uri}`)
}

const turn = (server: InProcessServer, threadId: string, turnId: string) =>
  Effect.map(
    server.request("turn/start", { threadId, turnId }),
    (m) => resultOf(m).resourceChanges as ReadonlyArray<Record<string, unknown>>
  )

const isoInstant = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/

const cases = (backend: Effect.Effect<Backend, unknown, Scope.Scope>) => {
  it.scopedLive(
    "a change not yet handed over is handed over once after a restart; a flood is one stored record per resource",
    () =>
      Effect.gen(function* () {
        const store = yield* backend
        const config = writeConfig(tempDir(), { mcp_servers: { docs: changesStdioCommand() } })
        const first = yield* open(store, config)
        const threadId = threadIdOf(
          yield* first.server.request("thread/start", { config: { toolProfile: "extended" } })
        )
        assert.deepStrictEqual(yield* turn(first.server, threadId, "t1"), [])
        yield* read(first.server, threadId, "t1", docA, "c1")
        yield* read(first.server, threadId, "t1", docB, "c2")
        // a flood of A, then one update of B: every update of A was handled before B's (one queue, in order)
        yield* touch(first.server, threadId, "t1", docA, 1000)
        yield* touch(first.server, threadId, "t1", docB)
        yield* changed(first.server, docB)
        yield* first.close

        assert.deepStrictEqual(changedUris(yield* storedEvents(store, threadId)), [docA, docB])

        const second = yield* open(store, config)
        resultOf(yield* second.server.request("thread/resume", { threadId }))
        const handed = yield* turn(second.server, threadId, "t2")
        assert.deepStrictEqual(
          handed.map((c) => [c.server, c.uri, c.readInCallId]),
          [
            ["docs", docA, "c1"],
            ["docs", docB, "c2"]
          ]
        )
        for (const change of handed) assert.match(change.changedAt as string, isoInstant)
        assert.deepStrictEqual(yield* turn(second.server, threadId, "t3"), [])
        yield* second.close

        // the hand-over was stored: a further restart hands nothing over again
        assert.deepStrictEqual(changedUris(yield* storedEvents(store, threadId)), [docA, docB, "taken"])
        const third = yield* open(store, config)
        resultOf(yield* third.server.request("thread/resume", { threadId }))
        assert.deepStrictEqual(yield* turn(third.server, threadId, "t4"), [])
      }),
    120_000
  )

  it.scopedLive(
    "a compaction keeps the pending changes across a restart; a rollback drops those of the subscriptions its turns made",
    () =>
      Effect.gen(function* () {
        const store = yield* backend
        const config = writeConfig(tempDir(), { mcp_servers: { docs: changesStdioCommand() } })
        const first = yield* open(store, config)
        const threadId = threadIdOf(
          yield* first.server.request("thread/start", { config: { toolProfile: "extended" } })
        )
        yield* turn(first.server, threadId, "t1")
        yield* read(first.server, threadId, "t1", docA, "c1")
        yield* turn(first.server, threadId, "t2")
        yield* read(first.server, threadId, "t2", docC, "c2")
        yield* touch(first.server, threadId, "t2", docA)
        yield* touch(first.server, threadId, "t2", docC)
        yield* changed(first.server, docA)
        yield* changed(first.server, docC)
        resultOf(yield* first.server.request("thread/compact", { threadId }))
        yield* first.close

        // after the compaction and a restart both are pending; the rollback of t2 drops C's (its subscription's turn)
        const second = yield* open(store, config)
        resultOf(yield* second.server.request("thread/resume", { threadId }))
        resultOf(yield* second.server.request("thread/rollback", { threadId, numTurns: 1 }))
        yield* second.close

        const third = yield* open(store, config)
        resultOf(yield* third.server.request("thread/resume", { threadId }))
        assert.deepStrictEqual(
          (yield* turn(third.server, threadId, "t3")).map((c) => [c.uri, c.readInCallId]),
          [[docA, "c1"]]
        )
        assert.deepStrictEqual(yield* turn(third.server, threadId, "t4"), [])
      }),
    120_000
  )
}

describe("resource changes across restarts (SQLite)", () => {
  cases(sqlite)
})

describe.skipIf(clusterUrl === undefined)("resource changes across restarts (PostgreSQL)", () => {
  cases(postgres)
})
