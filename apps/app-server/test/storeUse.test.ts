/**
 * How `tool/call` uses the thread store (in this process, over a store the test wraps): a normal call
 * costs its two appends and no read; another process's records are pulled only when an append
 * conflicts or before a refusal; a cancelled call ends with exactly one terminal item; a write failure
 * of the driver (a full disk) keeps its cause in the answer and loses nothing stored.
 */
import { createRequire } from "node:module"
import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { elicitationCommand, stdioCommand } from "@mcp-resources/fixtures"
import type { ThreadEvent, ToolCallItem } from "@mcp-resources/protocol"
import { ThreadStore } from "@mcp-resources/thread-store"
import { Deferred, Effect, Layer } from "effect"
import { inject } from "vitest"
import { tempDir, writeConfig } from "./utils/AppServerProcess.js"
import { freshDatabase, psql } from "./utils/pg.js"
import { type InProcessServer, resultOf, startInProcess, threadIdOf } from "./utils/InProcess.js"

process.env.MCP_RESOURCES_LOG = "error"

const cluster = inject("pgCluster")
const clusterUrl = "url" in cluster ? cluster.url : undefined
if (clusterUrl === undefined && "skipped" in cluster) {
  console.warn(`PostgreSQL case of the store-use tests skipped: ${cluster.skipped}`)
}

type Operation = "create" | "get" | "list" | "remove" | "append" | "load" | "since" | "sincePages" | "lastSeq"

/** A store layer that counts every operation of the wrapped store and can refuse appends. */
const counting = (inner: Layer.Layer<ThreadStore.ThreadStore, ThreadStore.ThreadStoreError>) => {
  const counts = new Map<Operation, number>()
  const control = {
    /** When set, an append of an event it returns true for fails with this error instead. */
    refuse: undefined as ((event: ThreadEvent.ThreadEvent) => ThreadStore.ThreadStoreError | undefined) | undefined,
    counts,
    reset: () => counts.clear(),
    snapshot: () => Object.fromEntries([...counts.entries()].sort(([a], [b]) => (a < b ? -1 : 1)))
  }
  const count = (op: Operation) => counts.set(op, (counts.get(op) ?? 0) + 1)
  const layer = Layer.effect(
    ThreadStore.ThreadStore,
    Effect.map(ThreadStore.ThreadStore, (store): ThreadStore.Service => {
      const wrap =
        <Args extends ReadonlyArray<unknown>, A>(
          op: Operation,
          f: (...args: Args) => Effect.Effect<A, ThreadStore.ThreadStoreError>
        ) =>
        (...args: Args) =>
          Effect.suspend(() => {
            count(op)
            return f(...args)
          })
      return {
        ...store,
        create: wrap("create", store.create),
        get: wrap("get", store.get),
        list: wrap("list", store.list),
        remove: wrap("remove", store.remove),
        load: wrap("load", store.load),
        since: wrap("since", store.since),
        sincePages: (id, seq, onPage) =>
          Effect.suspend(() => {
            count("sincePages")
            return store.sincePages(id, seq, onPage)
          }),
        lastSeq: wrap("lastSeq", store.lastSeq),
        append: wrap("append", (id: string, expectedSeq: number, event: ThreadEvent.ThreadEvent) => {
          const refused = control.refuse?.(event)
          return refused !== undefined ? Effect.fail(refused) : store.append(id, expectedSeq, event)
        })
      }
    })
  ).pipe(Layer.provide(inner))
  return { layer, control }
}

const srv = { name: "srv", tools: [{ name: "quick" }, { name: "slow", hang: true }] }

const call = (server: InProcessServer, threadId: string, turnId: string, callId: string, tool = "quick") =>
  server.request("tool/call", { threadId, turnId, callId, name: `mcp__srv__${tool}`, arguments: "{}" })

/** The thread's records as another reader of the SQLite file sees them. */
const storedRecords = (filename: string, threadId: string) =>
  Effect.flatMap(ThreadStore.ThreadStore, (store) => store.since(threadId, 0)).pipe(
    Effect.provide(ThreadStore.layerSqlite({ filename }))
  )

/** The item id of an item notification. */
const itemId = (m: { readonly params?: Record<string, unknown> }) => (m.params?.item as { id?: string } | undefined)?.id

const terminalItems = (records: ReadonlyArray<ThreadStore.StoredRecord>, callId: string) =>
  records.flatMap((r) => (r.event._tag === "itemCompleted" && r.event.item.id === callId ? [r.event.item] : []))

describe("tool/call and the store", () => {
  it.scopedLive("a normal call on SQLite appends its two items and reads nothing", () =>
    Effect.gen(function* () {
      const dataDir = tempDir()
      const store = counting(ThreadStore.layerSqlite({ filename: join(dataDir, "state.sqlite"), exclusive: true }))
      const server = yield* startInProcess({
        dataDir,
        configPath: writeConfig(dataDir, { mcp_servers: { srv: stdioCommand(srv) } }),
        store: store.layer
      })
      const threadId = threadIdOf(yield* server.request("thread/start", {}))
      resultOf(yield* server.request("turn/start", { threadId, turnId: "t1" }))
      store.control.reset()
      assert.deepStrictEqual(resultOf(yield* call(server, threadId, "t1", "c1")), {
        callId: "c1",
        output: JSON.stringify({ content: [{ type: "text", text: "quick ok" }] }),
        success: true
      })
      assert.deepStrictEqual(store.control.snapshot(), { append: 2 })
    })
  )

  it.scopedLive(
    "thread/resume folds a thread of several read pages, keeping its history and closing what was left open",
    () =>
      Effect.gen(function* () {
        const dataDir = tempDir()
        const filename = join(dataDir, "state.sqlite")
        const threadId = "long-thread"
        const quickCall = (id: string, done: boolean): ToolCallItem.McpToolCallItem => ({
          type: "mcpToolCall",
          id,
          server: "srv",
          tool: "quick",
          arguments: {},
          status: done ? "completed" : "inProgress",
          result: done ? { content: [{ type: "text", text: "quick ok" }] } : null,
          error: null,
          durationMs: done ? 1 : null
        })
        // 1,102 records: more than one page of the store's reads (1,024 records), a call left open last.
        const events: Array<ThreadEvent.ThreadEvent> = [
          { _tag: "turnStarted", turnId: "t1" },
          ...Array.from(
            { length: 1_100 },
            (_, i): ThreadEvent.ThreadEvent => ({
              _tag: "itemCompleted",
              turnId: "t1",
              item: quickCall(`old-${i}`, true)
            })
          ),
          { _tag: "itemStarted", turnId: "t1", item: quickCall("open-1", false) }
        ]
        yield* Effect.gen(function* () {
          const store = yield* ThreadStore.ThreadStore
          yield* store.create({ id: threadId, createdAt: new Date(0).toISOString(), config: null })
          yield* Effect.reduce(events, 0, (seq, event) => store.append(threadId, seq, event))
        }).pipe(Effect.provide(ThreadStore.layerSqlite({ filename })))

        const store = counting(ThreadStore.layerSqlite({ filename, exclusive: true }))
        const server = yield* startInProcess({
          dataDir,
          configPath: writeConfig(dataDir, { mcp_servers: { srv: stdioCommand(srv) } }),
          store: store.layer
        })
        resultOf(yield* server.request("thread/resume", { threadId }))
        // One paged read of the whole thread, and the open call's terminal item appended.
        assert.deepStrictEqual(store.control.snapshot(), { append: 1, get: 1, sincePages: 1 })
        const records = yield* storedRecords(filename, threadId)
        assert.strictEqual(records.length, events.length + 1)
        assert.deepStrictEqual(
          terminalItems(records, "open-1").map((item) => [item.status, item.error?.message]),
          [["failed", "interrupted"]]
        )
        // A call id of the first page is still known: refused after one look for newer records, nothing stored.
        store.control.reset()
        assert.deepStrictEqual((yield* call(server, threadId, "t1", "old-3")).error, {
          code: -32600,
          message: "duplicate callId: old-3"
        })
        assert.deepStrictEqual(store.control.snapshot(), { since: 1 })
      })
  )

  it.scopedLive(
    "a long thread's load holds up no other thread: another thread's first tool/list and thread/resume are answered while the load waits between two pages",
    () =>
      Effect.gen(function* () {
        const dataDir = tempDir()
        const filename = join(dataDir, "state.sqlite")
        const text = "y".repeat(4 * 1024)
        // 300 records of 4 KiB: several pages of the store's paged read (the first has 128 records).
        yield* Effect.gen(function* () {
          const store = yield* ThreadStore.ThreadStore
          for (const id of ["other", "third"]) {
            yield* store.create({ id, createdAt: new Date(0).toISOString(), config: null })
            yield* store.append(id, 0, { _tag: "turnStarted", turnId: "t1" })
          }
          yield* store.create({ id: "long", createdAt: new Date(0).toISOString(), config: null })
          let seq = yield* store.append("long", 0, { _tag: "turnStarted", turnId: "t1" })
          for (let i = 0; i < 300; i++) {
            const item: ToolCallItem.McpToolCallItem = {
              type: "mcpToolCall",
              id: `c${i}`,
              server: "srv",
              tool: "quick",
              arguments: {},
              status: "completed",
              result: { content: [{ type: "text", text }] },
              error: null,
              durationMs: 1
            }
            seq = yield* store.append("long", seq, { _tag: "itemCompleted", turnId: "t1", item })
          }
        }).pipe(Effect.provide(ThreadStore.layerSqlite({ filename })))

        // The long thread's read stops after its first page until the test lets it go on.
        const firstPage = yield* Deferred.make<number>()
        const goOn = yield* Deferred.make<void>()
        const pages = { long: 0, reads: 0 }
        const holding = Layer.effect(
          ThreadStore.ThreadStore,
          Effect.map(
            ThreadStore.ThreadStore,
            (store): ThreadStore.Service => ({
              ...store,
              sincePages: (id, seq, onPage) => {
                if (id === "long") pages.reads++
                return store.sincePages(id, seq, (records) =>
                  id !== "long"
                    ? onPage(records)
                    : Effect.zipRight(
                        onPage(records),
                        Effect.suspend(() =>
                          ++pages.long === 1
                            ? Effect.zipRight(Deferred.succeed(firstPage, records.length), Deferred.await(goOn))
                            : Effect.void
                        )
                      )
                )
              }
            })
          )
        ).pipe(Layer.provide(ThreadStore.layerSqlite({ filename, exclusive: true })))
        const server = yield* startInProcess({ dataDir, store: holding })

        const long = yield* server.send("thread/resume", { threadId: "long" })
        const firstRecords = yield* Deferred.await(firstPage)
        assert.isBelow(firstRecords, 301, "the long thread is read in more than one page")
        // The long load is held between two pages: other threads load and answer meanwhile.
        // (no MCP server configured: no tools)
        assert.deepStrictEqual(resultOf(yield* server.request("tool/list", { threadId: "other" })), { tools: [] })
        assert.deepStrictEqual(resultOf(yield* server.request("thread/resume", { threadId: "third" })), {
          thread: { id: "third", ephemeral: false }
        })
        assert.isFalse(
          server.messages.some((m) => m.id === long),
          "the long thread's resume is still loading"
        )
        // A second resume of the long thread waits for the load under way instead of starting another.
        const again = yield* server.send("thread/resume", { threadId: "long" })
        yield* Deferred.succeed(goOn, undefined)
        for (const id of [long, again])
          assert.deepStrictEqual(resultOf(yield* server.waitFor((m) => m.id === id, "the long resumes")), {
            thread: { id: "long", ephemeral: false }
          })
        assert.strictEqual(pages.reads, 1, "the long thread was read once")
        assert.isAbove(pages.long, 1)
      })
  )

  for (const kind of ["SQLite", "PostgreSQL"] as const) {
    it.scopedLive(
      `two app-servers on one ${kind} store: the second pulls the first's records only to find a turn, a call id or after a conflict`,
      () =>
        Effect.gen(function* () {
          if (kind === "PostgreSQL" && clusterUrl === undefined) return
          const dataDir = tempDir()
          const open: () => Layer.Layer<ThreadStore.ThreadStore, ThreadStore.ThreadStoreError> =
            kind === "SQLite"
              ? () => ThreadStore.layerSqlite({ filename: join(dataDir, "state.sqlite") })
              : yield* Effect.map(freshDatabase(clusterUrl!), (url) => () => ThreadStore.layerPg({ url }))
          const configPath = writeConfig(dataDir, { mcp_servers: { srv: stdioCommand(srv) } })
          const first = yield* startInProcess({ dataDir, configPath, store: open() })
          const secondStore = counting(open())
          const second = yield* startInProcess({ dataDir, configPath, store: secondStore.layer })

          const threadId = threadIdOf(yield* first.request("thread/start", {}))
          resultOf(yield* first.request("turn/start", { threadId, turnId: "t1" }))
          resultOf(yield* second.request("thread/resume", { threadId }))
          // A turn the second process never saw: it looks before answering `turn not found`.
          resultOf(yield* first.request("turn/start", { threadId, turnId: "t2" }))
          secondStore.control.reset()
          assert.strictEqual(resultOf(yield* call(second, threadId, "t2", "c1")).success, true)
          assert.deepStrictEqual(secondStore.control.snapshot(), { append: 2, since: 1 })

          // The first appends meanwhile: the second's started item conflicts, catches up, and is stored after it.
          assert.strictEqual(resultOf(yield* call(first, threadId, "t2", "c2")).success, true)
          secondStore.control.reset()
          assert.strictEqual(resultOf(yield* call(second, threadId, "t2", "c3")).success, true)
          assert.deepStrictEqual(secondStore.control.snapshot(), { append: 3, since: 1 })

          // A call id the first used: found on the conflict's catch-up, refused before anything is stored.
          assert.strictEqual(resultOf(yield* call(first, threadId, "t2", "c4")).success, true)
          assert.deepStrictEqual((yield* call(second, threadId, "t2", "c4")).error, {
            code: -32600,
            message: "duplicate callId: c4"
          })
          // A turn nobody started is refused after one look.
          secondStore.control.reset()
          assert.deepStrictEqual((yield* call(second, threadId, "t9", "c5")).error, {
            code: -32600,
            message: "turn not found: t9"
          })
          assert.deepStrictEqual(secondStore.control.snapshot(), { since: 1 })

          const records = yield* Effect.provide(
            Effect.flatMap(ThreadStore.ThreadStore, (store) => store.since(threadId, 0)),
            open()
          )
          for (const callId of ["c1", "c2", "c3", "c4"]) assert.strictEqual(terminalItems(records, callId).length, 1)
          assert.strictEqual(
            records.filter((r) => r.event._tag === "itemStarted" && r.event.item.id === "c4").length,
            1,
            "the refused c4 stored nothing"
          )
        })
    )
  }

  it.scopedLive("a cancelled call ends with exactly one terminal item in the thread's records", () =>
    Effect.gen(function* () {
      const dataDir = tempDir()
      const filename = join(dataDir, "state.sqlite")
      const store = counting(ThreadStore.layerSqlite({ filename }))
      const server = yield* startInProcess({
        dataDir,
        configPath: writeConfig(dataDir, { mcp_servers: { srv: stdioCommand(srv) } }),
        store: store.layer
      })
      const threadId = threadIdOf(yield* server.request("thread/start", {}))
      resultOf(yield* server.request("turn/start", { threadId, turnId: "t1" }))

      // A plain cancel.
      const plain = yield* server.send("tool/call", {
        threadId,
        turnId: "t1",
        callId: "c1",
        name: "mcp__srv__slow",
        arguments: "{}"
      })
      yield* server.waitFor((m) => m.method === "item/started" && m.params?.item !== undefined, "c1 started")
      yield* server.notify("$/cancelRequest", { id: plain })
      const answer = yield* server.waitFor((m) => m.id === plain, "the cancelled answer")
      assert.deepStrictEqual(answer.error, { code: -32800, message: "Request cancelled" })

      // A cancel whose completion the store refuses at first (every retry), then accepts.
      let refusals = 0
      store.control.refuse = (event) => {
        if (event._tag !== "itemCompleted" || event.item.id !== "c2" || refusals >= 6) return undefined
        refusals++
        return new ThreadStore.ThreadStoreError({ reason: "storage", message: "cannot append: disk is full" })
      }
      const refused = yield* server.send("tool/call", {
        threadId,
        turnId: "t1",
        callId: "c2",
        name: "mcp__srv__slow",
        arguments: "{}"
      })
      yield* server.waitFor((m) => m.method === "item/started" && itemId(m) === "c2", "c2 started")
      yield* server.notify("$/cancelRequest", { id: refused })
      yield* server.waitFor((m) => m.id === refused, "the second cancelled answer")
      yield* server.waitFor(
        (m) => m.method === "item/completed" && itemId(m) === "c2",
        "c2 completed once the store accepts writes"
      )
      // Anything else about c2 would be recorded by now: the next request of the thread waits for it.
      resultOf(yield* server.request("turn/start", { threadId, turnId: "t2" }))

      const records = yield* storedRecords(filename, threadId)
      const first = terminalItems(records, "c1")
      assert.strictEqual(first.length, 1)
      assert.deepStrictEqual([first[0]!.status, first[0]!.error], ["failed", { message: "cancelled" }])
      const second = terminalItems(records, "c2")
      assert.strictEqual(second.length, 1, JSON.stringify(second))
      assert.strictEqual(second[0]!.status, "failed")
    })
  )

  it.scopedLive(
    "a full disk under the driver: tool/call answers the store operation and ENOSPC; nothing stored is lost",
    () =>
      Effect.gen(function* () {
        const dataDir = tempDir()
        const filename = join(dataDir, "state.sqlite")
        // better-sqlite3 as the store loads it: its statements fail as a full disk makes them fail.
        const Sqlite = createRequire(import.meta.url)("better-sqlite3") as new (
          file: string
        ) => { prepare(sql: string): object; close(): void }
        const probe = new Sqlite(":memory:")
        const statement = Object.getPrototypeOf(probe.prepare("SELECT 1")) as {
          run: (this: { source: string }, ...params: Array<unknown>) => unknown
        }
        probe.close()
        const run = statement.run
        let full = false
        let refusals = 0
        yield* Effect.acquireRelease(
          Effect.sync(() => {
            statement.run = function (this: { source: string }, ...params: Array<unknown>) {
              if (full && this.source.includes("INSERT INTO thread_records") && params.includes("itemCompleted")) {
                refusals++
                throw Object.assign(new Error("no space left on device, write"), {
                  code: "ENOSPC",
                  errno: -28,
                  syscall: "write"
                })
              }
              return run.apply(this, params)
            }
          }),
          () =>
            Effect.sync(() => {
              statement.run = run
            })
        )
        const server = yield* startInProcess({
          dataDir,
          configPath: writeConfig(dataDir, { mcp_servers: { srv: stdioCommand(srv) } })
        })
        const threadId = threadIdOf(yield* server.request("thread/start", {}))
        resultOf(yield* server.request("turn/start", { threadId, turnId: "t1" }))
        assert.strictEqual(resultOf(yield* call(server, threadId, "t1", "c1")).success, true)

        full = true
        const cause = `cannot append to thread ${threadId}: ENOSPC: no space left on device, write`
        assert.deepStrictEqual((yield* call(server, threadId, "t1", "c2")).error, { code: -32603, message: cause })
        assert.isAbove(refusals, 0)
        full = false
        const lost = yield* server.waitFor(
          (m) => m.method === "item/completed" && itemId(m) === "c2",
          "c2's failed item once writes are accepted"
        )
        assert.deepStrictEqual((lost.params?.item as { error: unknown } | undefined)?.error, {
          message: `the result could not be stored: ${cause}`
        })
        assert.strictEqual(resultOf(yield* call(server, threadId, "t1", "c3")).success, true)

        const records = yield* storedRecords(filename, threadId)
        assert.deepStrictEqual(
          records.map((r) =>
            r.event._tag === "itemStarted" || r.event._tag === "itemCompleted"
              ? `${r.event._tag}:${r.event.item.id}:${r.event.item.status}`
              : r.event._tag
          ),
          [
            "turnStarted",
            "itemStarted:c1:inProgress",
            "itemCompleted:c1:completed",
            "itemStarted:c2:inProgress",
            "itemCompleted:c2:failed",
            "itemStarted:c3:inProgress",
            "itemCompleted:c3:completed"
          ]
        )
      })
  )

  it.scopedLive(
    "SQLite full (max_page_count): a call whose tool ran answers SQLITE_FULL, and its failed item is stored once writes are accepted",
    () =>
      Effect.gen(function* () {
        const dataDir = tempDir()
        const filename = join(dataDir, "state.sqlite")
        const connections = yield* captureSqlite
        const server = yield* startInProcess({
          dataDir,
          configPath: writeConfig(dataDir, { mcp_servers: { ask: elicitationCommand("v1"), srv: stdioCommand(srv) } }),
          capabilities: { serverRequests: ["mcpServer/elicitation/request"] }
        })
        const db = connections.take()
        const threadId = threadIdOf(yield* server.request("thread/start", {}))
        resultOf(yield* server.request("turn/start", { threadId, turnId: "t1" }))
        assert.strictEqual(resultOf(yield* call(server, threadId, "t1", "c1")).success, true)

        const answer = yield* callWhileTheDiskFills(
          server,
          threadId,
          "c2",
          Effect.sync(() => fill(db))
        )
        const cause = `cannot append to thread ${threadId}: SQLITE_FULL: database or disk is full`
        assert.deepStrictEqual(answer.error, { code: -32603, message: cause })

        free(db)
        const completed = yield* server.waitFor(
          (m) => m.method === "item/completed" && itemId(m) === "c2",
          "c2's failed item once writes are accepted"
        )
        assert.deepStrictEqual((completed.params?.item as { error: unknown } | undefined)?.error, {
          message: `the result could not be stored: ${cause}`
        })
        // The call id is now taken by a recorded call; the thread goes on.
        assert.deepStrictEqual((yield* call(server, threadId, "t1", "c2")).error, {
          code: -32600,
          message: "duplicate callId: c2"
        })
        assert.strictEqual(resultOf(yield* call(server, threadId, "t1", "c3")).success, true)
        const records = yield* storedRecords(filename, threadId)
        assert.deepStrictEqual(
          records.map((r) =>
            r.event._tag === "itemStarted" || r.event._tag === "itemCompleted"
              ? `${r.event._tag}:${r.event.item.id}:${r.event.item.status}`
              : r.event._tag
          ),
          [
            "turnStarted",
            "itemStarted:c1:inProgress",
            "itemCompleted:c1:completed",
            "itemStarted:c2:inProgress",
            "itemCompleted:c2:failed",
            "itemStarted:c3:inProgress",
            "itemCompleted:c3:completed"
          ]
        )
      })
  )

  it.scopedLive(
    "PostgreSQL full (a trigger raising 53100) under two app-servers: the call answers the cause, its failed item is stored once writes are accepted, and the other server sees it",
    () =>
      Effect.gen(function* () {
        if (clusterUrl === undefined) return
        const dataDir = tempDir()
        const url = yield* freshDatabase(clusterUrl)
        const configPath = writeConfig(dataDir, {
          mcp_servers: { ask: elicitationCommand("v1"), srv: stdioCommand(srv) }
        })
        const capabilities = { serverRequests: ["mcpServer/elicitation/request"] }
        const first = yield* startInProcess({ dataDir, configPath, capabilities, store: ThreadStore.layerPg({ url }) })
        const second = yield* startInProcess({ dataDir, configPath, store: ThreadStore.layerPg({ url }) })
        const threadId = threadIdOf(yield* first.request("thread/start", {}))
        resultOf(yield* first.request("turn/start", { threadId, turnId: "t1" }))
        resultOf(yield* second.request("thread/resume", { threadId }))
        yield* psql(url, diskFullFunction)

        const answer = yield* callWhileTheDiskFills(first, threadId, "c2", psql(url, diskFullTrigger))
        const cause = `cannot append to thread ${threadId}: 53100: ${diskFullMessage}`
        assert.deepStrictEqual(answer.error, { code: -32603, message: cause })
        // The second server's call cannot store its started item: it answers the cause and runs nothing.
        assert.deepStrictEqual((yield* call(second, threadId, "t1", "c3")).error, { code: -32603, message: cause })

        yield* psql(url, "DROP TRIGGER disk_full ON thread_records")
        const completed = yield* first.waitFor(
          (m) => m.method === "item/completed" && itemId(m) === "c2",
          "c2's failed item once writes are accepted"
        )
        assert.deepStrictEqual((completed.params?.item as { error: unknown } | undefined)?.error, {
          message: `the result could not be stored: ${cause}`
        })
        // The second server finds c2 recorded; c3, which stored nothing, runs now.
        assert.deepStrictEqual((yield* call(second, threadId, "t1", "c2")).error, {
          code: -32600,
          message: "duplicate callId: c2"
        })
        assert.strictEqual(resultOf(yield* call(second, threadId, "t1", "c3")).success, true)
        const records = yield* Effect.provide(
          Effect.flatMap(ThreadStore.ThreadStore, (store) => store.since(threadId, 0)),
          ThreadStore.layerPg({ url })
        )
        assert.deepStrictEqual(
          records.map((r) =>
            r.event._tag === "itemStarted" || r.event._tag === "itemCompleted"
              ? `${r.event._tag}:${r.event.item.id}:${r.event.item.status}`
              : r.event._tag
          ),
          [
            "turnStarted",
            "itemStarted:c2:inProgress",
            "itemCompleted:c2:failed",
            "itemStarted:c3:inProgress",
            "itemCompleted:c3:completed"
          ]
        )
      })
  )
})

/**
 * Calls `ask_form` (a tool that asks the client before it answers): its started item is stored, `fill`
 * runs while the tool waits for the answer, and the answer makes the tool's result 256 KiB. Returns
 * the call's answer.
 */
const callWhileTheDiskFills = (
  server: InProcessServer,
  threadId: string,
  callId: string,
  fill: Effect.Effect<void, unknown>
) =>
  Effect.gen(function* () {
    const asked = yield* server.send("tool/call", {
      threadId,
      turnId: "t1",
      callId,
      name: "mcp__ask__ask_form",
      arguments: "{}"
    })
    yield* server.waitFor((m) => m.method === "item/started" && itemId(m) === callId, `${callId} started`)
    const question = yield* server.waitFor(
      (m) => m.method === "mcpServer/elicitation/request",
      "the tool's elicitation"
    )
    yield* Effect.orDie(fill)
    yield* server.reply(question.id, { action: "accept", content: { name: "x".repeat(256 * 1024) } })
    return yield* server.waitFor((m) => m.id === asked, `${callId}'s answer`)
  })

/** A better-sqlite3 connection, as far as these tests use it. */
interface SqliteConnection {
  pragma(source: string, options?: { readonly simple?: boolean }): unknown
}

/**
 * Captures the better-sqlite3 connections opened until `take` (the store's, as the server starts):
 * `take` ends the capture and returns the one connection opened meanwhile.
 */
const captureSqlite = Effect.gen(function* () {
  const Sqlite = createRequire(import.meta.url)("better-sqlite3") as { prototype: { pragma: Function } }
  const pragma = Sqlite.prototype.pragma
  const opened = new Set<SqliteConnection>()
  const restore = () => {
    Sqlite.prototype.pragma = pragma
  }
  yield* Effect.acquireRelease(
    Effect.sync(() => {
      Sqlite.prototype.pragma = function (this: SqliteConnection, ...args: Array<unknown>) {
        opened.add(this)
        return pragma.apply(this, args)
      }
    }),
    () => Effect.sync(restore)
  )
  return {
    take: (): SqliteConnection => {
      restore()
      assert.strictEqual(opened.size, 1, "one SQLite connection opened by the server")
      return [...opened][0]!
    }
  }
})

/** No page more than the database has now: the next write that needs one fails with SQLITE_FULL. */
const fill = (db: SqliteConnection) => {
  db.pragma(`max_page_count = ${Number(db.pragma("page_count", { simple: true }))}`)
}

/** Space again. */
const free = (db: SqliteConnection) => {
  db.pragma("max_page_count = 1073741823")
}

/** What PostgreSQL says when a data file cannot grow (SQLSTATE 53100, disk_full). */
const diskFullMessage = 'could not extend file "base/16384/16402": No space left on device'

/** A trigger function that fails every insert as a full disk does. */
const diskFullFunction = `CREATE FUNCTION disk_full() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN RAISE EXCEPTION '${diskFullMessage}' USING ERRCODE = '53100'; END $$`

/** Every insert into the records fails from now on, until the trigger is dropped. */
const diskFullTrigger =
  "CREATE TRIGGER disk_full BEFORE INSERT ON thread_records FOR EACH ROW EXECUTE FUNCTION disk_full()"
