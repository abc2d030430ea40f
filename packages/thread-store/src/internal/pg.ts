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
    const client = yield* PgClient.make({ url, connectTimeout: Duration.seconds(10) }).pipe(
      Effect.mapError(failed("cannot connect to the PostgreSQL thread store")),
      Effect.catchAllDefect((defect) =>
        Effect.fail(storage("cannot connect to the PostgreSQL thread store", describe(defect)))
      )
    )
    const store = yield* Effect.provideService(make, SqlClient.SqlClient, client)
    return { ...store, shared: true }
  })
