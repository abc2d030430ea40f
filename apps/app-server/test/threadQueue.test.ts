import { assert, describe, it } from "@effect/vitest"
import { Deferred, Effect, Fiber } from "effect"
import { free, ThreadQueues } from "../src/internal/threadQueue.js"

describe("per-thread queues", () => {
  it.effect("a queue exists only while a request of its thread is in flight", () =>
    Effect.gen(function* () {
      const queues = new ThreadQueues()
      assert.strictEqual(queues.enter(undefined, "exclusive"), free)
      assert.strictEqual(queues.enter("t", "none"), free)
      assert.strictEqual(queues.size, 0)
      const first = queues.enter("unknown-1", "exclusive")
      const second = queues.enter("unknown-2", "call")
      assert.strictEqual(queues.size, 2)
      yield* first.ready
      yield* first.done
      assert.strictEqual(queues.size, 1)
      yield* second.ready
      yield* second.done
      assert.strictEqual(queues.size, 0)
    })
  )

  it.effect("ordering holds across a queue dropped and created again", () =>
    Effect.gen(function* () {
      const queues = new ThreadQueues()
      const order: Array<string> = []
      const a = queues.enter("t", "exclusive")
      yield* a.ready
      yield* a.done
      // The old queue is gone; the next requests still wait for each other in arrival order.
      const b = queues.enter("t", "exclusive")
      const c = queues.enter("t", "call")
      const d = queues.enter("t", "exclusive")
      const gate = yield* Deferred.make<void>()
      const runB = yield* Effect.fork(
        b.ready.pipe(
          Effect.zipRight(Deferred.await(gate)),
          Effect.zipRight(Effect.sync(() => order.push("b"))),
          Effect.ensuring(b.done)
        )
      )
      const runC = yield* Effect.fork(
        c.ready.pipe(Effect.zipRight(Effect.sync(() => order.push("c"))), Effect.ensuring(c.done))
      )
      const runD = yield* Effect.fork(
        d.ready.pipe(Effect.zipRight(Effect.sync(() => order.push("d"))), Effect.ensuring(d.done))
      )
      yield* Effect.yieldNow()
      assert.deepStrictEqual(order, [])
      yield* Deferred.succeed(gate, undefined)
      yield* Fiber.joinAll([runB, runC, runD])
      assert.deepStrictEqual(order, ["b", "c", "d"])
      assert.strictEqual(queues.size, 0)
    })
  )
})
