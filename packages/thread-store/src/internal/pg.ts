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

/**
 * The notices of `channel` (ThreadFeed.ts) on a connection of its own: `onNotice` runs for each, one
 * at a time, in a fiber of the scope. Returns once this process listens (its own notice came back).
 */
export const listenPg = (
  url: Redacted.Redacted,
  channel: string,
  onNotice: (payload: string) => Effect.Effect<void>
): Effect.Effect<void, ThreadStoreError, Scope.Scope | Reactivity> =>
  Effect.gen(function* () {
    const context = "cannot listen to the PostgreSQL thread store"
    const client = yield* connectPg(url, context)
    const ready = yield* Deferred.make<void>()
    const token = JSON.stringify({ listening: crypto.randomUUID() })
    yield* client.listen(channel).pipe(
      Stream.runForEach((payload) => (payload === token ? Deferred.succeed(ready, undefined) : onNotice(payload))),
      Effect.catchAll((error) => Effect.logWarning(`${context}: ${failed(context)(error).message}`)),
      Effect.forkScoped
    )
    // LISTEN runs when the stream starts: notify until the first notice comes back (at most 10 s)
    // (sql-pg 0.53's `notify` sends `NOTIFY channel, $1`, which PostgreSQL refuses: pg_notify takes parameters)
    yield* client`SELECT pg_notify(${channel}, ${token})`.pipe(
      Effect.zipRight(Deferred.await(ready).pipe(Effect.timeout("200 millis"))),
      Effect.retry(Schedule.recurs(50)),
      Effect.mapError((error) =>
        error._tag === "SqlError" ? failed(context)(error) : storage(context, "LISTEN did not start within 10 s")
      )
    )
  })

/** A pool on PostgreSQL, closed with the scope; a failure is a storage error with `context` (never the url). */
export const connectPg = (
  url: Redacted.Redacted,
  context: string
): Effect.Effect<PgClient.PgClient, ThreadStoreError, Scope.Scope | Reactivity> =>
  PgClient.make({ url, connectTimeout: Duration.seconds(10) }).pipe(
    Effect.mapError(failed(context)),
    Effect.catchAllDefect((defect) => Effect.fail(storage(context, describe(defect))))
  )
