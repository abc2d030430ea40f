/**
 * The change path (`internal/changes.ts`): changes of one connection, from its notifications or from
 * any further source (armed with the connection's queue), are coalesced once, drop the cached answers they make stale, and are
 * published to every subscriber of the updates, only for the uris a subscription holds.
 */
import { assert, describe, it } from "@effect/vitest"
import { Chunk, Effect, Queue } from "effect"
import * as Cache from "../src/internal/cache.js"
import { type Armed, ChangeQueue, make, updatesOf } from "../src/internal/changes.js"
import { Background } from "../src/internal/onDemand.js"
import type { ResourceUpdate } from "../src/ResourceClient.js"

describe("ChangeQueue", () => {
  it("coalesces a flood into one batch per target and never drops a change", () => {
    const queue = new ChangeQueue(3)
    for (let i = 0; i < 1000; i++) queue.offer({ _tag: "updated", uri: `x://${i % 2}` })
    queue.offer({ _tag: "listChanged" })
    // a listener set while changes are pending is told at once, then of every offer
    let told = 0
    queue.listen(() => {
      told += 1
    })
    assert.strictEqual(told, 1)
    const batch = queue.poll()
    assert.deepStrictEqual(batch, { listChanged: true, uris: ["x://0", "x://1"], everything: false, received: 1001 })
    assert.strictEqual(queue.poll(), undefined)
    for (let i = 0; i < 5; i++) queue.offer({ _tag: "updated", uri: `y://${i}` })
    assert.strictEqual(told, 6)
    const overflow = queue.poll()
    assert.deepStrictEqual(overflow, { listChanged: false, uris: [], everything: true, received: 5 })
    queue.shutdown()
    queue.offer({ _tag: "listChanged" })
    assert.strictEqual(told, 6)
    assert.strictEqual(queue.poll(), undefined)
  })
})

describe("polled changes", () => {
  it("a polled change carries its digest and size to the update; a later push drops them; only pushes count as pushed", () => {
    const queue = new ChangeQueue()
    const polled = { digest: "d1", size: 7 }
    queue.offer({ _tag: "updated", uri: "x://a", polled })
    queue.offer({ _tag: "updated", uri: "x://b", polled: { digest: "d2", size: 1 } })
    queue.offer({ _tag: "updated", uri: "x://b" })
    const pushed = queue.takePushed()
    assert.isFalse(pushed("x://a"))
    assert.isTrue(pushed("x://b"))
    // taking forgets
    assert.isFalse(queue.takePushed()("x://b"))
    assert.deepStrictEqual(updatesOf("s", queue.poll()!, held(["x://a", "x://b"])), [
      { _tag: "updated", server: "s", uri: "x://a", digest: "d1", size: 7 },
      { _tag: "updated", server: "s", uri: "x://b" }
    ])
  })
})

/** A cache holding a read of each of `uris` and a resource list of server `s`. */
const filled = (uris: ReadonlyArray<string>) => {
  const cache = new Cache.ResultCache({ enabled: true, maxBytes: 1_000_000 })
  const put = (key: string, method: string, uri?: string) =>
    cache.put(key, key, {
      tags: { server: "s", generation: 1, method, ...(uri === undefined ? {} : { uri }) },
      ttlMs: 60_000,
      bytes: 10,
      now: 0
    })
  for (const uri of uris) put(uri, "resources/read", uri)
  put("list", "resources/list")
  return cache
}

/** Takes `n` updates, waiting at most a few seconds. */
const takeN = (updates: Queue.Dequeue<ResourceUpdate>, n: number) =>
  Effect.map(
    Effect.timeoutFail(Queue.takeBetween(updates, n, n), {
      duration: "5 seconds",
      onTimeout: () => new Error(`fewer than ${n} updates arrived`)
    }),
    Chunk.toReadonlyArray
  )

const held = (uris: ReadonlyArray<string>) => ({
  holds: (uri: string) => uris.includes(uri),
  uris: () => uris,
  onWatching: (listener: () => void) => {
    if (uris.length > 0) listener()
  }
})

describe("the change path", () => {
  it.scoped("a source's changes invalidate the cache and reach the subscribers like notifications do", () =>
    Effect.gen(function* () {
      const cache = filled(["x://a", "x://b", "x://c"])
      const path = yield* make(cache)
      const updates = yield* path.updates
      const background = new Background(yield* Effect.runtime<never>())
      yield* Effect.addFinalizer(() => background.stop)
      const queue = new ChangeQueue()
      // a source (as polling would be): armed once, it offers what it finds when the watched set says so
      let armed: Armed | undefined
      let watching = 0
      path.follow({ server: "s", queue, background, subscriptions: held(["x://a", "x://b"]) }, [
        (source) => {
          armed = source
          source.watched.onWatching(() => {
            watching += 1
          })
        }
      ])
      assert.strictEqual(watching, 1)
      assert.deepStrictEqual(armed?.watched.uris(), ["x://a", "x://b"])
      armed?.offer({ _tag: "updated", uri: "x://a" })
      assert.deepStrictEqual(yield* takeN(updates, 1), [{ _tag: "updated", server: "s", uri: "x://a" }])
      assert.isUndefined(cache.get("x://a", 1))
      assert.strictEqual(cache.get("x://b", 1), "x://b")

      // a notification (the gate offers to the queue) goes the same way; an update of a uri no
      // subscription holds drops the cached read and reaches nobody
      queue.offer({ _tag: "updated", uri: "x://c" })
      queue.offer({ _tag: "listChanged" })
      armed?.offer({ _tag: "updated", uri: "x://b" })
      const next = yield* takeN(updates, 3)
      assert.sameDeepMembers(
        [...next],
        [
          { _tag: "listChanged", server: "s", list: "resources" },
          { _tag: "listChanged", server: "s", list: "templates" },
          { _tag: "updated", server: "s", uri: "x://b" }
        ]
      )
      assert.isUndefined(cache.get("x://b", 1))
      assert.isUndefined(cache.get("x://c", 1))
      assert.isUndefined(cache.get("list", 1))
      assert.strictEqual(yield* Queue.size(updates), 0)
    })
  )

  it.scoped("a burst from every source is coalesced once: one update per resource", () =>
    Effect.gen(function* () {
      const cache = filled(["x://a"])
      const path = yield* make(cache)
      const updates = yield* path.updates
      const background = new Background(yield* Effect.runtime<never>())
      yield* Effect.addFinalizer(() => background.stop)
      const queue = new ChangeQueue()
      // offered before the path follows the queue: the whole burst is pending as one batch
      for (let i = 0; i < 1000; i++) queue.offer({ _tag: "updated", uri: "x://a" })
      path.follow({ server: "s", queue, background, subscriptions: held(["x://a"]) }, [
        ({ offer }) => offer({ _tag: "updated", uri: "x://a" })
      ])
      assert.deepStrictEqual(yield* takeN(updates, 1), [{ _tag: "updated", server: "s", uri: "x://a" }])
      // the source's change arrived within the first batch, or after it was taken: at most one more
      yield* Effect.yieldNow()
      assert.isAtMost(yield* Queue.size(updates), 1)
    })
  )
})
