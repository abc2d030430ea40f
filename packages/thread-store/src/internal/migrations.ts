import * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import { Effect } from "effect"
import { storage, type ThreadStoreError } from "./error.js"
import { makeTransaction } from "./transaction.js"

/** The table recording applied migrations. */
export const table = "thread_store_migrations"

/** Key of the PostgreSQL advisory lock that serializes migrations of processes starting together. */
const lockKey = 727_310_001

/** Ordered, never edited once released: a schema change is a new entry. Plain SQL both SQLite and PostgreSQL accept. */
export const migrations: ReadonlyArray<{
  readonly version: number
  readonly name: string
  readonly run: Effect.Effect<void, SqlError, SqlClient.SqlClient>
}> = [
  {
    version: 1,
    name: "threads_and_records",
    run: Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      yield* sql`CREATE TABLE threads (
        id TEXT PRIMARY KEY,
        created_at TEXT NOT NULL,
        config TEXT,
        last_seq INTEGER NOT NULL DEFAULT 0
      )`
      yield* sql`CREATE INDEX threads_by_created_at ON threads (created_at DESC, id)`
      // The primary key makes an append that lost a race fail instead of interleaving.
      yield* sql`CREATE TABLE thread_records (
        thread_id TEXT NOT NULL,
        seq INTEGER NOT NULL,
        kind TEXT NOT NULL,
        event TEXT NOT NULL,
        PRIMARY KEY (thread_id, seq)
      )`
      // Finds a thread's newest compaction without scanning its later records.
      yield* sql`CREATE INDEX thread_records_compactions ON thread_records (thread_id, seq) WHERE kind = 'compacted'`
    })
  },
  {
    version: 2,
    name: "bodies",
    run: Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const bytes = sql.onDialectOrElse({ pg: () => "BYTEA", orElse: () => "BLOB" })
      // The body store (BodyStore.ts): each body once, by its SHA-256; `stamp` orders the puts (oldest first).
      yield* sql.unsafe(`CREATE TABLE bodies (
        digest TEXT PRIMARY KEY,
        size BIGINT NOT NULL,
        stamp BIGINT NOT NULL,
        body ${bytes} NOT NULL
      )`)
      yield* sql`CREATE INDEX bodies_by_stamp ON bodies (stamp)`
      // Which thread holds which body, with the stamp of that thread's newest put of it.
      yield* sql`CREATE TABLE thread_bodies (
        thread_id TEXT NOT NULL,
        digest TEXT NOT NULL,
        size BIGINT NOT NULL,
        stamp BIGINT NOT NULL,
        uri TEXT NOT NULL,
        mime_type TEXT,
        PRIMARY KEY (thread_id, digest)
      )`
      yield* sql`CREATE INDEX thread_bodies_by_stamp ON thread_bodies (thread_id, stamp)`
      yield* sql`CREATE INDEX thread_bodies_by_digest ON thread_bodies (digest)`
    })
  }
]

/** The newest schema version this code knows. */
export const latestVersion: number = migrations.reduce((max, m) => Math.max(max, m.version), 0)

/**
 * A store whose schema a newer release migrated: using it could misread or damage what that release
 * wrote, so the store refuses to open, naming both versions.
 */
export const newerSchema = (stored: number): ThreadStoreError =>
  storage(
    "cannot open the thread store",
    `its schema is at version ${stored}, newer than version ${latestVersion}, the newest this version of mcp-resources knows; upgrade mcp-resources, or use another data directory or database`
  )

/**
 * Applies the missing migrations in one transaction and returns the versions applied; a schema with a
 * version this code does not know fails with {@link newerSchema} and changes nothing. On PostgreSQL a
 * transaction-scoped advisory lock makes a second process wait, then find nothing left to do.
 */
export const migrate: Effect.Effect<
  ReadonlyArray<number>,
  SqlError | ThreadStoreError,
  SqlClient.SqlClient
> = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const transaction = makeTransaction(sql)
  return yield* transaction(
    Effect.gen(function* () {
      yield* sql.onDialectOrElse({
        pg: () => sql`SELECT pg_advisory_xact_lock(${lockKey})`,
        orElse: () => Effect.void
      })
      yield* sql`CREATE TABLE IF NOT EXISTS ${sql(table)} (
        version INTEGER PRIMARY KEY,
        name TEXT NOT NULL
      )`
      const rows = yield* sql<{ readonly version: number }>`SELECT version FROM ${sql(table)}`
      const applied = new Set(rows.map((r) => Number(r.version)))
      const newest = Math.max(0, ...applied)
      if (newest > latestVersion) return yield* Effect.fail(newerSchema(newest))
      const done: Array<number> = []
      for (const migration of migrations) {
        if (applied.has(migration.version)) continue
        yield* migration.run
        yield* sql`INSERT INTO ${sql(table)} (version, name) VALUES (${migration.version}, ${migration.name})`
        done.push(migration.version)
      }
      return done
    })
  )
})
