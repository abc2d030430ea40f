/**
 * The PostgreSQL driver of the thread store (`pg`), in its own module so that `ThreadStore` loads it
 * with `import()` only when a PostgreSQL store is built.
 */
import type { Reactivity } from "@effect/experimental/Reactivity"
import * as SqlClient from "@effect/sql/SqlClient"
import * as PgClient from "@effect/sql-pg/PgClient"
import { Duration, Effect, type Redacted, type Scope } from "effect"
import type { Service } from "./service.js"
import { describe, storage, type ThreadStoreError } from "./error.js"
import { failed, make } from "./sql.js"

/** Connects to PostgreSQL and builds the store over the pool. Messages never contain the url. */
export const makePg = (url: Redacted.Redacted): Effect.Effect<Service, ThreadStoreError, Scope.Scope | Reactivity> =>
  Effect.gen(function* () {
    const client = yield* connectPg(url, "cannot connect to the PostgreSQL thread store")
    const store = yield* Effect.provideService(make, SqlClient.SqlClient, client)
    return { ...store, shared: true }
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
