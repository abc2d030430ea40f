/**
 * The resource client's fast paths, all of them: each does exactly what the plain version named in its
 * comment does (`test/FastPaths.test.ts` holds it to that, property by property) in fewer runtime
 * steps, and names the BENCHMARKS.md row that measured the gain. Where the bench shows no gain, the
 * plain version is used instead and the fast path is removed from here.
 */
import { type Cause, Effect } from "effect"
import type { Hold } from "./request.js"

/**
 * `Effect.zipRight(rest, Effect.failCause(cause))`, without the step when `rest` is `Effect.void`
 * (a hold released with nothing left to do, which is every release but a set's last).
 * BENCHMARKS.md, "Reading the results", second round, "Fewer runtime steps per request" (scenario 1,
 * tool overhead 1 KiB; scenario 4, app-server reads, 64 in flight).
 */
export const failCauseAfter = <E>(rest: Effect.Effect<void>, cause: Cause.Cause<E>): Effect.Effect<never, E> =>
  rest === Effect.void ? Effect.failCause(cause) : Effect.zipRight(rest, Effect.failCause(cause))

/**
 * `Effect.as(rest, value)`, without the step when `rest` is `Effect.void`.
 * BENCHMARKS.md: the row of {@link failCauseAfter}.
 */
export const succeedAfter = <A>(rest: Effect.Effect<void>, value: A): Effect.Effect<A> =>
  rest === Effect.void ? Effect.succeed(value) : Effect.as(rest, value)

/**
 * `use(state)` while `hold` (when given) is held: `state = open()`, then the hold is taken, `use` runs
 * interruptibly, and on every exit the hold is released uninterruptibly, after `abandon(state)` when
 * `use` failed or was interrupted. The plain version is
 * `Effect.acquireUseRelease(Effect.sync(open + acquire), use, (state, exit) => abandon on failure, then release)`;
 * this is one mask and one match, with the release's step skipped when it has nothing left to do
 * ({@link failCauseAfter}, {@link succeedAfter}). A request on a set holds the set in the request's own
 * mask and match through it (`request.ts`), and every other operation of a set (`connectionSet.ts`).
 * A release that dies replaces the body's failure here, where the plain version keeps both (a
 * `Hold`'s release never fails).
 * BENCHMARKS.md, "Reading the results", second round, "Fewer runtime steps per request": "a read on a
 * ready server holds its connection set inside the request's own mask and match" (scenario 1, tool
 * overhead 1 KiB, read_mcp_resource; scenario 4, app-server reads, 64 in flight).
 */
export const heldWith = <S, A, E>(
  hold: Hold | undefined,
  open: () => S,
  use: (state: S) => Effect.Effect<A, E>,
  abandon: (state: S) => void
): Effect.Effect<A, E> =>
  Effect.uninterruptibleMask((restore) => {
    const state = open()
    hold?.acquire()
    return Effect.matchCauseEffect(restore(use(state)), {
      // interrupted (a timeout, the caller) or failed: abandon the state; a settled request is left alone
      onFailure: (cause) => {
        abandon(state)
        return failCauseAfter(hold === undefined ? Effect.void : hold.release(), cause)
      },
      onSuccess: (value) => succeedAfter(hold === undefined ? Effect.void : hold.release(), value)
    })
  })
