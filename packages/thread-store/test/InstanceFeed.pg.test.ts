/**
 * The instance feed on PostgreSQL: an instance's announcement reaches every listening instance (its
 * own subscriber too, which knows itself by the instance id), in the order sent.
 */
import { assert, describe, it } from "@effect/vitest"
import { Context, Effect, Layer, Queue } from "effect"
import { inject } from "vitest"
import { InstanceFeed } from "../src/index.js"
import { freshDatabase } from "./utils/pg.js"

const cluster = inject("pgCluster")
const clusterUrl = "url" in cluster ? cluster.url : undefined
if (clusterUrl === undefined && "skipped" in cluster) {
  console.warn(`PostgreSQL instance feed tests skipped: ${cluster.skipped}`)
}

/** The next notice, or a failure naming what was awaited after 10 s. */
const next = <A>(queue: Queue.Queue<A>, what: string) =>
  Queue.take(queue).pipe(
    Effect.timeoutFail({ duration: "10 seconds", onTimeout: () => new Error(`timed out waiting for ${what}`) })
  )

describe.skipIf(clusterUrl === undefined)("InstanceFeed on PostgreSQL", () => {
  it.scopedLive(
    "an announcement reaches every listening instance (the sender too), in order",
    () =>
      Effect.gen(function* () {
        const url = yield* freshDatabase(clusterUrl!)
        const feedOf = Effect.map(Layer.build(InstanceFeed.layerPg({ url })), (ctx) =>
          Context.get(ctx, InstanceFeed.InstanceFeed)
        )
        const [a, b] = yield* Effect.all([feedOf, feedOf])
        const onA = yield* Queue.unbounded<InstanceFeed.Notice>()
        const onB = yield* Queue.unbounded<InstanceFeed.Notice>()
        yield* a.subscribe((notice) => Queue.offer(onA, notice), Effect.void)
        yield* b.subscribe((notice) => Queue.offer(onB, notice), Effect.void)
        yield* a.announce({ kind: "configReloaded", instance: "a" })
        yield* b.announce({ kind: "configReloaded", instance: "b" })
        yield* b.announce({ kind: "loginEnded", instance: "b", server: "docs" })
        for (const queue of [onA, onB]) {
          assert.deepStrictEqual(yield* next(queue, "a's notice"), { kind: "configReloaded", instance: "a" })
          assert.deepStrictEqual(yield* next(queue, "b's notice"), { kind: "configReloaded", instance: "b" })
          assert.deepStrictEqual(yield* next(queue, "b's login notice"), {
            kind: "loginEnded",
            instance: "b",
            server: "docs"
          })
        }
        // nothing else came: the thread's append was not on this channel
        assert.strictEqual(yield* Queue.size(onA), 0)
        assert.strictEqual(yield* Queue.size(onB), 0)
      }),
    30_000
  )
})
