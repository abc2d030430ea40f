/**
 * The ThreadStore contract: one suite, run against the memory, SQLite and PostgreSQL layers.
 */
import { assert, describe, it } from "@effect/vitest"
import type { ThreadEvent } from "@mcp-resources/protocol"
import { Context, Effect, Either, Exit, Layer, Option, Scope } from "effect"
import { ThreadStore } from "../src/index.js"

/** One fresh, empty storage per test. */
export interface Backend {
  /** A layer over this test's storage; SQL backends give layers sharing one database each time. */
  readonly open: () => Layer.Layer<ThreadStore.ThreadStore, ThreadStore.ThreadStoreError>
  /** Runs raw SQL on the storage, bypassing the store (SQL backends only). */
  readonly query?: (statement: string) => Effect.Effect<ReadonlyArray<Record<string, unknown>>>
}

/** Builds a store in the current scope. */
export const build = (layer: Layer.Layer<ThreadStore.ThreadStore, ThreadStore.ThreadStoreError>) =>
  Layer.build(layer).pipe(Effect.map(Context.get(ThreadStore.ThreadStore)))

const thread = (
  id: string,
  createdAt = "2026-01-01T00:00:00.000Z",
  config: unknown = null
): ThreadStore.ThreadInfo => ({
  id,
  createdAt,
  config
})

/** Events as resource-origins.md section 2 records them. */
export const ev = {
  turn: (turnId: string): ThreadEvent.ThreadEvent => ({ _tag: "turnStarted", turnId }),
  item: (turnId: string, callId: string): ThreadEvent.ThreadEvent => ({
    _tag: "itemCompleted",
    turnId,
    item: {
      type: "mcpToolCall",
      id: callId,
      server: "codex_apps",
      tool: "t",
      arguments: { query: "tv" },
      status: "completed",
      result: { content: [{ type: "text", text: "ok" }], isError: false },
      error: null,
      durationMs: 12,
      connectorId: "k",
      mcpAppResourceUri: "ui://w"
    }
  }),
  rollback: (numTurns: number): ThreadEvent.ThreadEvent => ({ _tag: "threadRolledBack", numTurns }),
  compacted: (checkpoint?: unknown): ThreadEvent.ThreadEvent => ({
    _tag: "compacted",
    state: checkpoint === undefined ? {} : { mcp_resource_origins: checkpoint }
  })
}

const checkpoint = {
  origins: [{ call_id: "c1", turn_id: "t1", tool: "t", connector_id: "k", uri: "ui://w" }],
  turns: ["t1"],
  current_turn_id: "t1"
}

/** Appends events in order after `from`, returning the last seq. */
const appendAll = (store: ThreadStore.Service, id: string, events: ReadonlyArray<ThreadEvent.ThreadEvent>, from = 0) =>
  Effect.reduce(events, from, (seq, event) => store.append(id, seq, event))

const failure = <A>(effect: Effect.Effect<A, ThreadStore.ThreadStoreError>) =>
  Effect.flip(effect).pipe(Effect.map((e) => ({ reason: e.reason, message: e.message })))

/** A tool result of `bytes` bytes: its record needs pages of its own. */
const bigItem = (turnId: string, callId: string, bytes: number): ThreadEvent.ThreadEvent => {
  const event = ev.item(turnId, callId)
  if (event._tag !== "itemCompleted") throw new Error("unreachable")
  return { ...event, item: { ...event.item, result: { content: [{ type: "text", text: "x".repeat(bytes) }] } } }
}

/**
 * The store on a full disk (`fill` makes the storage refuse to grow, `free` gives it room again): an
 * append fails with reason `storage` and the driver's whole message chain (`cause`), stores nothing,
 * leaves the store usable (the same append goes through once there is room, at the same seq), and
 * what was stored before is intact.
 */
export const fullStoreCase = (
  store: ThreadStore.Service,
  disk: { readonly fill: Effect.Effect<void>; readonly free: Effect.Effect<void>; readonly cause: string }
) =>
  Effect.gen(function* () {
    yield* store.create(thread("full"))
    yield* appendAll(store, "full", [ev.turn("t1"), ev.item("t1", "c1")])
    yield* disk.fill
    const big = bigItem("t1", "c2", 256 * 1024)
    assert.deepStrictEqual(yield* failure(store.append("full", 2, big)), {
      reason: "storage",
      message: `cannot append to thread full: ${disk.cause}`
    })
    assert.strictEqual(yield* store.lastSeq("full"), 2)
    // Still full: a second try fails the same way (no transaction left open, no defect).
    assert.deepStrictEqual(yield* failure(store.append("full", 2, big)), {
      reason: "storage",
      message: `cannot append to thread full: ${disk.cause}`
    })
    yield* disk.free
    assert.strictEqual(yield* store.append("full", 2, big), 3)
    const loaded = yield* store.load("full")
    assert.deepStrictEqual(
      loaded.records.map((r) => r.seq),
      [1, 2, 3]
    )
    assert.deepStrictEqual(loaded.records[2]!.event, big)
  })

/**
 * Registers the contract suite for one backend. With `shared`, two layers opened on one test's storage
 * see the same data, and the durability, migration and corruption cases run too.
 */
export const threadStoreSuite = (
  name: string,
  backend: Effect.Effect<Backend, never, Scope.Scope>,
  options: { readonly shared: boolean }
) =>
  describe(`ThreadStore contract (${name})`, () => {
    const fresh = Effect.gen(function* () {
      const b = yield* backend
      return { backend: b, store: yield* build(b.open()) }
    })

    it.scoped("create then get returns the thread with its createdAt and config; unknown ids give None", () =>
      Effect.gen(function* () {
        const { store } = yield* fresh
        const config = { truncation: { mode: "bytes", limit: 10 }, orchestratorMcpEnabled: false }
        yield* store.create(thread("a", "2026-01-02T03:04:05.678Z", config))
        yield* store.create(thread("b"))
        assert.deepStrictEqual(yield* store.get("a"), Option.some(thread("a", "2026-01-02T03:04:05.678Z", config)))
        assert.deepStrictEqual(yield* store.get("b"), Option.some(thread("b")))
        assert.deepStrictEqual(yield* store.get("zz"), Option.none())
        assert.strictEqual(yield* store.lastSeq("a"), 0)
      })
    )

    it.scoped("creating an id that already exists fails and keeps the first thread", () =>
      Effect.gen(function* () {
        const { store } = yield* fresh
        yield* store.create(thread("a", "2026-01-01T00:00:00.000Z", { x: 1 }))
        assert.deepStrictEqual(yield* failure(store.create(thread("a", "2026-02-01T00:00:00.000Z"))), {
          reason: "conflict",
          message: "thread already exists: a"
        })
        assert.deepStrictEqual(yield* store.get("a"), Option.some(thread("a", "2026-01-01T00:00:00.000Z", { x: 1 })))
      })
    )

    it.scoped("list returns threads newest first, ties in id order", () =>
      Effect.gen(function* () {
        const { store } = yield* fresh
        assert.deepStrictEqual(yield* store.list(), [])
        yield* store.create(thread("m", "2026-01-01T00:00:00.000Z"))
        yield* store.create(thread("z", "2026-01-03T00:00:00.000Z"))
        yield* store.create(thread("b", "2026-01-02T00:00:00.000Z"))
        yield* store.create(thread("a", "2026-01-02T00:00:00.000Z"))
        const ids = (yield* store.list()).map((t) => t.id)
        assert.deepStrictEqual(ids, ["z", "a", "b", "m"])
      })
    )

    it.scoped("remove deletes the thread and all its records; removing again reports false", () =>
      Effect.gen(function* () {
        const { store } = yield* fresh
        yield* store.create(thread("a"))
        yield* store.create(thread("b"))
        yield* appendAll(store, "a", [ev.turn("t1"), ev.item("t1", "c1")])
        assert.isTrue(yield* store.remove("a"))
        assert.isFalse(yield* store.remove("a"))
        assert.deepStrictEqual(yield* store.get("a"), Option.none())
        assert.deepStrictEqual(
          (yield* store.list()).map((t) => t.id),
          ["b"]
        )
        assert.deepStrictEqual(yield* failure(store.load("a")), { reason: "notFound", message: "thread not found: a" })
        // A thread created again under the same id starts empty.
        yield* store.create(thread("a"))
        assert.deepStrictEqual(yield* store.load("a"), { thread: thread("a"), records: [], lastSeq: 0 })
      })
    )

    it.scoped(
      "a toolAudited record (docs/policy.md) is stored and read back with the items, before and after a compaction",
      () =>
        Effect.gen(function* () {
          const { store } = yield* fresh
          yield* store.create(thread("au"))
          const audited: ThreadEvent.ThreadEvent = {
            _tag: "toolAudited",
            turnId: "t1",
            audit: {
              callId: "c1",
              tool: "read_mcp_resource",
              server: "srv",
              rules: [{ uri: "file:///home/x", allowed: false, pattern: "file:///home/**" }],
              hidden: 0,
              listed: [],
              before: [{ hook: "before_tool[0]", decision: "rewrite", arguments: { uri: "file:///repo/b" } }],
              after: [{ hook: "after_tool[0]", decision: "redact", redactions: 2 }],
              serverRequest: false,
              success: false
            }
          }
          const events = [ev.turn("t1"), ev.item("t1", "c1"), audited, ev.compacted(checkpoint), audited]
          yield* appendAll(store, "au", events)
          assert.deepStrictEqual(
            (yield* store.since("au", 0)).map((r) => r.event),
            events
          )
        })
    )

    it.scoped(
      "pending resource changes (resourceChanged, resourceChangesTaken) are stored and read back, with or without the fields a change-aware read adds",
      () =>
        Effect.gen(function* () {
          const { store } = yield* fresh
          yield* store.create(thread("rc"))
          const changed = (uri: string, extra: object = {}): ThreadEvent.ThreadEvent => ({
            _tag: "resourceChanged",
            change: { server: "docs", uri, readInCallId: "c1", changedAt: "2026-01-01T00:00:01.000Z", ...extra }
          })
          const events = [
            ev.turn("t1"),
            changed("changes://doc/a"),
            changed("changes://doc/b", {
              sizeBefore: 1024,
              sizeAfter: 1030,
              digestBefore: "a".repeat(64),
              digestAfter: "b".repeat(64),
              diffAvailable: true
            }),
            ev.compacted(checkpoint),
            { _tag: "resourceChangesTaken" } satisfies ThreadEvent.ThreadEvent
          ]
          yield* appendAll(store, "rc", events)
          assert.deepStrictEqual(
            (yield* store.since("rc", 0)).map((r) => r.event),
            events
          )
        })
    )

    it.scoped("append numbers records 1, 2, 3 and load returns them in order", () =>
      Effect.gen(function* () {
        const { store } = yield* fresh
        yield* store.create(thread("a"))
        const events = [ev.turn("t1"), ev.item("t1", "c1"), ev.rollback(1)]
        assert.strictEqual(yield* store.append("a", 0, events[0]!), 1)
        assert.strictEqual(yield* store.append("a", 1, events[1]!), 2)
        assert.strictEqual(yield* store.append("a", 2, events[2]!), 3)
        assert.strictEqual(yield* store.lastSeq("a"), 3)
        const loaded = yield* store.load("a")
        assert.deepStrictEqual(loaded, {
          thread: thread("a"),
          records: events.map((event, i) => ({ seq: i + 1, event })),
          lastSeq: 3
        })
      })
    )

    it.scoped(
      "append with a stale or future expectedSeq fails with the concurrent-modification message and writes nothing",
      () =>
        Effect.gen(function* () {
          const { store } = yield* fresh
          yield* store.create(thread("th-1"))
          yield* appendAll(store, "th-1", [ev.turn("t1"), ev.turn("t2")])
          const expected = { reason: "conflict", message: "thread th-1 was modified concurrently" }
          assert.deepStrictEqual(yield* failure(store.append("th-1", 1, ev.turn("x"))), expected)
          assert.deepStrictEqual(yield* failure(store.append("th-1", 5, ev.turn("x"))), expected)
          assert.deepStrictEqual(yield* failure(store.append("th-1", 0, ev.turn("x"))), expected)
          assert.strictEqual(yield* store.lastSeq("th-1"), 2)
          assert.deepStrictEqual(
            (yield* store.load("th-1")).records.map((r) => r.event),
            [ev.turn("t1"), ev.turn("t2")]
          )
        })
    )

    it.scoped("operations on an unknown thread fail with thread not found", () =>
      Effect.gen(function* () {
        const { store } = yield* fresh
        const expected = { reason: "notFound", message: "thread not found: nope" }
        assert.deepStrictEqual(yield* failure(store.append("nope", 0, ev.turn("t1"))), expected)
        assert.deepStrictEqual(yield* failure(store.load("nope")), expected)
        assert.deepStrictEqual(yield* failure(store.since("nope", 0)), expected)
        assert.deepStrictEqual(yield* failure(store.lastSeq("nope")), expected)
      })
    )

    it.scoped("of appends racing for the same expectedSeq exactly one wins; the others get the conflict", () =>
      Effect.gen(function* () {
        const { backend: b, store } = yield* fresh
        const other = options.shared ? yield* build(b.open()) : store
        yield* store.create(thread("race"))
        yield* store.append("race", 0, ev.turn("t0"))
        const stores = [store, other, store, other]
        const results = yield* Effect.all(
          stores.map((s, i) => Effect.either(s.append("race", 1, ev.turn(`t${i + 1}`)))),
          { concurrency: "unbounded" }
        )
        const wins = results.filter(Either.isRight)
        assert.strictEqual(wins.length, 1)
        assert.strictEqual(wins[0]!.right, 2)
        for (const result of results.filter(Either.isLeft)) {
          assert.strictEqual(result.left.reason, "conflict")
          assert.strictEqual(result.left.message, "thread race was modified concurrently")
        }
        const loaded = yield* other.load("race")
        assert.deepStrictEqual(
          loaded.records.map((r) => r.seq),
          [1, 2]
        )
        assert.strictEqual(loaded.lastSeq, 2)
      })
    )

    it.scoped("O-21: load returns the newest compaction and every later record (the store's part)", () =>
      Effect.gen(function* () {
        const { store } = yield* fresh
        yield* store.create(thread("th"))
        const events = [
          ev.turn("t1"),
          ev.item("t1", "c1"),
          ev.compacted(checkpoint),
          ev.turn("t2"),
          ev.item("t2", "c2"),
          ev.rollback(1)
        ]
        yield* appendAll(store, "th", events)
        const loaded = yield* store.load("th")
        assert.deepStrictEqual(
          loaded.records,
          events.slice(2).map((event, i) => ({ seq: i + 3, event }))
        )
        assert.strictEqual(loaded.lastSeq, 6)
        // The checkpoint comes back exactly as stored, snake_case keys in their order.
        const first = loaded.records[0]!.event
        assert.strictEqual(first._tag, "compacted")
        if (first._tag === "compacted") {
          assert.strictEqual(
            JSON.stringify(first.state),
            '{"mcp_resource_origins":{"origins":[{"call_id":"c1","turn_id":"t1","tool":"t","connector_id":"k","uri":"ui://w"}],"turns":["t1"],"current_turn_id":"t1"}}'
          )
        }
      })
    )

    it.scoped("O-22: a compaction followed by a turn and a rollback loads as those three records", () =>
      Effect.gen(function* () {
        const { store } = yield* fresh
        yield* store.create(thread("th"))
        const events = [ev.compacted(checkpoint), ev.turn("t2"), ev.rollback(2)]
        yield* appendAll(store, "th", events)
        assert.deepStrictEqual(
          (yield* store.load("th")).records,
          events.map((event, i) => ({ seq: i + 1, event }))
        )
      })
    )

    it.scoped("O-23: a compaction without a checkpoint is kept with no mcp_resource_origins key", () =>
      Effect.gen(function* () {
        const { store } = yield* fresh
        yield* store.create(thread("th"))
        yield* appendAll(store, "th", [
          ev.turn("t1"),
          ev.item("t1", "c1"),
          ev.compacted(),
          ev.turn("t5"),
          ev.item("t5", "c5")
        ])
        const loaded = yield* store.load("th")
        assert.deepStrictEqual(loaded.records, [
          { seq: 3, event: ev.compacted() },
          { seq: 4, event: ev.turn("t5") },
          { seq: 5, event: ev.item("t5", "c5") }
        ])
        const first = loaded.records[0]!.event
        assert.isTrue(first._tag === "compacted" && !("mcp_resource_origins" in first.state))
      })
    )

    it.scoped("with several compactions load starts at the newest one; a compaction as last record loads alone", () =>
      Effect.gen(function* () {
        const { store } = yield* fresh
        yield* store.create(thread("th"))
        yield* appendAll(store, "th", [
          ev.turn("t1"),
          ev.compacted(checkpoint),
          ev.turn("t2"),
          ev.compacted(),
          ev.turn("t3")
        ])
        const loaded = yield* store.load("th")
        assert.deepStrictEqual(loaded.records, [
          { seq: 4, event: ev.compacted() },
          { seq: 5, event: ev.turn("t3") }
        ])
        assert.strictEqual(loaded.lastSeq, 5)
        yield* store.append("th", 5, ev.compacted(checkpoint))
        assert.deepStrictEqual(yield* store.load("th"), {
          thread: thread("th"),
          records: [{ seq: 6, event: ev.compacted(checkpoint) }],
          lastSeq: 6
        })
      })
    )

    it.scoped("since(seq) returns the records after seq in order, empty when none", () =>
      Effect.gen(function* () {
        const { store } = yield* fresh
        yield* store.create(thread("th"))
        const events = [ev.turn("t1"), ev.compacted(), ev.turn("t2"), ev.item("t2", "c2")]
        yield* appendAll(store, "th", events)
        assert.deepStrictEqual(
          yield* store.since("th", 0),
          events.map((event, i) => ({ seq: i + 1, event }))
        )
        assert.deepStrictEqual(yield* store.since("th", 2), [
          { seq: 3, event: events[2]! },
          { seq: 4, event: events[3]! }
        ])
        assert.deepStrictEqual(yield* store.since("th", 4), [])
        assert.deepStrictEqual(yield* store.since("th", 9), [])
      })
    )

    it.scoped("records of one thread never show up in another", () =>
      Effect.gen(function* () {
        const { store } = yield* fresh
        yield* store.create(thread("a"))
        yield* store.create(thread("b"))
        yield* appendAll(store, "a", [ev.turn("a1"), ev.turn("a2")])
        yield* appendAll(store, "b", [ev.turn("b1")])
        assert.deepStrictEqual(yield* store.since("b", 0), [{ seq: 1, event: ev.turn("b1") }])
        assert.strictEqual(yield* store.lastSeq("a"), 2)
      })
    )

    it.scoped("load reads 10,000 later records in order", () =>
      Effect.gen(function* () {
        const { store } = yield* fresh
        yield* store.create(thread("big"))
        yield* store.append("big", 0, ev.compacted(checkpoint))
        const last = yield* Effect.reduce(
          Array.from({ length: 10_000 }, (_, i) => i),
          1,
          (seq, i) => store.append("big", seq, i % 2 === 0 ? ev.turn(`t${i}`) : ev.item(`t${i - 1}`, `c${i}`))
        )
        assert.strictEqual(last, 10_001)
        const loaded = yield* store.load("big")
        assert.strictEqual(loaded.records.length, 10_001)
        assert.strictEqual(loaded.lastSeq, 10_001)
        assert.isTrue(loaded.records.every((r, i) => r.seq === i + 1))
        assert.deepStrictEqual(loaded.records[10_000]!.event, ev.item("t9998", "c9999"))
        // Across the read pages (1,024 records): every record once, in order.
        const later = yield* store.since("big", 4_999)
        assert.strictEqual(later.length, 5_002)
        assert.isTrue(later.every((r, i) => r.seq === i + 5_000))
        // The same records a page at a time: more than one page, none larger than 1,024 records.
        const pages: Array<ReadonlyArray<ThreadStore.StoredRecord>> = []
        const lastPaged = yield* store.sincePages("big", 4_999, (page) => Effect.sync(() => pages.push(page)))
        assert.strictEqual(lastPaged, 10_001)
        assert.isAbove(pages.length, 1)
        assert.isTrue(pages.every((page) => page.length > 0 && page.length <= 1024))
        assert.deepStrictEqual(pages.flat(), later)
        // A failing page handler ends the read with its own failure: no later page is read.
        let handled = 0
        const stopped = yield* Effect.either(
          store.sincePages("big", 0, () => {
            handled++
            return Effect.fail("stop" as const)
          })
        )
        assert.deepStrictEqual(stopped, Either.left("stop"))
        assert.strictEqual(handled, 1)
      })
    )

    it.scoped("sincePages returns seq and hands nothing over when no record follows; unknown threads fail", () =>
      Effect.gen(function* () {
        const { store } = yield* fresh
        yield* store.create(thread("th"))
        let pages = 0
        const count = () =>
          Effect.sync(() => {
            pages++
          })
        assert.strictEqual(yield* store.sincePages("th", 0, count), 0)
        yield* appendAll(store, "th", [ev.turn("t1"), ev.turn("t2")])
        assert.strictEqual(yield* store.sincePages("th", 2, count), 2)
        assert.strictEqual(yield* store.sincePages("th", 7, count), 7)
        assert.strictEqual(pages, 0)
        assert.strictEqual(yield* store.sincePages("th", 1, count), 2)
        assert.strictEqual(pages, 1)
        const missing = yield* failure(store.sincePages("nope", 0, count))
        assert.strictEqual(missing.reason, "notFound")
        assert.strictEqual(missing.message, "thread not found: nope")
      })
    )

    // Registered only where they apply: memory storage is neither shared nor reopened.
    if (!options.shared) return
    describe("shared storage", () => {
      it.scoped(
        "records of 20 KiB are read about 1 MiB at a time from the first page on, so the event loop runs between pages",
        () =>
          Effect.gen(function* () {
            const { store } = yield* fresh
            yield* store.create(thread("big"))
            const text = "z".repeat(20 * 1024)
            yield* Effect.reduce(
              Array.from({ length: 300 }, (_, i) => i),
              0,
              (seq, i) => store.append("big", seq, ev.turn(`${i}${text}`))
            )
            const sizes: Array<number> = []
            assert.strictEqual(
              yield* store.sincePages("big", 0, (page) => Effect.sync(() => sizes.push(page.length))),
              300
            )
            // From the first page on, as many as start within about 1 MiB (52 of these), never more.
            assert.deepStrictEqual(sizes.slice(0, 5), [52, 52, 52, 52, 52])
            assert.isTrue(sizes.every((n) => n <= 52))
            assert.strictEqual(
              sizes.reduce((a, b) => a + b, 0),
              300
            )
          })
      )

      it.scoped(
        "small records followed by large ones are still read about 1 MiB at a time: no page is sized from the records before it",
        () =>
          Effect.gen(function* () {
            const { store } = yield* fresh
            yield* store.create(thread("mixed"))
            const big = "z".repeat(128 * 1024)
            // 300 records of a few bytes, then 40 of 128 KiB (a tool that starts answering large results).
            const events = [
              ...Array.from({ length: 300 }, (_, i) => ev.turn(`t${i}`)),
              ...Array.from({ length: 40 }, (_, i) => ev.turn(`big${i}${big}`))
            ]
            yield* appendAll(store, "mixed", events)
            const pages: Array<{ readonly records: number; readonly bytes: number }> = []
            yield* store.sincePages("mixed", 0, (page) =>
              Effect.sync(() => {
                pages.push({
                  records: page.length,
                  bytes: page.reduce((sum, r) => sum + JSON.stringify(r.event).length, 0)
                })
              })
            )
            assert.strictEqual(
              pages.reduce((sum, p) => sum + p.records, 0),
              340
            )
            // Each page ends with the last record that starts within 1 MiB: at most 1 MiB and one record.
            const bound = 1024 * 1024 + JSON.stringify(events[339]).length
            assert.deepStrictEqual(
              pages.filter((p) => p.bytes > bound),
              []
            )
            assert.isAtLeast(pages.length, 5)
          })
      )

      it.scoped("a second layer on the same storage sees the first one's threads and appends, and vice versa", () =>
        Effect.gen(function* () {
          const { backend: b, store: one } = yield* fresh
          const two = yield* build(b.open())
          yield* one.create(thread("th"))
          yield* one.append("th", 0, ev.turn("t1"))
          assert.deepStrictEqual(
            (yield* two.list()).map((t) => t.id),
            ["th"]
          )
          assert.deepStrictEqual(yield* two.since("th", 0), [{ seq: 1, event: ev.turn("t1") }])
          assert.strictEqual(yield* two.append("th", 1, ev.item("t1", "c1")), 2)
          assert.deepStrictEqual(yield* one.since("th", 1), [{ seq: 2, event: ev.item("t1", "c1") }])
          assert.deepStrictEqual(yield* failure(one.append("th", 1, ev.turn("late"))), {
            reason: "conflict",
            message: "thread th was modified concurrently"
          })
        })
      )

      it.scoped("everything survives closing the store and opening it again; migrations run once", () =>
        Effect.gen(function* () {
          const b = yield* backend
          const scope = yield* Scope.make()
          const first = yield* build(b.open()).pipe(Scope.extend(scope))
          yield* first.create(thread("th", "2026-01-05T00:00:00.000Z", { orchestratorMcpEnabled: true }))
          yield* appendAll(first, "th", [ev.turn("t1"), ev.compacted(checkpoint), ev.turn("t2")])
          yield* Scope.close(scope, Exit.void)

          const again = yield* build(b.open())
          assert.deepStrictEqual(yield* again.load("th"), {
            thread: thread("th", "2026-01-05T00:00:00.000Z", { orchestratorMcpEnabled: true }),
            records: [
              { seq: 2, event: ev.compacted(checkpoint) },
              { seq: 3, event: ev.turn("t2") }
            ],
            lastSeq: 3
          })
          assert.strictEqual(yield* again.append("th", 3, ev.turn("t3")), 4)
          const versions = yield* b.query!("SELECT version FROM thread_store_migrations ORDER BY version")
          assert.deepStrictEqual(
            versions.map((r) => Number(r.version)),
            [1, 2]
          )
        })
      )

      it.scoped("two stores starting at once on fresh storage both migrate cleanly", () =>
        Effect.gen(function* () {
          const b = yield* backend
          const [one, two] = yield* Effect.all([build(b.open()), build(b.open())], { concurrency: 2 })
          yield* one.create(thread("th"))
          assert.deepStrictEqual(yield* two.get("th"), Option.some(thread("th")))
          const versions = yield* b.query!("SELECT version FROM thread_store_migrations")
          assert.strictEqual(versions.length, 2)
        })
      )

      it.scoped("a schema a newer release migrated is refused, naming both versions, and left unchanged", () =>
        Effect.gen(function* () {
          const { backend: b, store } = yield* fresh
          yield* store.create(thread("th"))
          yield* b.query!("INSERT INTO thread_store_migrations (version, name) VALUES (7, 'from_the_future')")
          const error = yield* Effect.flip(build(b.open()))
          assert.deepStrictEqual(
            { reason: error.reason, message: error.message },
            {
              reason: "storage",
              message:
                "cannot open the thread store: its schema is at version 7, newer than version 2, the newest this version of mcp-resources knows; upgrade mcp-resources, or use another data directory or database"
            }
          )
          const versions = yield* b.query!("SELECT version FROM thread_store_migrations ORDER BY version")
          assert.deepStrictEqual(
            versions.map((r) => Number(r.version)),
            [1, 2, 7]
          )
          assert.deepStrictEqual(yield* store.get("th"), Option.some(thread("th")))
        })
      )

      it.scoped("a corrupt record is a storage error naming the thread and seq, never dropped", () =>
        Effect.gen(function* () {
          const { backend: b, store } = yield* fresh
          yield* store.create(thread("th"))
          yield* appendAll(store, "th", [ev.turn("t1"), ev.turn("t2"), ev.turn("t3")])
          yield* b.query!(
            `UPDATE thread_records SET event = '{"_tag":"turnStarted"}' WHERE thread_id = 'th' AND seq = 2`
          )
          const loadFailure = yield* failure(store.load("th"))
          assert.strictEqual(loadFailure.reason, "storage")
          assert.match(loadFailure.message, /^corrupt record 2 of thread th: /)
          assert.match(loadFailure.message, /turnId/)
          const sinceFailure = yield* failure(store.since("th", 1))
          assert.match(sinceFailure.message, /^corrupt record 2 of thread th: /)
          // A page holding a corrupt record is never handed over.
          let handed = 0
          const pagesFailure = yield* failure(
            store.sincePages("th", 0, (page) =>
              Effect.sync(() => {
                handed += page.length
              })
            )
          )
          assert.strictEqual(pagesFailure.message, sinceFailure.message)
          assert.strictEqual(handed, 0)
          assert.deepStrictEqual(yield* store.since("th", 2), [{ seq: 3, event: ev.turn("t3") }])

          yield* b.query!(`UPDATE thread_records SET event = 'not json' WHERE thread_id = 'th' AND seq = 3`)
          const badJson = yield* failure(store.since("th", 2))
          assert.strictEqual(badJson.reason, "storage")
          assert.match(badJson.message, /^corrupt record 3 of thread th: /)
        })
      )
    })
  })
