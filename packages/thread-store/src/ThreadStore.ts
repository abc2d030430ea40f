/**
 * The thread store: threads, their event records (one per-thread sequence number, optimistic appends)
 * and compaction records, on memory, SQLite or PostgreSQL (resource-origins.md section 7,
 * app-server-protocol.md sections 3 and 5). An append has reached storage (SQLite `synchronous = FULL`,
 * a committed PostgreSQL transaction) before its effect succeeds.
 *
 * CONTRACT (the app-server codes against exactly these names and shapes).
 */
import * as Reactivity from "@effect/experimental/Reactivity"
import type { ThreadEvent } from "@mcp-resources/protocol"
import { Context, Effect, Layer, type Option, Redacted } from "effect"
import type { ThreadStoreError } from "./internal/error.js"
import * as Errors from "./internal/error.js"
import * as Memory from "./internal/memory.js"
import * as Persistence from "./internal/persistence.js"

/** The store's one error class (`reason`: `notFound`, `conflict`, `storage`) and its reason schema. */
export { ThreadStoreError, ThreadStoreErrorReason } from "./internal/error.js"

/** A stored thread. */
export interface ThreadInfo {
  readonly id: string
  /** ISO 8601 UTC, e.g. `2026-01-02T03:04:05.678Z`; `list` sorts on it. */
  readonly createdAt: string
  /** The thread's config override as JSON, or `null`. */
  readonly config: unknown
}

/** One record of a thread: its sequence number (1, 2, …) and the event. `compacted` events are the compaction records. */
export interface StoredRecord {
  readonly seq: number
  readonly event: ThreadEvent.ThreadEvent
}

/** What `load` returns: the thread, the newest compaction record (if any) and every later record, and the last seq. */
export interface Loaded {
  readonly thread: ThreadInfo
  readonly records: ReadonlyArray<StoredRecord>
  readonly lastSeq: number
}

/** The thread-store operations. Unknown threads fail with reason `notFound` (`thread not found: {id}`). */
export interface Service {
  /** Stores a new thread with no records; an id already stored fails with reason `conflict`. */
  readonly create: (info: ThreadInfo) => Effect.Effect<void, ThreadStoreError>
  /** The thread, or `None` when it is not stored. */
  readonly get: (id: string) => Effect.Effect<Option.Option<ThreadInfo>, ThreadStoreError>
  /** Every stored thread, newest `createdAt` first, ties in ascending id order. */
  readonly list: () => Effect.Effect<ReadonlyArray<ThreadInfo>, ThreadStoreError>
  /** Removes the thread and all its records; false when it was not stored. */
  readonly remove: (id: string) => Effect.Effect<boolean, ThreadStoreError>
  /**
   * Appends one record with seq `expectedSeq + 1` and returns that seq, once it is durable. When the
   * thread's last seq is not `expectedSeq` nothing is written and it fails with reason `conflict`,
   * `thread {id} was modified concurrently`.
   */
  readonly append: (
    id: string,
    expectedSeq: number,
    event: ThreadEvent.ThreadEvent
  ) => Effect.Effect<number, ThreadStoreError>
  /** The thread, its newest `compacted` record (if any) and every later record in order, and its last seq. */
  readonly load: (id: string) => Effect.Effect<Loaded, ThreadStoreError>
  /** The records with a seq greater than `seq`, in order (those another process appended since). */
  readonly since: (id: string, seq: number) => Effect.Effect<ReadonlyArray<StoredRecord>, ThreadStoreError>
  /**
   * The records of {@link since}, handed to `onPage` in order, a page at a time (up to 1,024 records;
   * on the SQL stores, about 1 MiB of stored events), and not kept: a caller that folds a long thread into a smaller state holds one page's records at a
   * time, not the whole thread's. Returns the last seq handed over, or `seq` when there
   * was none. A failure of `onPage` ends the read with that failure; a corrupt record fails before the
   * page that holds it is handed over.
   */
  readonly sincePages: <E = never, R = never>(
    id: string,
    seq: number,
    onPage: (records: ReadonlyArray<StoredRecord>) => Effect.Effect<void, E, R>
  ) => Effect.Effect<number, ThreadStoreError | E, R>
  /** The seq of the thread's last record, 0 when it has none. */
  readonly lastSeq: (id: string) => Effect.Effect<number, ThreadStoreError>
  /**
   * True when other processes may append to the same threads at the same time (PostgreSQL; SQLite
   * opened without `exclusive`); absent or false when this process is the only writer.
   */
  readonly shared?: boolean
}

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

/** PostgreSQL (several processes sharing threads), migrated at start; the pool closes with the layer. */
export const layerPg = (options: {
  readonly url: string | Redacted.Redacted
}): Layer.Layer<ThreadStore, ThreadStoreError> =>
  Layer.scoped(
    ThreadStore,
    Effect.flatMap(loadPg, (driver) =>
      driver.makePg(Redacted.isRedacted(options.url) ? options.url : Redacted.make(options.url))
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
          return layerPg({ url: yield* Persistence.pgUrl(options, "cannot open the thread store") })
      }
    })
  )
