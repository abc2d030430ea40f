/** The thread store's operations and records (public through `ThreadStore`; the drivers implement {@link Service}). */
import type { ThreadEvent } from "@mcp-resources/protocol"
import type { Effect, Option } from "effect"
import type { ThreadStoreError } from "./error.js"

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
