import { existsSync, readFileSync, writeFileSync } from "node:fs"
import { createRequire } from "node:module"
import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Deferred, Effect, Exit, Scope } from "effect"
import { ThreadStore } from "../src/index.js"
import { build, ev, fullStoreCase, threadStoreSuite } from "./ThreadStoreSuite.js"
import { fillDatabase, freeDatabase, sqliteQuery, tempDir, withOpenedConnection } from "./utils/sqlite.js"

/** better-sqlite3 itself: another connection, as a second process would hold one. */
const Sqlite = createRequire(import.meta.url)("better-sqlite3") as new (
  file: string
) => { exec(sql: string): void; close(): void }

threadStoreSuite(
  "sqlite",
  Effect.map(tempDir, (dir) => {
    const filename = join(dir, "state.sqlite")
    return {
      open: () => ThreadStore.layerSqlite({ filename }),
      query: (statement: string) => sqliteQuery(filename, statement)
    }
  }),
  { shared: true }
)

describe("ThreadStore SQLite layer", () => {
  it.scoped("the database file is in WAL mode", () =>
    Effect.gen(function* () {
      const filename = join(yield* tempDir, "state.sqlite")
      const store = yield* build(ThreadStore.layerSqlite({ filename }))
      yield* store.create({ id: "th", createdAt: "2026-01-01T00:00:00.000Z", config: null })
      yield* store.append("th", 0, ev.turn("t1"))
      const mode = yield* sqliteQuery(filename, "PRAGMA journal_mode")
      assert.deepStrictEqual(mode, [{ journal_mode: "wal" }])
    })
  )

  it.scoped("layerFromConfig with driver sqlite creates the data directory and uses {dataDir}/state.sqlite", () =>
    Effect.gen(function* () {
      const dataDir = join(yield* tempDir, "nested", "data")
      const store = yield* build(ThreadStore.layerFromConfig({ driver: "sqlite", dataDir }))
      yield* store.create({ id: "th", createdAt: "2026-01-01T00:00:00.000Z", config: null })
      assert.isTrue(existsSync(join(dataDir, "state.sqlite")))
      const rows = yield* sqliteQuery(join(dataDir, "state.sqlite"), "SELECT id FROM threads")
      assert.deepStrictEqual(rows, [{ id: "th" }])
    })
  )

  it.scoped("layerFromConfig with driver memory keeps nothing on disk", () =>
    Effect.gen(function* () {
      const dataDir = join(yield* tempDir, "data")
      const store = yield* build(ThreadStore.layerFromConfig({ driver: "memory", dataDir }))
      yield* store.create({ id: "th", createdAt: "2026-01-01T00:00:00.000Z", config: null })
      assert.isFalse(existsSync(dataDir))
    })
  )

  it.scoped("a file that is not a database fails to open with a storage error", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      const error = yield* Effect.flip(build(ThreadStore.layerSqlite({ filename: join(dir, "missing", "x.sqlite") })))
      assert.strictEqual(error.reason, "storage")
      assert.match(error.message, /^cannot open the SQLite thread store /)
    })
  )

  it.scoped("an exclusive store holds {filename}.lock: a second one is refused naming the data directory and pid", () =>
    Effect.gen(function* () {
      const dataDir = yield* tempDir
      const filename = join(dataDir, "state.sqlite")
      const scope = yield* Scope.make()
      yield* build(ThreadStore.layerFromConfig({ driver: "sqlite", dataDir })).pipe(Scope.extend(scope))
      assert.strictEqual(readFileSync(`${filename}.lock`, "utf8"), `${process.pid}\n`)
      // A live holder that is another process: our parent stands in for a second app-server.
      writeFileSync(`${filename}.lock`, `${process.ppid}\n`)
      const error = yield* Effect.flip(build(ThreadStore.layerSqlite({ filename, exclusive: true })))
      assert.deepStrictEqual(
        { reason: error.reason, message: error.message },
        {
          reason: "storage",
          message: `cannot open the SQLite thread store ${filename}: the data directory ${dataDir} is in use by another app-server (pid ${process.ppid}); stop it, or give this one another --data-dir`
        }
      )
      // Not ours any more: closing the first store leaves the other process's lock alone.
      yield* Scope.close(scope, Exit.void)
      assert.isTrue(existsSync(`${filename}.lock`))
      // A lock whose process is gone is stale and taken over; it is removed when the store closes.
      writeFileSync(`${filename}.lock`, "999999999\n")
      const second = yield* Scope.make()
      const store = yield* build(ThreadStore.layerSqlite({ filename, exclusive: true })).pipe(Scope.extend(second))
      assert.isFalse(store.shared === true)
      assert.strictEqual(readFileSync(`${filename}.lock`, "utf8"), `${process.pid}\n`)
      yield* Scope.close(second, Exit.void)
      assert.isFalse(existsSync(`${filename}.lock`))
      // Without `exclusive` no lock is taken, and the store says other processes may write too.
      const open = yield* build(ThreadStore.layerSqlite({ filename }))
      assert.isTrue(open.shared === true)
      assert.isFalse(existsSync(`${filename}.lock`))
    })
  )

  it.scopedLive("another connection's write lock is waited for off the event loop, then the append goes through", () =>
    Effect.gen(function* () {
      const filename = join(yield* tempDir, "state.sqlite")
      const store = yield* build(ThreadStore.layerSqlite({ filename }))
      yield* store.create({ id: "th", createdAt: "2026-01-01T00:00:00.000Z", config: null })
      const other = new Sqlite(filename)
      yield* Effect.addFinalizer(() => Effect.sync(() => other.close()))
      other.exec("BEGIN IMMEDIATE")
      let ticks = 0
      const turned = yield* Deferred.make<void>()
      const timer = setInterval(() => {
        if (++ticks === 3) Deferred.unsafeDone(turned, Exit.void)
      }, 5)
      yield* Effect.addFinalizer(() => Effect.sync(() => clearInterval(timer)))
      const append = yield* Effect.fork(store.append("th", 0, ev.turn("t1")))
      // The event loop keeps turning while the append waits for the lock: the timer fires three times.
      yield* Deferred.await(turned).pipe(Effect.timeout("5 seconds"))
      other.exec("COMMIT")
      assert.strictEqual(yield* append.await.pipe(Effect.flatten), 1)
      assert.isAtLeast(ticks, 3)
    })
  )

  it.scoped(
    "a full database (max_page_count): the append fails with SQLITE_FULL and stores nothing; it goes through once there is room",
    () =>
      Effect.gen(function* () {
        const filename = join(yield* tempDir, "state.sqlite")
        const { result: store, connection } = yield* withOpenedConnection(
          build(ThreadStore.layerSqlite({ filename, exclusive: true }))
        )
        yield* fullStoreCase(store, {
          fill: fillDatabase(connection),
          free: freeDatabase(connection),
          cause: "SQLITE_FULL: database or disk is full"
        })
      })
  )
})
