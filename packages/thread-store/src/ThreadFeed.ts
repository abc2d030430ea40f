/**
 * The thread feed: what every process sharing a PostgreSQL thread store appended or removed, as notices
 * of ids only (`{threadId, seq}`, `{threadId, deleted: true}`; PostgreSQL `LISTEN`/`NOTIFY`, whose
 * payloads are limited to 8,000 bytes), for the receiver to read the records from the store. A store
 * sends them when built with `notify` (`ThreadStore.layerPg`), in the append's own transaction: a
 * notice is delivered once its record is committed, in commit order, to every listening process.
 */
import * as Reactivity from "@effect/experimental/Reactivity"
import { Context, type Duration, Effect, Layer, Option, Redacted, Schema, type Scope } from "effect"
import * as Errors from "./internal/error.js"
import type { ThreadStoreError } from "./internal/error.js"
import * as Persistence from "./internal/persistence.js"

/** The PostgreSQL channel of the notices. */
export const channel = "mcp_resources_threads"

/** A record was appended (`seq`), or the thread was removed (`deleted`). */
export const Notice = Schema.Union(
  Schema.Struct({ threadId: Schema.String, seq: Schema.Number }),
  Schema.Struct({ threadId: Schema.String, deleted: Schema.Literal(true) })
)
/** A record was appended (`seq`), or the thread was removed (`deleted`). */
export type Notice = typeof Notice.Type

/** The feed's operations. */
export interface Service {
  /**
   * Runs `onNotice` for every notice from now on (this process's own too), one at a time, until the
   * scope closes; succeeds once the process listens, so that no record committed after it is missed.
   * When the listening connection is lost it listens again on a new one and then runs `onMissed`:
   * the notices in between are lost, so the subscriber reads what it follows from the store.
   */
  readonly subscribe: (
    onNotice: (notice: Notice) => Effect.Effect<void>,
    onMissed: Effect.Effect<void>
  ) => Effect.Effect<void, ThreadStoreError, Scope.Scope>
}

/** The ThreadFeed tag. Layer: `layerPg`, `layerFromConfig`. */
export class ThreadFeed extends Context.Tag("@mcp-resources/thread-store/ThreadFeed")<ThreadFeed, Service>() {}

const decodeNotice = Schema.decodeUnknownOption(Schema.parseJson(Notice))

const loadPg = Effect.tryPromise({
  try: () => import("./internal/pg.js"),
  catch: (cause) => Errors.storage("cannot load the PostgreSQL driver", Errors.describe(cause))
})

/** How often a subscription checks its listening connection, unless `layerPg` says otherwise. */
export const defaultCheck: Duration.DurationInput = "10 seconds"

/**
 * The notices of the PostgreSQL store at `url`, each subscription on a connection of its own, checked
 * every `check` (a notice of its own must come back within 5 s, else it listens again).
 */
export const layerPg = (options: {
  readonly url: string | Redacted.Redacted
  readonly check?: Duration.DurationInput | undefined
}): Layer.Layer<ThreadFeed> =>
  Layer.succeed(
    ThreadFeed,
    ThreadFeed.of({
      subscribe: (onNotice, onMissed) =>
        Effect.flatMap(loadPg, (driver) =>
          driver.listenPg(Redacted.isRedacted(options.url) ? options.url : Redacted.make(options.url), channel, {
            onNotice: (payload) =>
              Option.match(decodeNotice(payload), {
                onNone: () => Effect.logWarning("a thread notice that is not one was ignored"),
                onSome: onNotice
              }),
            onRelisten: onMissed,
            check: options.check ?? defaultCheck
          })
        ).pipe(Effect.provide(Reactivity.layer))
    })
  )

/** The feed of the `[persistence]` PostgreSQL store (`url`, else `DATABASE_URL`). */
export const layerFromConfig = (options: {
  readonly url?: string | undefined
}): Layer.Layer<ThreadFeed, ThreadStoreError> =>
  Layer.unwrapEffect(
    Effect.map(Persistence.pgUrl(options, "cannot listen to the thread store"), (url) => layerPg({ url }))
  )
