import { assert, describe, it } from "@effect/vitest"
import { Deferred, Effect, FiberId } from "effect"
import { Background, serially, Signal } from "../src/internal/onDemand.js"

/** Yields until `done()` holds (at most `limit` times: the forked runs need the scheduler, not the clock). */
const yieldUntil = (done: () => boolean, limit = 10_000) =>
  Effect.gen(function* () {
    for (let i = 0; i < limit && !done(); i++) yield* Effect.yieldNow()
  })

describe("work on demand", () => {
  it.effect("serially runs one at a time and coalesces the triggers of a run into one more run", () =>
    Effect.gen(function* () {
      const background = new Background(yield* Effect.runtime<never>())
      const gates: Array<Deferred.Deferred<void>> = []
      let runs = 0
      const trigger = serially(background, () =>
        Effect.suspend(() => {
          runs += 1
          const gate = Deferred.unsafeMake<void>(FiberId.none)
          gates.push(gate)
          return Deferred.await(gate)
        })
      )
      // a synchronous burst of triggers is one run, started once the burst yields
      trigger()
      trigger()
      trigger()
      assert.strictEqual(runs, 0)
      yield* yieldUntil(() => runs === 1)
      assert.strictEqual(runs, 1)
      // triggers during a run make exactly one more run after it
      trigger()
      trigger()
      yield* yieldUntil(() => false, 100)
      assert.strictEqual(runs, 1)
      yield* Deferred.succeed(gates[0]!, undefined)
      yield* yieldUntil(() => runs === 2)
      assert.strictEqual(runs, 2)
      yield* Deferred.succeed(gates[1]!, undefined)
      yield* yieldUntil(() => false, 100)
      assert.strictEqual(runs, 2)
      trigger()
      yield* yieldUntil(() => runs === 3)
      assert.strictEqual(runs, 3)
      // stopping interrupts the run under way, and nothing starts afterwards
      yield* background.stop
      trigger()
      assert.strictEqual(runs, 3)
      const refused = yield* Effect.either(
        Effect.promise(() => background.promise(Effect.succeed(1)).catch(() => "refused"))
      )
      assert.deepStrictEqual(refused._tag === "Right" ? refused.right : undefined, "refused")
    })
  )

  it.effect("a work that fails does not stop later triggers", () =>
    Effect.gen(function* () {
      const background = new Background(yield* Effect.runtime<never>())
      let runs = 0
      const trigger = serially(background, () =>
        Effect.suspend(() => {
          runs += 1
          return Effect.die(new Error("boom"))
        })
      )
      trigger()
      yield* yieldUntil(() => runs === 1)
      assert.strictEqual(runs, 1)
      trigger()
      yield* yieldUntil(() => runs === 2)
      assert.strictEqual(runs, 2)
      assert.strictEqual(yield* Effect.promise(() => background.promise(Effect.succeed(7))), 7)
    })
  )

  it("a signal fired before anyone listens reaches the first listener once", () => {
    const signal = new Signal()
    signal.fire()
    signal.fire()
    let heard = 0
    signal.listen(() => {
      heard += 1
    })
    assert.strictEqual(heard, 1)
    signal.fire()
    assert.strictEqual(heard, 2)
  })
})
