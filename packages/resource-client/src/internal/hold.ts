/** What a request holds while it runs, shared by `request.ts` and `fastPaths.ts` (it imports nothing back). */
import type { Effect } from "effect"

/**
 * A hold on what a request runs in (a connection set): taken when the request starts and given back
 * exactly once when it ends, whatever the end; `release` returns what remains to do.
 */
export interface Hold {
  readonly acquire: () => void
  readonly release: () => Effect.Effect<void>
}
