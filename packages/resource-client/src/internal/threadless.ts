/**
 * Threadless connections: one throw-away connection per call, outside any set, bounded by a cap on
 * how many are open at once. A call waits for a free permit for at most `waitMillis`, then is refused
 * with a message naming the cap, so that a burst of reads never spawns a child per read.
 */
import { Errors, Messages } from "@mcp-resources/protocol"
import { Effect, Scope } from "effect"
import type { ServerConnection } from "./types.js"
import type { ServerEntry } from "../ServerEntry.js"
import { attemptInEra, open, type TransportFactory } from "./connection.js"
import * as Sdk from "./sdk.js"
import { millis } from "./server.js"
import { serverConnection } from "./resourceRequests.js"

/** The cap on threadless connections. */
export interface Limit {
  /** One permit per open connection. */
  readonly permits: Effect.Semaphore
  /** The number of permits (named in the refusal). */
  readonly cap: number
  /** How long a call waits for a permit. */
  readonly waitMillis: number
}

/** Opens one connection to `entry` under the cap, runs `use` on it, and always closes it. */
export const withConnection =
  (entry: ServerEntry, transports: TransportFactory, limit: Limit) =>
  <A, E, R>(
    use: (connection: ServerConnection) => Effect.Effect<A, E, R>
  ): Effect.Effect<A, E | Errors.ResourceFailure, R> => {
    const startupMillis = millis(entry.startupTimeoutSec)
    const attempt = (target: ServerEntry) =>
      open(target, { timeoutMillis: startupMillis, transports }).pipe(
        Effect.timeoutFail({
          duration: startupMillis,
          onTimeout: () =>
            new Errors.TransportError({ kind: "startup", message: Messages.startupTimedOut(startupMillis) })
        })
      )
    // interruptible inside acquireUseRelease's uninterruptible acquire, so that the wait can time out
    const permit = Effect.interruptible(limit.permits.take(1)).pipe(
      Effect.timeoutFail({
        duration: limit.waitMillis,
        onTimeout: () =>
          new Errors.TransportError({
            kind: "unavailable",
            message: Messages.failedToGetClient(Messages.threadlessLimit(limit.cap, limit.waitMillis))
          })
      })
    )
    return Effect.acquireUseRelease(
      permit,
      () =>
        Effect.acquireUseRelease(
          Scope.make(),
          (scope) =>
            // the SDK is loaded (once per process) before the startup timeout starts counting
            Effect.zipRight(
              Sdk.load,
              // each attempt in a scope of its own, closed when it fails; a modern-only server slow to
              // start is started again in its era
              attemptInEra(entry, scope, attempt).pipe(
                Effect.map(([connection]) => connection),
                Effect.mapError(
                  (error) =>
                    new Errors.TransportError({
                      kind: "unavailable",
                      message: Messages.failedToGetClient(error.message)
                    })
                ),
                Effect.flatMap((connection) => use(serverConnection(connection, entry)))
              )
            ),
          (scope, exit) => Scope.close(scope, exit)
        ),
      () => limit.permits.release(1)
    )
  }
