/** The request path's one timer (`timerOn`) and the bound built on it (`timeoutOn`), on a TestClock and on the live clock. */
import { assert, describe, it } from "@effect/vitest"
import { Clock, Effect, Either, TestClock } from "effect"
import { timeoutOn, timerOn } from "../src/internal/request.js"

describe("timerOn", () => {
  it.effect("fires once the time passed on the current clock, never when cancelled before", () =>
    Effect.gen(function* () {
      const clock = yield* Effect.clock
      const fired: Array<string> = []
      timerOn(clock, 1000, () => fired.push("kept"))
      const cancel = timerOn(clock, 1000, () => fired.push("cancelled"))
      yield* TestClock.adjust("999 millis")
      assert.deepStrictEqual(fired, [])
      cancel()
      yield* TestClock.adjust("1 millis")
      yield* Effect.yieldNow()
      assert.deepStrictEqual(fired, ["kept"])
    })
  )

  it.live("on the live clock it is a timer of its own that fires, and a cancelled one does not", () =>
    Effect.gen(function* () {
      const clock = yield* Effect.clock
      const fired: Array<string> = []
      const cancel = timerOn(clock, 5, () => fired.push("cancelled"))
      cancel()
      yield* Effect.async<void>((resume) => {
        timerOn(clock, 10, () => {
          fired.push("kept")
          resume(Effect.void)
        })
      })
      // Node runs timers in the order they fall due: had the 5 ms one not been cancelled, it would
      // have fired before the 10 ms one resumed us
      assert.deepStrictEqual(fired, ["kept"])
    })
  )
})

describe("timeoutOn", () => {
  it.effect("fails with the timeout when the time passes first, else gives the effect's value", () =>
    Effect.gen(function* () {
      const slow = yield* Effect.fork(Effect.either(timeoutOn(Effect.never, 500, () => "timed out")))
      const quick = yield* Effect.fork(timeoutOn(Effect.as(Effect.sleep("100 millis"), "done"), 500, () => "late"))
      yield* TestClock.adjust("500 millis")
      assert.deepStrictEqual(yield* slow.await.pipe(Effect.flatten), Either.left("timed out"))
      assert.strictEqual(yield* quick.await.pipe(Effect.flatten), "done")
      assert.strictEqual(yield* Clock.currentTimeMillis, 500)
    })
  )
})
