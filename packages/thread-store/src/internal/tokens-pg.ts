/**
 * The token vault on PostgreSQL (`TokenVault.ts`): one row per server and URL, sealed
 * (`sealing.ts`); the refresh lock is a transaction-scoped advisory lock on a reserved connection,
 * so that a process that dies while refreshing releases it with its connection. Loaded on demand.
 */
import type * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import { Effect, Exit, Option, Redacted, Scope } from "effect"
import { describe, type TokenVaultError, vaultFailure } from "./error.js"
import { connectPg } from "./pg.js"
import * as Sealing from "./sealing.js"
import { makeTransaction } from "./transaction.js"
import { location, lockWaitSeconds, table } from "./vault.js"

/** First key of the refresh locks' advisory locks (two-key form; the second is the row's hash). */
const refreshLockSpace = 727_310_002
/** Key of the advisory lock that serializes creating the table (processes starting together). */
const createLockKey = 727_310_003

interface Key {
  readonly server: string
  readonly url: string
}

interface Row {
  readonly server: string
  readonly url: string
  readonly nonce: Uint8Array
  readonly sealed: Uint8Array
}

const fail = (context: string) => (error: SqlError | TokenVaultError) =>
  error._tag === "TokenVaultError"
    ? error
    : vaultFailure(
        `${context} ${location}`,
        describe(error.cause !== undefined && error.cause !== null ? error.cause : error)
      )

const lockName = (key: Key) => JSON.stringify([key.server, key.url])

/** The vault over a pool on `url`, the table created when missing. Messages never contain the url or the key. */
export const makePg = (url: Redacted.Redacted, sealingKey: Redacted.Redacted<Uint8Array>) =>
  Effect.gen(function* () {
    const sql: SqlClient.SqlClient = yield* connectPg(url, "cannot connect to the PostgreSQL token store").pipe(
      Effect.mapError((error) => vaultFailure("cannot open the token store", error.message))
    )
    const transaction = makeTransaction(sql)
    yield* transaction(
      Effect.gen(function* () {
        yield* sql`SELECT pg_advisory_xact_lock(${createLockKey})`
        yield* sql.unsafe(`CREATE TABLE IF NOT EXISTS ${table} (
          server TEXT NOT NULL,
          url TEXT NOT NULL,
          nonce BYTEA NOT NULL,
          sealed BYTEA NOT NULL,
          PRIMARY KEY (server, url)
        )`)
      })
    ).pipe(Effect.mapError(fail("cannot create")))

    const opened = (row: Row): Effect.Effect<{ readonly url: string; readonly text: string }, TokenVaultError> => {
      const text = Sealing.open(Redacted.value(sealingKey), row.server, row.url, row.nonce, row.sealed)
      return text === undefined
        ? Effect.fail(
            vaultFailure(
              `cannot read ${location}`,
              `the login of server '${row.server}' does not open with ${Sealing.keyVariable} (it was altered, or sealed with another key)`
            )
          )
        : Effect.succeed({ url: row.url, text })
    }

    const read = (key: Key) =>
      sql<Row>`SELECT server, url, nonce, sealed FROM ${sql(table)} WHERE server = ${key.server} AND url = ${key.url}`.pipe(
        Effect.mapError(fail("cannot read")),
        Effect.flatMap((rows) =>
          rows.length === 0 ? Effect.succeed(Option.none()) : Effect.map(opened(rows[0]!), (r) => Option.some(r.text))
        )
      )

    const list = (server: string) =>
      sql<Row>`SELECT server, url, nonce, sealed FROM ${sql(table)} WHERE server = ${server} ORDER BY url`.pipe(
        Effect.mapError(fail("cannot read")),
        Effect.flatMap((rows) => Effect.forEach(rows, opened))
      )

    const write = (key: Key, text: string) => {
      const { nonce, sealed } = Sealing.seal(Redacted.value(sealingKey), key.server, key.url, text)
      return sql`INSERT INTO ${sql(table)} (server, url, nonce, sealed)
        VALUES (${key.server}, ${key.url}, ${Buffer.from(nonce)}, ${Buffer.from(sealed)})
        ON CONFLICT (server, url) DO UPDATE SET nonce = EXCLUDED.nonce, sealed = EXCLUDED.sealed`.pipe(
        Effect.asVoid,
        Effect.mapError(fail("cannot write"))
      )
    }
    const remove = (server: string) =>
      sql<{ readonly url: string }>`DELETE FROM ${sql(table)} WHERE server = ${server} RETURNING url`.pipe(
        Effect.map((rows) => rows.length > 0),
        Effect.mapError(fail("cannot write"))
      )

    /**
     * Takes the login's refresh lock: a transaction on a connection of its own holding
     * `pg_advisory_xact_lock`, waiting at most {@link lockWaitSeconds}; the release ends the
     * transaction and gives the connection back.
     */
    const lockFailure = (key: Key) => (error: SqlError) =>
      (error.cause as { readonly code?: unknown } | null | undefined)?.code === "55P03"
        ? vaultFailure(
            `cannot lock ${location}`,
            `another process has held the refresh lock of server '${key.server}' for more than ${lockWaitSeconds} s`
          )
        : fail("cannot lock")(error)

    const lock = (key: Key): Effect.Effect<Effect.Effect<void>, TokenVaultError> =>
      Effect.uninterruptibleMask((restore) =>
        Effect.gen(function* () {
          const scope = yield* Scope.make()
          const acquire = Effect.gen(function* () {
            const connection = yield* Scope.extend(sql.reserve, scope)
            // whatever happens, the connection goes back to the pool outside any transaction
            yield* Scope.addFinalizer(scope, Effect.ignore(connection.executeUnprepared("ROLLBACK", [], undefined)))
            yield* connection.executeUnprepared("BEGIN", [], undefined)
            yield* connection.executeUnprepared(`SET LOCAL lock_timeout = '${lockWaitSeconds}s'`, [], undefined)
            yield* connection.execute(
              "SELECT pg_advisory_xact_lock($1, hashtext($2))",
              [refreshLockSpace, lockName(key)],
              undefined
            )
          })
          yield* restore(acquire).pipe(
            Effect.mapError(lockFailure(key)),
            Effect.onExit((exit) => (Exit.isFailure(exit) ? Scope.close(scope, exit) : Effect.void))
          )
          return Scope.close(scope, Exit.void)
        })
      )

    return { location, read, list, write, remove, lock }
  })
