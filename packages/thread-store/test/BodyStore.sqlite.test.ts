import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Option } from "effect"
import { BodyStore, ThreadStore } from "../src/index.js"
import { build, bodyStoreSuite } from "./BodyStoreSuite.js"
import { build as buildThreads } from "./ThreadStoreSuite.js"
import { sqliteQuery, tempDir } from "./utils/sqlite.js"

bodyStoreSuite(
  "sqlite",
  Effect.map(tempDir, (dir) => {
    const filename = join(dir, "state.sqlite")
    return { open: (bounds?: BodyStore.Bounds) => BodyStore.layerSqlite({ filename, ...(bounds ? { bounds } : {}) }) }
  }),
  { persistent: true }
)

describe("BodyStore SQLite layer beside the thread store", () => {
  it.scoped(
    "layerFromConfig with driver sqlite keeps the bodies in {dataDir}/state.sqlite, beside the held thread store",
    () =>
      Effect.gen(function* () {
        const dataDir = join(yield* tempDir, "data")
        const threads = yield* buildThreads(ThreadStore.layerFromConfig({ driver: "sqlite", dataDir }))
        const bodies = yield* build(BodyStore.layerFromConfig({ driver: "sqlite", dataDir }))
        yield* threads.create({ id: "th", createdAt: "2026-01-01T00:00:00.000Z", config: null })
        const put = yield* bodies.put("th", new TextEncoder().encode("body"), { uri: "file:///b" })
        assert.deepStrictEqual(yield* threads.get("th").pipe(Effect.map(Option.isSome)), true)
        const rows = yield* sqliteQuery(
          join(dataDir, "state.sqlite"),
          "SELECT thread_id, digest, size FROM thread_bodies"
        )
        assert.deepStrictEqual(rows, [{ thread_id: "th", digest: put.digest, size: 4 }])
      })
  )
})
