import { assert, describe, it } from "@effect/vitest"
import { Context, Deferred, Effect, Layer, Queue } from "effect"
import { inject } from "vitest"
import { ThreadFeed, ThreadStore } from "../src/index.js"
import { build } from "./ThreadStoreSuite.js"
import { freshDatabase, pgQuery } from "./utils/pg.js"

const cluster = inject("pgCluster")
const clusterUrl = "url" in cluster ? cluster.url : undefined
if (clusterUrl === undefined && "skipped" in cluster) {
  console.warn(`PostgreSQL thread feed tests skipped: ${cluster.skipped}`)
}

const createdAt = "2026-01-01T00:00:00.000Z"

/** The next notice, or a failure naming what was awaited after 10 s. */
const next = (queue: Queue.Queue<ThreadFeed.Notice>, what: string) =>
  Queue.take(queue).pipe(
    Effect.timeoutFail({ duration: "10 seconds", onTimeout: () => new Error(`timed out waiting for ${what}`) })
  )

describe.skipIf(clusterUrl === undefined)("ThreadFeed on PostgreSQL", () => {
  it.scopedLive(
    "a notifying store's appends and removal reach another process's subscriber as ids, in order; a plain store sends none",
    () =>
      Effect.gen(function* () {
        const url = yield* freshDatabase(clusterUrl!)
        const notifying = yield* build(ThreadStore.layerPg({ url, notify: true }))
        const plain = yield* build(ThreadStore.layerPg({ url }))
        const feed = Context.get(yield* Layer.build(ThreadFeed.layerPg({ url })), ThreadFeed.ThreadFeed)
        const queue = yield* Queue.unbounded<ThreadFeed.Notice>()
        yield* feed.subscribe((notice) => Queue.offer(queue, notice), Effect.void)

        yield* notifying.create({ id: "th", createdAt, config: null })
        yield* notifying.append("th", 0, { _tag: "turnStarted", turnId: "t1" })
        // a plain store's append is not announced: the next notice is the notifying store's second
        yield* plain.append("th", 1, { _tag: "turnStarted", turnId: "t2" })
        yield* notifying.append("th", 2, { _tag: "threadRolledBack", numTurns: 1 })
        yield* notifying.remove("th")
        assert.deepStrictEqual(yield* next(queue, "seq 1"), { threadId: "th", seq: 1 })
        assert.deepStrictEqual(yield* next(queue, "seq 3"), { threadId: "th", seq: 3 })
        assert.deepStrictEqual(yield* next(queue, "the removal"), { threadId: "th", deleted: true })
        // a conflicting append stores nothing and announces nothing
        yield* notifying.create({ id: "other", createdAt, config: null })
        yield* notifying.append("other", 0, { _tag: "turnStarted", turnId: "t1" })
        const conflict = yield* Effect.flip(notifying.append("other", 0, { _tag: "turnStarted", turnId: "t1" }))
        assert.strictEqual(conflict.reason, "conflict")
        yield* notifying.append("other", 1, { _tag: "turnStarted", turnId: "t2" })
        assert.deepStrictEqual(yield* next(queue, "other seq 1"), { threadId: "other", seq: 1 })
        assert.deepStrictEqual(yield* next(queue, "other seq 2"), { threadId: "other", seq: 2 })
      }),
    30_000
  )

  it.scopedLive(
    "a subscription whose listening connection is lost listens again, tells the subscriber it missed notices, and receives the next ones",
    () =>
      Effect.gen(function* () {
        const url = yield* freshDatabase(clusterUrl!)
        const store = yield* build(ThreadStore.layerPg({ url, notify: true }))
        const feed = Context.get(
          yield* Layer.build(ThreadFeed.layerPg({ url, check: "300 millis" })),
          ThreadFeed.ThreadFeed
        )
        const queue = yield* Queue.unbounded<ThreadFeed.Notice>()
        const missed = yield* Deferred.make<void>()
        yield* feed.subscribe((notice) => Queue.offer(queue, notice), Deferred.succeed(missed, undefined))
        yield* store.create({ id: "th", createdAt, config: null })
        yield* store.append("th", 0, { _tag: "turnStarted", turnId: "t1" })
        assert.deepStrictEqual(yield* next(queue, "seq 1"), { threadId: "th", seq: 1 })

        const terminated = yield* pgQuery(
          url,
          "SELECT pg_terminate_backend(pid) AS done FROM pg_stat_activity WHERE datname = current_database() AND query LIKE 'LISTEN %'"
        )
        assert.deepStrictEqual(terminated, [{ done: true }])
        yield* Deferred.await(missed).pipe(
          Effect.timeoutFail({ duration: "20 seconds", onTimeout: () => new Error("timed out waiting for onMissed") })
        )
        yield* store.append("th", 1, { _tag: "turnStarted", turnId: "t2" })
        assert.deepStrictEqual(yield* next(queue, "seq 2 after listening again"), { threadId: "th", seq: 2 })
      }),
    60_000
  )
})
