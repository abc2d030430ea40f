import { existsSync } from "node:fs"
import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { ThreadStore } from "../src/index.js"
import { build, ev, threadStoreSuite } from "./ThreadStoreSuite.js"
import { sqliteQuery, tempDir } from "./utils/sqlite.js"

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
})
