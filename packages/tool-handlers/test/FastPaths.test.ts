/**
 * Every fast path of `src/internal/fastPaths.ts` against its plain version: the same exit and the
 * same order of effects, for `Effect.void` and any other first effect, and any outcome of the next.
 */
import { assert, describe, it } from "@effect/vitest"
import { Cause, Effect, Exit, FastCheck as fc } from "effect"
import { andThen, andThenSuspend } from "../src/internal/fastPaths.js"

type Outcome =
  | { readonly _tag: "succeed"; readonly value: unknown }
  | { readonly _tag: "fail"; readonly error: string }
  | { readonly _tag: "die"; readonly defect: string }

const outcome: fc.Arbitrary<Outcome> = fc.oneof(
  fc.anything().map((value) => ({ _tag: "succeed", value }) as const),
  fc.string().map((error) => ({ _tag: "fail", error }) as const),
  fc.string().map((defect) => ({ _tag: "die", defect }) as const)
)

/** The first effect: `Effect.void` itself, or one that logs and then succeeds, fails or dies. */
const first = fc.oneof(
  fc.constant<Outcome | "void">("void"),
  outcome.filter((o) => o._tag !== "fail")
)

const effectOf = (o: Outcome, label: string, log: Array<string>): Effect.Effect<unknown, string> =>
  Effect.suspend(() => {
    log.push(label)
    return o._tag === "succeed"
      ? Effect.succeed(o.value)
      : o._tag === "fail"
        ? Effect.fail(o.error)
        : Effect.die(o.defect)
  })

const firstOf = (o: Outcome | "void", log: Array<string>): Effect.Effect<void> =>
  o === "void" ? Effect.void : (effectOf(o, "first", log) as Effect.Effect<void>)

const shape = (exit: Exit.Exit<unknown, unknown>): unknown =>
  Exit.isSuccess(exit)
    ? { success: exit.value }
    : { failures: [...Cause.failures(exit.cause)], defects: [...Cause.defects(exit.cause)] }

const run = <A, E>(effect: Effect.Effect<A, E>) => Effect.runSync(Effect.exit(effect))

describe("fastPaths", () => {
  it("andThen is Effect.zipRight(effect, next)", () => {
    fc.assert(
      fc.property(first, outcome, (f, n) => {
        const once = (implementation: typeof andThen) => {
          const log: Array<string> = []
          const exit = run(implementation(firstOf(f, log), effectOf(n, "next", log)))
          return { exit: shape(exit), log }
        }
        assert.deepStrictEqual(
          once(andThen),
          once((effect, next) => Effect.zipRight(effect, next))
        )
      })
    )
  })

  it("andThenSuspend, built where it runs, is Effect.zipRight(effect, Effect.suspend(next))", () => {
    const plain = <A, E, R>(effect: Effect.Effect<void>, next: () => Effect.Effect<A, E, R>) =>
      Effect.zipRight(effect, Effect.suspend(next))
    fc.assert(
      fc.property(first, outcome, (f, n) => {
        const once = (implementation: typeof plain) => {
          const log: Array<string> = []
          // built inside the running fiber, as the lifecycle builds it (Effect.withFiberRuntime)
          const exit = run(
            Effect.suspend(() =>
              implementation(firstOf(f, log), () => {
                log.push("next built")
                return effectOf(n, "next", log)
              })
            )
          )
          return { exit: shape(exit), log }
        }
        assert.deepStrictEqual(once(andThenSuspend), once(plain))
      })
    )
  })
})
