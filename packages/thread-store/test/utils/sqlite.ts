import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { createRequire } from "node:module"
import { join } from "node:path"
import { Reactivity } from "@effect/experimental"
import { SqliteClient } from "@effect/sql-sqlite-node"
import { Effect } from "effect"

/** A temporary directory removed when the scope closes. */
export const tempDir = Effect.acquireRelease(
  Effect.sync(() => mkdtempSync(join(tmpdir(), "thread-store-"))),
  (dir) => Effect.sync(() => rmSync(dir, { recursive: true, force: true }))
)

/** Runs one raw statement on a SQLite file through its own short-lived connection. */
export const sqliteQuery = (filename: string, statement: string) =>
  Effect.gen(function* () {
    const client = yield* SqliteClient.make({ filename })
    return yield* client.unsafe<Record<string, unknown>>(statement)
  }).pipe(Effect.scoped, Effect.provide(Reactivity.layer), Effect.orDie)

/** A better-sqlite3 connection, as far as these tests use it. */
export interface SqliteConnection {
  pragma(source: string, options?: { readonly simple?: boolean }): unknown
}

/**
 * Runs `open` while noting every better-sqlite3 connection it opens (they all set a pragma at open),
 * and returns its result with the one connection opened: the store's own, to fill its database.
 */
export const withOpenedConnection = <A, E, R>(open: Effect.Effect<A, E, R>) =>
  Effect.gen(function* () {
    const Sqlite = createRequire(import.meta.url)("better-sqlite3") as {
      prototype: { pragma: (this: SqliteConnection, ...args: Array<unknown>) => unknown }
    }
    const pragma = Sqlite.prototype.pragma
    const opened = new Set<SqliteConnection>()
    const result = yield* Effect.acquireUseRelease(
      Effect.sync(() => {
        Sqlite.prototype.pragma = function (...args) {
          opened.add(this)
          return pragma.apply(this, args)
        }
      }),
      () => open,
      () =>
        Effect.sync(() => {
          Sqlite.prototype.pragma = pragma
        })
    )
    if (opened.size !== 1) return yield* Effect.dieMessage(`expected one SQLite connection, ${opened.size} opened`)
    return { result, connection: [...opened][0]! }
  })

/** The database may grow by no page from now on: the next write that needs one fails with `SQLITE_FULL`. */
export const fillDatabase = (db: SqliteConnection) =>
  Effect.sync(() => {
    db.pragma(`max_page_count = ${Number(db.pragma("page_count", { simple: true }))}`)
  })

/** The database may grow again (SQLite's largest page count). */
export const freeDatabase = (db: SqliteConnection) =>
  Effect.sync(() => {
    db.pragma("max_page_count = 4294967294")
  })
