import { assert, describe, it } from "@effect/vitest"
import { ConfigProvider, Effect } from "effect"
import { inject } from "vitest"
import { BodyStore } from "../src/index.js"
import { build, bodyStoreSuite } from "./BodyStoreSuite.js"
import { freshDatabase, pgQuery } from "./utils/pg.js"

const cluster = inject("pgCluster")
const clusterUrl = "url" in cluster ? cluster.url : undefined
if (clusterUrl === undefined && "skipped" in cluster) {
  console.warn(`BodyStore PostgreSQL tests skipped: ${cluster.skipped}`)
}

if (clusterUrl !== undefined) {
  bodyStoreSuite(
    "postgres",
    Effect.map(freshDatabase(clusterUrl), (url) => ({
      open: (bounds?: BodyStore.Bounds) => BodyStore.layerPg({ url, ...(bounds ? { bounds } : {}) })
    })),
    { persistent: true }
  )
}

describe.skipIf(clusterUrl === undefined)("BodyStore PostgreSQL layer", () => {
  it.scoped(
    "layerFromConfig with driver postgres and no url uses DATABASE_URL; bodies are bytea in the thread store's database",
    () =>
      Effect.gen(function* () {
        const url = yield* freshDatabase(clusterUrl!)
        const store = yield* build(BodyStore.layerFromConfig({ driver: "postgres", dataDir: "/nonexistent" })).pipe(
          Effect.withConfigProvider(ConfigProvider.fromMap(new Map([["DATABASE_URL", url]])))
        )
        const put = yield* store.put("th", new Uint8Array([0, 1, 2, 255]), { uri: "file:///b.bin" })
        assert.deepStrictEqual(yield* pgQuery(url, "SELECT encode(body, 'hex') AS hex FROM bodies"), [
          { hex: "000102ff" }
        ])
        assert.deepStrictEqual(yield* pgQuery(url, "SELECT thread_id, digest FROM thread_bodies"), [
          { thread_id: "th", digest: put.digest }
        ])
      })
  )
})

describe("BodyStore PostgreSQL layer without a server", () => {
  it.scoped("a connection failure is a storage error that does not reveal the url's password", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(build(BodyStore.layerPg({ url: "postgres://admin:hunter2@127.0.0.1:1/db" })))
      assert.strictEqual(error.reason, "storage")
      assert.match(error.message, /^cannot connect to the PostgreSQL body store: /)
      assert.notInclude(error.message, "hunter2")
    })
  )

  it.scoped("layerFromConfig with driver postgres, no url and no DATABASE_URL fails with a storage error", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(
        build(BodyStore.layerFromConfig({ driver: "postgres", dataDir: "/nonexistent" })).pipe(
          Effect.withConfigProvider(ConfigProvider.fromMap(new Map()))
        )
      )
      assert.deepStrictEqual(
        { reason: error.reason, message: error.message },
        {
          reason: "storage",
          message:
            'cannot open the body store: [persistence] driver = "postgres" needs `url` or the DATABASE_URL environment variable'
        }
      )
    })
  )
})
