/**
 * The PostgreSQL driver of the thread store (`pg`), in its own module so that `ThreadStore` loads it
 * with `import()` only when a PostgreSQL store is built.
 */
import type { Reactivity } from "@effect/experimental/Reactivity"
import * as SqlClient from "@effect/sql/SqlClient"
import * as PgClient from "@effect/sql-pg/PgClient"
import { Deferred, Duration, Effect, type Redacted, Schedule, type Scope, Stream } from "effect"
import type { Service } from "./service.js"
import { describe, storage, type ThreadStoreError } from "./error.js"
import { failed, makeWith } from "./sql.js"

/**
 * Connects to PostgreSQL and builds the store over the pool; with `notify`, its appends and removals
 * send notices on that channel (sql.ts `makeWith`). Messages never contain the url.
 */
export const makePg = (
  url: Redacted.Redacted,
  options: { readonly notify?: string | undefined } = {}
): Effect.Effect<Service, ThreadStoreError, Scope.Scope | Reactivity> =>
  Effect.gen(function* () {
    const client = yield* connectPg(url, "cannot connect to the PostgreSQL thread store")
    const store = yield* Effect.provideService(makeWith(options), SqlClient.SqlClient, client)
    return { ...store, shared: true }
  })

/** How a feed subscription listens (ThreadFeed.ts `layerPg`). */
export interface ListenOptions {
  /** Runs for each notice, one at a time. */
  readonly onNotice: (payload: string) => Effect.Effect<void>
  /** Runs once listening again after the listening connection was lost (the notices in between are lost). */
  readonly onRelisten: Effect.Effect<void>
  /** How often the listening connection is checked (a notice of its own must come back). */
  readonly check: Duration.DurationInput
}

/** The payloads this process sends itself to check that it listens; they are no thread's notices. */
const isProbe = (payload: string): boolean => payload.startsWith('{"listening":')

/**
 * Listens to `channel` on a connection of its own, in a fiber of the scope, and returns once this
 * process listens (its own notice came back). Every `check`, a notice of its own must come back
 * within 5 s; otherwise the connection is dropped (sql-pg 0.53 swallows the listening connection's
 * errors, so a lost connection shows only this way), a new one listens, and `onRelisten` runs.
 */
export const listenPg = (
  url: Redacted.Redacted,
  channel: string,
  options: ListenOptions
): Effect.Effect<void, ThreadStoreError, Scope.Scope | Reactivity> =>
  Effect.gen(function* () {
    const context = "cannot listen to the PostgreSQL thread store"
    /** One listening connection until it fails a check; `ready` runs once it listens. */
    const session = (ready: Effect.Effect<void>) =>
      Effect.scoped(
        Effect.gen(function* () {
          const client = yield* connectPg(url, context)
          let waiting: { readonly token: string; readonly heard: Deferred.Deferred<void> } | undefined
          yield* client.listen(channel).pipe(
            Stream.runForEach((payload) =>
              !isProbe(payload)
                ? options.onNotice(payload)
                : payload === waiting?.token
                  ? Deferred.succeed(waiting.heard, undefined)
                  : Effect.void
            ),
            Effect.catchAll((error) => Effect.logWarning(`${context}: ${failed(context)(error).message}`)),
            Effect.forkScoped
          )
          // (sql-pg 0.53's `notify` sends `NOTIFY channel, $1`, which PostgreSQL refuses: pg_notify takes parameters)
          const probe = (within: Duration.DurationInput) =>
            Effect.gen(function* () {
              const token = JSON.stringify({ listening: crypto.randomUUID() })
              const heard = yield* Deferred.make<void>()
              waiting = { token, heard }
              yield* client`SELECT pg_notify(${channel}, ${token})`.pipe(Effect.mapError(failed(context)))
              yield* Deferred.await(heard).pipe(
                Effect.timeoutFail({
                  duration: within,
                  onTimeout: () => storage(context, "its own notice did not come back")
                })
              )
            })
          // LISTEN runs once the stream starts: probe until a notice comes back (at most 10 s)
          yield* probe("200 millis").pipe(Effect.retry(Schedule.recurs(50)))
          yield* ready
          return yield* Effect.forever(Effect.zipRight(Effect.sleep(options.check), probe("5 seconds")))
        })
      )
    const first = yield* Deferred.make<void, ThreadStoreError>()
    const again: Effect.Effect<never, never, Reactivity> = session(options.onRelisten).pipe(
      Effect.catchAll((error) => Effect.logWarning(`listening again: ${error.message}`)),
      Effect.zipRight(Effect.sleep("1 second")),
      Effect.zipRight(Effect.suspend(() => again))
    )
    yield* session(Deferred.succeed(first, undefined)).pipe(
      Effect.catchAll((error) =>
        Effect.flatMap(Deferred.isDone(first), (listened) =>
          listened
            ? Effect.zipRight(Effect.logWarning(`listening again: ${error.message}`), again)
            : Deferred.fail(first, error)
        )
      ),
      Effect.forkScoped
    )
    yield* Deferred.await(first)
  })

/**
 * Sends `payload` on `channel` through `client` (sql-pg 0.53's `notify` sends `NOTIFY channel, $1`,
 * which PostgreSQL refuses: `pg_notify` takes parameters).
 */
export const notifyPg = (
  client: PgClient.PgClient,
  channel: string,
  payload: string,
  context: string
): Effect.Effect<void, ThreadStoreError> =>
  Effect.asVoid(client`SELECT pg_notify(${channel}, ${payload})`.pipe(Effect.mapError(failed(context))))

/** A pool on PostgreSQL, closed with the scope; a failure is a storage error with `context` (never the url). */
export const connectPg = (
  url: Redacted.Redacted,
  context: string
): Effect.Effect<PgClient.PgClient, ThreadStoreError, Scope.Scope | Reactivity> =>
  PgClient.make({ url, connectTimeout: Duration.seconds(10) }).pipe(
    Effect.mapError(failed(context)),
    Effect.catchAllDefect((defect) => Effect.fail(storage(context, describe(defect))))
  )
