/**
 * The store's transactions. `SqlClient.withTransaction` turns a failed `COMMIT` or `ROLLBACK` into a
 * defect whose message is only `Failed to execute statement`, and that defect replaces the failure
 * that caused the rollback. SQLite rolls a transaction back by itself on some errors (`SQLITE_FULL`,
 * `SQLITE_IOERR`, `SQLITE_BUSY`, `SQLITE_NOMEM`; sqlite.org/lang_transaction.html), after which its
 * `ROLLBACK` fails with "no transaction is active": a full disk became that defect instead of the
 * `SQLITE_FULL` failure a caller can report and retry. Here a failed statement, `COMMIT` included,
 * stays the operation's typed failure with its driver error as the cause.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import type { Connection } from "@effect/sql/SqlConnection"
import type { SqlError } from "@effect/sql/SqlError"
import { Effect, Exit } from "effect"

/**
 * Runs `body` in one transaction on one reserved connection: `BEGIN`, then `COMMIT` when it succeeds,
 * `ROLLBACK` when it (or the `COMMIT`) fails, and that failure is the result. A `ROLLBACK` that fails
 * on SQLite is ignored (the transaction is already gone, see the module comment); on another database
 * it is a defect, as in `withTransaction`. Not for nesting: the store never nests transactions.
 */
export const makeTransaction = (sql: SqlClient.SqlClient) => {
  const rollback = (connection: Connection): Effect.Effect<void> => {
    const statement = connection.executeUnprepared("ROLLBACK", [], undefined)
    return sql.onDialectOrElse({
      sqlite: () => Effect.ignore(statement),
      orElse: () => Effect.asVoid(Effect.orDie(statement))
    })
  }
  return <A, E, R>(
    body: Effect.Effect<A, E, R>
  ): Effect.Effect<A, E | SqlError, Exclude<R, SqlClient.TransactionConnection>> =>
    Effect.uninterruptibleMask((restore) =>
      Effect.scoped(
        Effect.gen(function* () {
          const connection = yield* sql.reserve
          yield* connection.executeUnprepared("BEGIN", [], undefined)
          const result = yield* Effect.exit(
            restore(body).pipe(Effect.provideService(SqlClient.TransactionConnection, [connection, 0] as const))
          )
          if (Exit.isFailure(result)) {
            yield* rollback(connection)
            return yield* result
          }
          const committed = yield* Effect.exit(connection.executeUnprepared("COMMIT", [], undefined))
          if (Exit.isFailure(committed)) {
            yield* rollback(connection)
            return yield* Effect.failCause(committed.cause)
          }
          return result.value
        })
      )
    )
}
