/**
 * The body store: the bodies threads read, each kept once by its SHA-256 (content-addressed) and
 * referenced by the threads that read it, beside the thread store on the same driver (memory, SQLite,
 * PostgreSQL) so that a later diff has its base after a restart (docs/templates-and-changes.md).
 *
 * Bounded (`[changes]` of the config), and no bound is ever exceeded once a put has returned:
 * - `bodyMaxBytes`: a larger body keeps only its digest and size (`kept: false`, nothing stored);
 * - `threadMaxBytes`: the bytes one thread holds (each body it holds counted whole); past it, that
 *   thread's oldest references are released first;
 * - `storeMaxBytes`: the bytes of every body stored (each counted once); past it, the oldest bodies are
 *   evicted first, with every thread's reference to them.
 * "Oldest" is the order of the puts: putting a body again makes it (and the thread's reference) the newest.
 * A body no thread holds any more is deleted.
 */
import * as Reactivity from "@effect/experimental/Reactivity"
import * as SqlClient from "@effect/sql/SqlClient"
import { Config } from "@mcp-resources/protocol"
import { Context, Effect, Layer, Redacted, type Scope } from "effect"
import type { Bounds, Service } from "./internal/bodies.js"
import * as Errors from "./internal/error.js"
import type { BodyStoreError } from "./internal/error.js"
import * as Memory from "./internal/bodies-memory.js"
import * as Persistence from "./internal/persistence.js"
import type { PersistenceOptions } from "./ThreadStore.js"

export type { BodyMeta, BodyRef, Bounds, Put, Service, Usage } from "./internal/bodies.js"
/** The body store's one error class (`reason`: `storage`, `invalid`) and its reason schema. */
export { BodyStoreError, BodyStoreErrorReason } from "./internal/error.js"

/** The three bounds of `bounds` (a whole `[changes]` table may be given: its other keys are not the store's). */
const boundsOf = (bounds: Bounds): Bounds => ({
  bodyMaxBytes: bounds.bodyMaxBytes,
  threadMaxBytes: bounds.threadMaxBytes,
  storeMaxBytes: bounds.storeMaxBytes
})

/** The `[changes]` defaults: 4 MiB per body, 64 MiB per thread, 512 MiB in all. */
export const defaultBounds: Bounds = boundsOf(Config.changesDefaults)

/** The BodyStore service tag. Layers: `layerMemory`, `layerSqlite`, `layerPg`, `layerFromConfig`. */
export class BodyStore extends Context.Tag("@mcp-resources/thread-store/BodyStore")<BodyStore, Service>() {}

/** Fails with reason `invalid` unless every bound is a whole number of bytes, 0 or more. */
const checked = (given: Bounds): Effect.Effect<Bounds, BodyStoreError> => {
  const bounds = boundsOf(given)
  for (const [name, value] of Object.entries(bounds)) {
    if (!Number.isSafeInteger(value) || value < 0)
      return Effect.fail(
        new Errors.BodyStoreError({
          reason: "invalid",
          message: `cannot open the body store: ${name} must be a whole number of bytes, 0 or more (got ${value})`
        })
      )
  }
  return Effect.succeed(bounds)
}

/** Keeps the bodies in this process only (`driver = "memory"`). */
export const layerMemory = (bounds: Bounds = defaultBounds): Layer.Layer<BodyStore, BodyStoreError> =>
  Layer.effect(BodyStore, Effect.flatMap(checked(bounds), Memory.make))

const loadDriver = <A>(name: string, load: () => Promise<A>): Effect.Effect<A, BodyStoreError> =>
  Effect.tryPromise({
    try: load,
    catch: (cause) => Errors.bodyStorage(`cannot load the ${name} driver`, Errors.describe(cause))
  })

const loadSql = loadDriver("SQL", () => import("./internal/bodies-sql.js"))

/** The store over a client `open` gives, migrated at start. */
const overClient = (
  bounds: Bounds,
  open: Effect.Effect<SqlClient.SqlClient, BodyStoreError, Scope.Scope | Reactivity.Reactivity>
): Layer.Layer<BodyStore, BodyStoreError> =>
  Layer.scoped(
    BodyStore,
    Effect.gen(function* () {
      const valid = yield* checked(bounds)
      const driver = yield* loadSql
      const client = yield* open
      return yield* Effect.provideService(driver.make(valid), SqlClient.SqlClient, client)
    })
  ).pipe(Layer.provide(Reactivity.layer))

const openSqlite = (filename: string) =>
  Effect.flatMap(
    loadDriver("SQLite", () => import("./internal/sqlite.js")),
    (driver) =>
      driver
        .openSqlite(filename, `cannot open the SQLite body store ${filename}`)
        .pipe(Effect.mapError(Errors.asBodyError))
  )

const openPg = (url: Redacted.Redacted) =>
  Effect.flatMap(
    loadDriver("PostgreSQL", () => import("./internal/pg.js")),
    (driver) =>
      driver.connectPg(url, "cannot connect to the PostgreSQL body store").pipe(Effect.mapError(Errors.asBodyError))
  )

/**
 * In the SQLite file of the thread store (its tables beside the thread store's), on a connection of
 * its own; it takes no lock file (the thread store's `exclusive` lock covers the database).
 */
export const layerSqlite = (options: {
  readonly filename: string
  readonly bounds?: Bounds
}): Layer.Layer<BodyStore, BodyStoreError> => overClient(options.bounds ?? defaultBounds, openSqlite(options.filename))

/** In the PostgreSQL database of the thread store, on a pool of its own. */
export const layerPg = (options: {
  readonly url: string | Redacted.Redacted
  readonly bounds?: Bounds
}): Layer.Layer<BodyStore, BodyStoreError> =>
  overClient(
    options.bounds ?? defaultBounds,
    openPg(Redacted.isRedacted(options.url) ? options.url : Redacted.make(options.url))
  )

/**
 * The layer the `[persistence]` settings choose, beside the thread store of `ThreadStore.layerFromConfig`:
 * memory; `{dataDir}/state.sqlite`; or PostgreSQL at `url`, else `DATABASE_URL`.
 */
export const layerFromConfig = (
  options: PersistenceOptions,
  bounds: Bounds = defaultBounds
): Layer.Layer<BodyStore, BodyStoreError> =>
  Layer.unwrapEffect(
    Effect.gen(function* () {
      switch (options.driver) {
        case "memory":
          return layerMemory(bounds)
        case "sqlite": {
          const driver = yield* loadDriver("SQLite", () => import("./internal/sqlite.js"))
          const filename = yield* driver.sqliteFile(options.dataDir).pipe(Effect.mapError(Errors.asBodyError))
          return layerSqlite({ filename, bounds })
        }
        case "postgres": {
          const url = yield* Persistence.pgUrl(options, "cannot open the body store").pipe(
            Effect.mapError(Errors.asBodyError)
          )
          return layerPg({ url, bounds })
        }
      }
    })
  )
