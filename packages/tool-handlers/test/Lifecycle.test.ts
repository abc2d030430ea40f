import { assert, describe, it } from "@effect/vitest"
import { Effect, Fiber, Queue, TestClock } from "effect"
import { LifecycleSink } from "../src/index.js"
import * as Lifecycle from "../src/internal/lifecycle.js"

const invocation: Lifecycle.Invocation = { callId: "c-1", server: "srv", tool: "t", arguments: null }
const done: Lifecycle.Outcome = {
  status: "completed",
  result: { content: [{ type: "text", text: "ok" }], isError: false },
  error: null,
  output: "ok",
  success: true
}

describe("lifecycle runner (resource-tools.md 9)", () => {
  it.effect(
    "a sink that cannot record the started item ends the call with its typed failure, the operation not run",
    () =>
      Effect.gen(function* () {
        let ran = false
        const error = yield* Lifecycle.run(
          invocation,
          Effect.sync(() => {
            ran = true
            return done
          })
        ).pipe(
          Effect.provide(
            LifecycleSink.layerCallback(() =>
              Effect.fail(new LifecycleSink.EmitError({ message: "store is read-only" }))
            )
          ),
          Effect.flip
        )
        assert.deepStrictEqual(error, new LifecycleSink.EmitError({ message: "store is read-only" }))
        assert.isFalse(ran)
      })
  )

  it.effect("durationMs is the whole milliseconds elapsed on the Clock, rounded down", () =>
    Effect.gen(function* () {
      const fiber = yield* Effect.fork(
        Effect.zip(
          Lifecycle.run(invocation, Effect.as(Effect.sleep("1500.9 millis"), done)),
          LifecycleSink.recorded
        ).pipe(Effect.provide(LifecycleSink.layerRecorder))
      )
      yield* TestClock.adjust("1501 millis")
      const [output, events] = yield* Fiber.join(fiber)
      assert.deepStrictEqual(output, { output: "ok", success: true })
      assert.deepStrictEqual(
        events.map((e) => [e.phase, e.item.durationMs]),
        [
          ["started", null],
          ["completed", 1500]
        ]
      )
    })
  )

  it.effect("the completed item reports the elapsed time and the outcome", () =>
    Effect.gen(function* () {
      const queue = yield* Queue.unbounded<LifecycleSink.LifecycleEvent>()
      const fiber = yield* Effect.fork(
        Lifecycle.run(invocation, Effect.as(Effect.sleep("2750 millis"), done)).pipe(
          Effect.provide(LifecycleSink.layerQueue(queue))
        )
      )
      yield* TestClock.adjust("2750 millis")
      yield* Fiber.join(fiber)
      const [started, completed] = yield* Queue.takeAll(queue)
      assert.deepStrictEqual(started!.item.durationMs, null)
      assert.deepStrictEqual(completed!.phase, "completed")
      assert.deepStrictEqual(completed!.item.durationMs, 2750)
      assert.deepStrictEqual(completed!.item.result, done.result)
    })
  )

  it.effect("an interrupted operation completes its item as failed with message cancelled", () =>
    Effect.gen(function* () {
      const seen: Array<LifecycleSink.LifecycleEvent> = []
      const fiber = yield* Effect.fork(
        Lifecycle.run(invocation, Effect.never).pipe(
          Effect.provide(LifecycleSink.layerCallback((e) => void seen.push(e)))
        )
      )
      yield* TestClock.adjust("20 millis")
      yield* Fiber.interrupt(fiber)
      assert.deepStrictEqual(
        seen.map((e) => [e.phase, e.item.status, e.item.error, e.item.durationMs]),
        [
          ["started", "inProgress", null, null],
          ["completed", "failed", { message: "cancelled" }, 20]
        ]
      )
    })
  )

  it.effect("a callback sink may return an effect, which runs before the call continues", () =>
    Effect.gen(function* () {
      const seen: Array<string> = []
      yield* Lifecycle.run(invocation, Effect.succeed(done)).pipe(
        Effect.provide(LifecycleSink.layerCallback((e) => Effect.sync(() => void seen.push(e.phase))))
      )
      assert.deepStrictEqual(seen, ["started", "completed"])
    })
  )

  it.effect("the noop sink drops events and the call still returns its output", () =>
    Effect.gen(function* () {
      const output = yield* Lifecycle.run(invocation, Effect.succeed(Lifecycle.failure("bad"))).pipe(
        Effect.provide(LifecycleSink.layerNoop)
      )
      assert.deepStrictEqual(output, { output: "bad", success: false })
    })
  )
})
