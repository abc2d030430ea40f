import { assert, describe, it } from "@effect/vitest"
import { Deferred, Effect, Fiber } from "effect"
import { free, reached, ThreadQueues, withStartPoint } from "../src/internal/threadQueue.js"

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

  it.effect("a call lets the next request go once its body reaches its start point, not before", () =>
    Effect.gen(function* () {
      const queues = new ThreadQueues()
      const order: Array<string> = []
      const first = queues.enter("t", "call")
      const second = queues.enter("t", "call")
      const recorded = yield* Deferred.make<void>()
      const finish = yield* Deferred.make<void>()
      yield* first.ready
      const runFirst = yield* Effect.fork(
        withStartPoint(
          first,
          Deferred.await(recorded).pipe(
            Effect.zipRight(reached),
            Effect.zipRight(Deferred.await(finish)),
            Effect.zipRight(Effect.sync(() => order.push("first ended")))
          )
        ).pipe(Effect.ensuring(first.done))
      )
      const runSecond = yield* Effect.fork(
        second.ready.pipe(
          Effect.zipRight(Effect.sync(() => order.push("second started"))),
          Effect.ensuring(second.done)
        )
      )
      yield* Effect.yieldNow()
      assert.deepStrictEqual(order, [])
      yield* Deferred.succeed(recorded, undefined)
      yield* Fiber.join(runSecond)
      assert.deepStrictEqual(order, ["second started"])
      yield* Deferred.succeed(finish, undefined)
      yield* Fiber.join(runFirst)
      assert.deepStrictEqual(order, ["second started", "first ended"])
    })
  )

  it.effect("outside an ordered request, reaching a start point does nothing", () =>
    Effect.gen(function* () {
      yield* reached
      const queues = new ThreadQueues()
      const exclusive = queues.enter("t", "exclusive")
      const after = queues.enter("t", "call")
      yield* exclusive.ready
      // an exclusive request's start point releases nothing: the next waits for its end
      yield* withStartPoint(exclusive, reached)
      const waiting = yield* Effect.fork(after.ready)
      yield* Effect.yieldNow()
      assert.isNull(waiting.unsafePoll())
      yield* exclusive.done
      yield* Fiber.join(waiting)
      yield* after.done
    })
  )
})
