/**
 * The tool handlers' fast paths, all of them: each does exactly what the plain version named in its
 * comment does (`test/FastPaths.test.ts` holds it to that) in fewer runtime steps, and names the
 * BENCHMARKS.md row that measured the gain. Where the bench shows no gain, the plain version is used
 * instead and the fast path is removed from here.
 */
import { Effect } from "effect"

/**
 * `Effect.zipRight(effect, next)`, without the step when `effect` is `Effect.void` (a lifecycle sink
 * that records nothing). BENCHMARKS.md, "Reading the results", first round, "Read path (1, 3)"
 * (row "1. tool overhead 1 KiB | read_mcp_resource").
 */
export const andThen = <A, E, E1 = never>(
  effect: Effect.Effect<void, E1>,
  next: Effect.Effect<A, E>
): Effect.Effect<A, E | E1> => (effect === Effect.void ? next : Effect.zipRight(effect, next))

/**
 * `Effect.zipRight(effect, Effect.suspend(next))`, without the two steps when `effect` is
 * `Effect.void`: `next` is then called at once (so it must be called where the effect runs, as inside
 * `Effect.withFiberRuntime`). BENCHMARKS.md: the row of {@link andThen}.
 */
export const andThenSuspend = <A, E, R, E1 = never>(
  effect: Effect.Effect<void, E1>,
  next: () => Effect.Effect<A, E, R>
): Effect.Effect<A, E | E1, R> => (effect === Effect.void ? next() : Effect.zipRight(effect, Effect.suspend(next)))
