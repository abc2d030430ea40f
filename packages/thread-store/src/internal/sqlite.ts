/**
 * The SQLite driver of the thread store (better-sqlite3), in its own module so that `ThreadStore`
 * loads it with `import()` only when a SQLite store is built.
 */
import { mkdirSync } from "node:fs"
import { join } from "node:path"
import type { Reactivity } from "@effect/experimental/Reactivity"
import * as SqlClient from "@effect/sql/SqlClient"
import * as SqliteClient from "@effect/sql-sqlite-node/SqliteClient"
import { Effect, type Scope } from "effect"
import type { Service } from "../ThreadStore.js"
import { describe, storage, type ThreadStoreError } from "./error.js"
import { failed, make } from "./sql.js"

/** How long SQLite waits for another process's write lock before failing. */
const busyTimeoutMs = 5000

/** `{dataDir}/state.sqlite`, creating the directory when missing. */
export const sqliteFile = (dataDir: string): Effect.Effect<string, ThreadStoreError> =>
  Effect.try({
    try: () => {
      mkdirSync(dataDir, { recursive: true })
      return join(dataDir, "state.sqlite")
    },
    catch: (cause) => storage(`cannot create the data directory ${dataDir}`, describe(cause))
  })

/** Opens the SQLite file (WAL, `synchronous = FULL`, busy timeout) and builds the store over it. */
export const makeSqlite = (filename: string): Effect.Effect<Service, ThreadStoreError, Scope.Scope | Reactivity> =>
  Effect.gen(function* () {
    const context = `cannot open the SQLite thread store ${filename}`
    // better-sqlite3 throws from its constructor (missing directory, not a database): a typed failure here.
    const client = yield* SqliteClient.make({ filename }).pipe(
      Effect.catchAllDefect((defect) => Effect.fail(storage(context, describe(defect))))
    )
    yield* Effect.all([
      client.unsafe(`PRAGMA busy_timeout = ${busyTimeoutMs}`),
      // WAL with FULL syncs on every commit: an acknowledged append survives a crash or power loss.
      client.unsafe("PRAGMA synchronous = FULL")
    ]).pipe(Effect.mapError(failed(context)))
    return yield* Effect.provideService(make, SqlClient.SqlClient, client)
  })
