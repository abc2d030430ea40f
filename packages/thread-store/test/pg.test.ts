import { assert, describe, it } from "@effect/vitest"
import { ConfigProvider, Effect } from "effect"
import { inject } from "vitest"
import { ThreadStore } from "../src/index.js"
import { build, fullStoreCase, threadStoreSuite } from "./ThreadStoreSuite.js"
import { freshDatabase, pgQuery } from "./utils/pg.js"

const cluster = inject("pgCluster")
const clusterUrl = "url" in cluster ? cluster.url : undefined
if (clusterUrl === undefined && "skipped" in cluster) {
  console.warn(`PostgreSQL tests skipped: ${cluster.skipped}`)
}

if (clusterUrl !== undefined) {
  threadStoreSuite(
    "postgres",
    Effect.map(freshDatabase(clusterUrl), (url) => ({
      open: () => ThreadStore.layerPg({ url }),
      query: (statement: string) => pgQuery(url, statement)
    })),
    { shared: true }
  )
}

/** What PostgreSQL says when a data file cannot grow (SQLSTATE 53100, disk_full). */
const diskFullMessage = 'could not extend file "base/16384/16402": No space left on device'

/** A trigger function that fails every insert as a full disk does. */
const diskFullFunction = `CREATE FUNCTION disk_full() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN RAISE EXCEPTION '${diskFullMessage}' USING ERRCODE = '53100'; END $$`

const diskFullTrigger =
  "CREATE TRIGGER disk_full BEFORE INSERT ON thread_records FOR EACH ROW EXECUTE FUNCTION disk_full()"

describe.skipIf(clusterUrl === undefined)("ThreadStore PostgreSQL layer", () => {
  it.scoped("layerFromConfig with driver postgres and no url uses DATABASE_URL", () =>
    Effect.gen(function* () {
      const url = yield* freshDatabase(clusterUrl!)
      const store = yield* build(ThreadStore.layerFromConfig({ driver: "postgres", dataDir: "/nonexistent" })).pipe(
        Effect.withConfigProvider(ConfigProvider.fromMap(new Map([["DATABASE_URL", url]])))
      )
      yield* store.create({ id: "th", createdAt: "2026-01-01T00:00:00.000Z", config: null })
      assert.deepStrictEqual(yield* pgQuery(url, "SELECT id FROM threads"), [{ id: "th" }])
    })
  )

  it.scoped(
    "a full disk (a trigger raising 53100 disk_full on insert): the append fails with the server's error and stores nothing; it goes through once the trigger is dropped",
    () =>
      Effect.gen(function* () {
        const url = yield* freshDatabase(clusterUrl!)
        const store = yield* build(ThreadStore.layerPg({ url }))
        yield* pgQuery(url, diskFullFunction)
        yield* fullStoreCase(store, {
          fill: Effect.asVoid(pgQuery(url, diskFullTrigger)),
          free: Effect.asVoid(pgQuery(url, "DROP TRIGGER disk_full ON thread_records")),
          cause: `53100: ${diskFullMessage}`
        })
      })
  )
})

describe("ThreadStore PostgreSQL layer without a server", () => {
  it.scoped("a connection failure is a storage error that does not reveal the url's password", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(build(ThreadStore.layerPg({ url: "postgres://admin:hunter2@127.0.0.1:1/db" })))
      assert.strictEqual(error.reason, "storage")
      assert.match(error.message, /^cannot connect to the PostgreSQL thread store: /)
      assert.notInclude(error.message, "hunter2")
    })
  )

  it.scoped("layerFromConfig with driver postgres, no url and no DATABASE_URL fails with a storage error", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(
        build(ThreadStore.layerFromConfig({ driver: "postgres", dataDir: "/nonexistent" })).pipe(
          Effect.withConfigProvider(ConfigProvider.fromMap(new Map()))
        )
      )
      assert.deepStrictEqual(
        { reason: error.reason, message: error.message },
        {
          reason: "storage",
          message:
            'cannot open the thread store: [persistence] driver = "postgres" needs `url` or the DATABASE_URL environment variable'
        }
      )
    })
  )
})
