/**
 * The thread store: threads, their event records (one per-thread sequence number, optimistic appends)
 * and compaction records, on memory, SQLite or PostgreSQL (resource-origins.md section 7,
 * app-server-protocol.md sections 3 and 5). An append has reached storage (SQLite `synchronous = FULL`,
 * a committed PostgreSQL transaction) before its effect succeeds.
 *
 * CONTRACT (the app-server codes against exactly these names and shapes).
 */
import * as Reactivity from "@effect/experimental/Reactivity"
import { Context, Effect, Layer, Redacted } from "effect"
import type { ThreadStoreError } from "./internal/error.js"
import * as Errors from "./internal/error.js"
import * as Memory from "./internal/memory.js"
import * as Persistence from "./internal/persistence.js"
import type { Service } from "./internal/service.js"
import { channel } from "./ThreadFeed.js"

/** The store's one error class (`reason`: `notFound`, `conflict`, `storage`) and its reason schema. */
export { ThreadStoreError, ThreadStoreErrorReason } from "./internal/error.js"

export type { Loaded, Service, StoredRecord, ThreadInfo } from "./internal/service.js"

/** The ThreadStore service tag. Layers: `layerMemory`, `layerSqlite`, `layerPg`, `layerFromConfig`. */
export class ThreadStore extends Context.Tag("@mcp-resources/thread-store/ThreadStore")<ThreadStore, Service>() {}

/** Keeps everything in this process, nothing across restarts (ephemeral threads, `driver = "memory"`). */
export const layerMemory: Layer.Layer<ThreadStore> = Layer.effect(ThreadStore, Memory.make)

// The SQL drivers (better-sqlite3, pg) are loaded with `import()` when a store on them is built, so
// that a process never loads the driver it does not use (start-up time).
const loadDriver = <A>(name: string, load: () => Promise<A>): Effect.Effect<A, ThreadStoreError> =>
  Effect.tryPromise({
    try: load,
    catch: (cause) => Errors.storage(`cannot load the ${name} driver`, Errors.describe(cause))
  })

const loadSqlite = loadDriver("SQLite", () => import("./internal/sqlite.js"))
const loadPg = loadDriver("PostgreSQL", () => import("./internal/pg.js"))

/**
 * SQLite file (WAL, `synchronous = FULL`), migrated at start; the connection closes with the layer. A
 * database another process holds busy never blocks the event loop: the operation is retried on a
 * schedule (about 5 s in all) before it fails. With `exclusive`, the layer holds `{filename}.lock`
 * while it is open and fails when a live process holds it (one app-server per database).
 */
export const layerSqlite = (options: {
  readonly filename: string
  readonly exclusive?: boolean
}): Layer.Layer<ThreadStore, ThreadStoreError> =>
  Layer.scoped(
    ThreadStore,
    Effect.flatMap(loadSqlite, (driver) =>
      driver.makeSqlite(options.filename, options.exclusive === true ? { exclusive: true } : {})
    )
  ).pipe(Layer.provide(Reactivity.layer))

/**
 * PostgreSQL (several processes sharing threads), migrated at start; the pool closes with the layer.
 * With `notify`, every append and removal sends a notice to the processes listening (ThreadFeed.ts).
 */
export const layerPg = (options: {
  readonly url: string | Redacted.Redacted
  readonly notify?: boolean | undefined
}): Layer.Layer<ThreadStore, ThreadStoreError> =>
  Layer.scoped(
    ThreadStore,
    Effect.flatMap(loadPg, (driver) =>
      driver.makePg(
        Redacted.isRedacted(options.url) ? options.url : Redacted.make(options.url),
        options.notify === true ? { notify: channel } : {}
      )
    )
  ).pipe(Layer.provide(Reactivity.layer))

/** SQLite at `{dataDir}/state.sqlite`, the directory created first (when missing), held exclusively. */
const layerSqliteIn = (dataDir: string): Layer.Layer<ThreadStore, ThreadStoreError> =>
  Layer.scoped(
    ThreadStore,
    Effect.flatMap(loadSqlite, (driver) =>
      Effect.flatMap(driver.sqliteFile(dataDir), (filename) => driver.makeSqlite(filename, { exclusive: true }))
    )
  ).pipe(Layer.provide(Reactivity.layer))

/** The `[persistence]` settings of a deployment, plus the data directory. */
export interface PersistenceOptions {
  readonly driver: "sqlite" | "postgres" | "memory"
  /** PostgreSQL url; falls back to `DATABASE_URL`. */
  readonly url?: string | undefined
  /** Where `state.sqlite` lives; created if missing. */
  readonly dataDir: string
  /** PostgreSQL: appends and removals send notices (ThreadFeed.ts; a clustered app-server). */
  readonly notify?: boolean | undefined
}

/**
 * The layer a deployment's `[persistence]` settings choose: `memory`; `sqlite` at `{dataDir}/state.sqlite`
 * (the directory created if missing; held exclusively, see `layerSqlite`); `postgres` at `url`, else `DATABASE_URL` (read through `Config`).
 */
export const layerFromConfig = (options: PersistenceOptions): Layer.Layer<ThreadStore, ThreadStoreError> =>
  Layer.unwrapEffect(
    Effect.gen(function* () {
      switch (options.driver) {
        case "memory":
          return layerMemory
        case "sqlite":
          return layerSqliteIn(options.dataDir)
        case "postgres":
          return layerPg({
            url: yield* Persistence.pgUrl(options, "cannot open the thread store"),
            notify: options.notify
          })
      }
    })
  )
