/**
 * Every fast path of `src/internal/fastPaths.ts` against its plain version: the same exit and the
 * same observable order of effects, for any body outcome and any release.
 */
import { assert, describe, it } from "@effect/vitest"
import { Cause, Deferred, Effect, Exit, FastCheck as fc, Fiber } from "effect"
import { failCauseAfter, heldWith, succeedAfter } from "../src/internal/fastPaths.js"
import type { Hold } from "../src/internal/request.js"

type Outcome =
  | { readonly _tag: "succeed"; readonly value: number }
  | { readonly _tag: "fail"; readonly error: string }
  | { readonly _tag: "die"; readonly defect: string }
  | { readonly _tag: "interrupt" }

const outcome: fc.Arbitrary<Outcome> = fc.oneof(
  fc.integer().map((value) => ({ _tag: "succeed", value }) as const),
  fc.string().map((error) => ({ _tag: "fail", error }) as const),
  fc.string().map((defect) => ({ _tag: "die", defect }) as const),
  fc.constant({ _tag: "interrupt" } as const)
)

const bodyOf = (o: Outcome, log: Array<string>): Effect.Effect<number, string> =>
  Effect.suspend(() => {
    log.push("use")
    switch (o._tag) {
      case "succeed":
        return Effect.succeed(o.value)
      case "fail":
        return Effect.fail(o.error)
      case "die":
        return Effect.die(o.defect)
      case "interrupt":
        return Effect.interrupt
    }
  })

/** A release with nothing left to do is `Effect.void` itself; otherwise an effect that logs when it runs. */
const releaseOf = (rest: boolean, log: Array<string>): Effect.Effect<void> =>
  rest ? Effect.sync(() => log.push("rest")) : Effect.void

/** An exit as a comparable value: interruptions compare without their fiber ids. */
const shape = (exit: Exit.Exit<unknown, unknown>): unknown =>
  Exit.isSuccess(exit)
    ? { success: exit.value }
    : Cause.isInterruptedOnly(exit.cause)
      ? "interrupted"
      : { failures: [...Cause.failures(exit.cause)], defects: [...Cause.defects(exit.cause)] }

const run = <A, E>(effect: Effect.Effect<A, E>) => Effect.runSync(Effect.exit(effect))

describe("fastPaths", () => {
  it("failCauseAfter is Effect.zipRight(rest, Effect.failCause(cause))", () => {
    fc.assert(
      fc.property(outcome, fc.boolean(), (o, rest) => {
        const cause = o._tag === "fail" ? Cause.fail(o.error) : o._tag === "die" ? Cause.die(o.defect) : Cause.empty
        const fastLog: Array<string> = []
        const plainLog: Array<string> = []
        const fast = run(failCauseAfter(releaseOf(rest, fastLog), cause))
        const plain = run(Effect.zipRight(releaseOf(rest, plainLog), Effect.failCause(cause)))
        assert.deepStrictEqual(shape(fast), shape(plain))
        assert.deepStrictEqual(fastLog, plainLog)
      })
    )
  })

  it("succeedAfter is Effect.as(rest, value)", () => {
    fc.assert(
      fc.property(fc.anything(), fc.boolean(), (value, rest) => {
        const fastLog: Array<string> = []
        const plainLog: Array<string> = []
        const fast = run(succeedAfter(releaseOf(rest, fastLog), value))
        const plain = run(Effect.as(releaseOf(rest, plainLog), value))
        assert.deepStrictEqual(shape(fast), shape(plain))
        assert.deepStrictEqual(fastLog, plainLog)
      })
    )
  })

  it("heldWith is acquireUseRelease: open and acquire, use, abandon on failure, release", () => {
    const plainHeldWith = <S, A, E>(
      hold: Hold | undefined,
      open: () => S,
      use: (state: S) => Effect.Effect<A, E>,
      abandon: (state: S) => void
    ): Effect.Effect<A, E> =>
      Effect.acquireUseRelease(
        Effect.sync(() => {
          const state = open()
          hold?.acquire()
          return state
        }),
        use,
        (state, exit) => {
          if (Exit.isFailure(exit)) abandon(state)
          return hold === undefined ? Effect.void : hold.release()
        }
      )
    fc.assert(
      fc.property(outcome, fc.option(fc.boolean(), { nil: undefined }), (o, rest) => {
        const once = (implementation: typeof plainHeldWith) => {
          const log: Array<string> = []
          const hold: Hold | undefined =
            rest === undefined
              ? undefined
              : {
                  acquire: () => log.push("acquire"),
                  release: () => {
                    log.push("release")
                    return releaseOf(rest, log)
                  }
                }
          const exit = run(
            implementation(
              hold,
              () => {
                log.push("open")
                return "state"
              },
              (state) =>
                Effect.zipRight(
                  Effect.sync(() => log.push(`use ${state}`)),
                  bodyOf(o, log)
                ),
              (state) => log.push(`abandon ${state}`)
            )
          )
          return { exit: shape(exit), log }
        }
        assert.deepStrictEqual(once(heldWith), once(plainHeldWith))
      })
    )
  })

  it.effect("heldWith abandons the state and releases the hold once when the body is interrupted from outside", () =>
    Effect.gen(function* () {
      const log: Array<string> = []
      const hold: Hold = {
        acquire: () => log.push("acquire"),
        release: () => {
          log.push("release")
          return Effect.void
        }
      }
      const started = yield* Deferred.make<void>()
      const fiber = yield* Effect.fork(
        heldWith(
          hold,
          () => "request",
          () => Effect.zipRight(Deferred.succeed(started, undefined), Effect.never),
          (state) => log.push(`abandon ${state}`)
        )
      )
      yield* Deferred.await(started)
      const exit = yield* Fiber.interrupt(fiber)
      assert.isTrue(Exit.isInterrupted(exit))
      assert.deepStrictEqual(log, ["acquire", "abandon request", "release"])
    })
  )
})
