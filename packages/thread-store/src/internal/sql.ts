// Only the driver-neutral client: the SQLite and PostgreSQL drivers live in ./sqlite.js and ./pg.js, loaded on demand.
import * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import type { ThreadEvent } from "@mcp-resources/protocol"
import { Effect, Either, Option, Schedule } from "effect"
import type { Service, StoredRecord, ThreadInfo } from "./service.js"
import * as Codec from "./codec.js"
import { alreadyExists, conflict, describe, notFound, storage, type ThreadStoreError } from "./error.js"
import { migrate } from "./migrations.js"
import { makeTransaction } from "./transaction.js"

const isUniqueViolation = (error: SqlError): boolean => {
  const code = (error.cause as { readonly code?: unknown } | null | undefined)?.code
  return code === "23505" || code === "SQLITE_CONSTRAINT_PRIMARYKEY" || code === "SQLITE_CONSTRAINT_UNIQUE"
}

/** SQLite found the database locked by another connection (`SQLITE_BUSY`, `SQLITE_BUSY_SNAPSHOT`, `SQLITE_LOCKED`). */
const isBusy = (error: unknown): boolean => {
  if ((error as { readonly _tag?: unknown } | null)?._tag !== "SqlError") return false
  const code = ((error as SqlError).cause as { readonly code?: unknown } | null | undefined)?.code
  return typeof code === "string" && (code.startsWith("SQLITE_BUSY") || code.startsWith("SQLITE_LOCKED"))
}

/** 2 ms doubling up to 100 ms between attempts, 60 retries: about 5 s before a busy database is an error. */
const busySchedule = Schedule.exponential("2 millis").pipe(
  Schedule.union(Schedule.spaced("100 millis")),
  Schedule.intersect(Schedule.recurs(60))
)

/**
 * SQLite runs with `busy_timeout = 0` (sqlite.ts): an operation that finds the database busy is retried
 * whole on {@link busySchedule}, off the event loop. Other databases wait for their locks themselves.
 */
export const retryBusyOn = (
  sql: SqlClient.SqlClient
): (<A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>) =>
  sql.onDialectOrElse({
    sqlite: () => Effect.retry({ schedule: busySchedule, while: isBusy }),
    orElse: () => (effect) => effect
  })

/** About this much stored text per page: a thread of large records is read a few records at a time. */
export const pageBytes = 1024 * 1024

/** Lets pending I/O (other connections' requests) run before the next page is read. */
const yieldToIo: Effect.Effect<void> = Effect.async<void>((resume) => {
  const handle = setImmediate(() => resume(Effect.void))
  return Effect.sync(() => clearImmediate(handle))
})

/**
 * A storage failure for an `SqlError`, with its context prepended. The driver's error (the cause) is
 * described rather than the wrapper, whose message only says that a statement failed.
 */
export const failed = (context: string) => (error: SqlError) =>
  storage(context, describe(error.cause !== undefined && error.cause !== null ? error.cause : error))

interface ThreadRow {
  readonly id: string
  readonly created_at: string
  readonly config: string | null
}

/** Where the next page ends (`upto`; null when there is no record), how many records were sized, and the last of them. */
interface PageExtent {
  readonly upto: number | string | null
  readonly scanned: number | string
  readonly last: number | string | null
}

interface RecordRow {
  readonly seq: number
  readonly event: unknown
}

const toInfo = (row: ThreadRow) =>
  Either.map(
    Codec.decodeConfig(row.id, row.config),
    (config): ThreadInfo => ({ id: row.id, createdAt: row.created_at, config })
  )

/**
 * The store over a migrated SQL database (SQLite or PostgreSQL). With `notify` (PostgreSQL), every
 * append and removal also sends that channel a notice of ids only (`{threadId, seq}`, `{threadId,
 * deleted: true}`) in its own transaction: delivered once it commits, in commit order (ThreadFeed.ts).
 */
export const makeWith = (options: {
  readonly notify?: string | undefined
}): Effect.Effect<Service, ThreadStoreError, SqlClient.SqlClient> =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const channel = options.notify
    const notice = (payload: { readonly threadId: string; readonly seq?: number; readonly deleted?: true }) =>
      channel === undefined ? Effect.void : sql`SELECT pg_notify(${channel}, ${JSON.stringify(payload)})`
    return yield* Effect.provideService(makeNotifying(notice), SqlClient.SqlClient, sql)
  })

/** The store over a migrated SQL database (SQLite or PostgreSQL). */
export const make: Effect.Effect<Service, ThreadStoreError, SqlClient.SqlClient> = makeWith({})

const makeNotifying = (
  notice: (payload: {
    readonly threadId: string
    readonly seq?: number
    readonly deleted?: true
  }) => Effect.Effect<unknown, SqlError>
): Effect.Effect<Service, ThreadStoreError, SqlClient.SqlClient> =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const transaction = makeTransaction(sql)
    const retryBusy = retryBusyOn(sql)
    yield* retryBusy(migrate).pipe(
      Effect.catchTag("SqlError", (e) => Effect.fail(failed("cannot migrate the thread store")(e)))
    )

    const threadRow = (id: string) =>
      sql<ThreadRow>`SELECT id, created_at, config FROM threads WHERE id = ${id}`.pipe(
        Effect.map((rows) => Option.fromNullable(rows[0]))
      )

    const requireThread = (id: string) =>
      threadRow(id).pipe(Effect.flatMap(Option.match({ onNone: () => Effect.fail(notFound(id)), onSome: toInfo })))

    /**
     * The records with a seq greater than `after`, in order, read and decoded a page at a time and
     * handed to `onPage`, with the event loop yielded between pages: reading a large thread never stalls
     * other requests. A page holds at most {@link Codec.pageRows} records and about {@link pageBytes} of
     * stored text (at least one record): each page's extent is found first from the records' sizes
     * alone (`octet_length` reads no record's text), then only that page's text is read. A busy database
     * is retried per query (a retry never hands a page over twice); a failed query is a storage error
     * with `context`. Returns the last seq handed over (`after` when none).
     */
    const pagesAfter = <E, R>(
      id: string,
      after: number,
      context: string,
      onPage: (records: ReadonlyArray<StoredRecord>) => Effect.Effect<void, E, R>
    ): Effect.Effect<number, ThreadStoreError | E, R> =>
      Effect.gen(function* () {
        let from = after
        for (;;) {
          // The next records' sizes, summed in order: the page ends at the last record that starts
          // within the budget (the first always does).
          const extent = yield* sql<PageExtent>`SELECT
            MAX(CASE WHEN before < ${pageBytes} THEN seq END) AS upto, COUNT(*) AS scanned, MAX(seq) AS last
          FROM (SELECT seq, SUM(bytes) OVER (ORDER BY seq ROWS UNBOUNDED PRECEDING) - bytes AS before
            FROM (SELECT seq, octet_length(event) AS bytes FROM thread_records
              WHERE thread_id = ${id} AND seq > ${from} ORDER BY seq LIMIT ${Codec.pageRows}) AS scan) AS sized`.pipe(
            retryBusy,
            Effect.mapError(failed(context))
          )
          const upto = extent[0]?.upto
          if (upto === null || upto === undefined) return from
          const rows = yield* sql<RecordRow>`SELECT seq, event FROM thread_records
          WHERE thread_id = ${id} AND seq > ${from} AND seq <= ${Number(upto)} ORDER BY seq`.pipe(
            retryBusy,
            Effect.mapError(failed(context))
          )
          // Removed meanwhile (records are never changed otherwise): nothing more to hand over.
          if (rows.length === 0) return from
          yield* onPage(yield* Codec.decodeAll(id, rows))
          from = Number(rows[rows.length - 1]!.seq)
          if (Number(extent[0]!.scanned) < Codec.pageRows && Number(extent[0]!.last) === from) return from
          yield* yieldToIo
        }
      })

    /** {@link pagesAfter}, the pages collected. */
    const recordsAfter = (id: string, after: number, context: string) =>
      Effect.suspend(() => {
        const records: Array<StoredRecord> = []
        return Effect.as(
          pagesAfter(id, after, context, (page) =>
            Effect.sync(() => {
              for (const record of page) records.push(record)
            })
          ),
          records
        )
      })

    return {
      create: Effect.fn("ThreadStore.create")(
        function* (thread: ThreadInfo) {
          const config = yield* Codec.encodeConfig(thread.id, thread.config)
          yield* sql`INSERT INTO threads (id, created_at, config, last_seq)
          VALUES (${thread.id}, ${thread.createdAt}, ${config}, 0)`
        },
        (effect, thread) =>
          Effect.catchTag(retryBusy(effect), "SqlError", (e) =>
            Effect.fail(
              isUniqueViolation(e) ? alreadyExists(thread.id) : failed(`cannot create thread ${thread.id}`)(e)
            )
          )
      ),
      get: Effect.fn("ThreadStore.get")(
        function* (id: string) {
          const row = yield* threadRow(id)
          if (Option.isNone(row)) return Option.none()
          return Option.some(yield* toInfo(row.value))
        },
        (effect, id) =>
          Effect.catchTag(retryBusy(effect), "SqlError", (e) => Effect.fail(failed(`cannot read thread ${id}`)(e)))
      ),
      list: Effect.fn("ThreadStore.list")(
        function* () {
          const rows =
            yield* sql<ThreadRow>`SELECT id, created_at, config FROM threads ORDER BY created_at DESC, id ASC`
          const infos: Array<ThreadInfo> = []
          for (const row of rows) infos.push(yield* toInfo(row))
          return infos
        },
        (effect) => Effect.catchTag(retryBusy(effect), "SqlError", (e) => Effect.fail(failed("cannot list threads")(e)))
      ),
      remove: Effect.fn("ThreadStore.remove")(
        function* (id: string) {
          return yield* transaction(
            Effect.gen(function* () {
              // The thread row first: on PostgreSQL its lock makes racing appends see the thread gone.
              const removed = yield* sql<{ readonly id: string }>`DELETE FROM threads WHERE id = ${id} RETURNING id`
              yield* sql`DELETE FROM thread_records WHERE thread_id = ${id}`
              if (removed.length > 0) yield* notice({ threadId: id, deleted: true })
              return removed.length > 0
            })
          )
        },
        (effect, id) =>
          Effect.catchTag(retryBusy(effect), "SqlError", (e) => Effect.fail(failed(`cannot delete thread ${id}`)(e)))
      ),
      append: Effect.fn("ThreadStore.append")(
        function* (id: string, expectedSeq: number, event: ThreadEvent.ThreadEvent) {
          const text = yield* Codec.encode(id, event)
          const seq = expectedSeq + 1
          return yield* transaction(
            Effect.gen(function* () {
              // Claims the seq on the thread row (a PostgreSQL row lock: a racing append waits, then misses).
              const claimed = yield* sql<{ readonly last_seq: number }>`UPDATE threads SET last_seq = ${seq}
              WHERE id = ${id} AND last_seq = ${expectedSeq} RETURNING last_seq`
              if (claimed.length === 0) {
                const exists = yield* threadRow(id)
                return yield* Effect.fail(Option.isNone(exists) ? notFound(id) : conflict(id))
              }
              yield* sql`INSERT INTO thread_records (thread_id, seq, kind, event)
              VALUES (${id}, ${seq}, ${event._tag}, ${text})`
              yield* notice({ threadId: id, seq })
              return seq
            })
          )
        },
        (effect, id) =>
          Effect.catchTag(retryBusy(effect), "SqlError", (e) =>
            Effect.fail(isUniqueViolation(e) ? conflict(id) : failed(`cannot append to thread ${id}`)(e))
          )
      ),
      load: Effect.fn("ThreadStore.load")(
        function* (id: string) {
          const thread = yield* requireThread(id)
          // The newest compaction (found through its partial index), then it and everything after it.
          const newest = yield* sql<{ readonly seq: number | null }>`SELECT MAX(seq) AS seq FROM thread_records
          WHERE thread_id = ${id} AND kind = 'compacted'`
          const records = yield* recordsAfter(id, Number(newest[0]?.seq ?? 0) - 1, `cannot load thread ${id}`)
          return { thread, records, lastSeq: records.length === 0 ? 0 : records[records.length - 1]!.seq }
        },
        (effect, id) =>
          Effect.catchTag(retryBusy(effect), "SqlError", (e) => Effect.fail(failed(`cannot load thread ${id}`)(e)))
      ),
      since: Effect.fn("ThreadStore.since")(
        function* (id: string, seq: number) {
          const records = yield* recordsAfter(id, Math.floor(seq), `cannot read records of thread ${id}`)
          if (records.length === 0) yield* requireThread(id)
          return records
        },
        (effect, id) =>
          Effect.catchTag(retryBusy(effect), "SqlError", (e) =>
            Effect.fail(failed(`cannot read records of thread ${id}`)(e))
          )
      ),
      sincePages: (id, seq, onPage) =>
        Effect.gen(function* () {
          const context = `cannot read records of thread ${id}`
          const from = Math.floor(seq)
          const last = yield* pagesAfter(id, from, context, onPage)
          if (last === from)
            yield* requireThread(id).pipe(
              retryBusy,
              Effect.catchTag("SqlError", (e) => Effect.fail(failed(context)(e)))
            )
          return last
        }).pipe(Effect.withSpan("ThreadStore.sincePages")),
      lastSeq: Effect.fn("ThreadStore.lastSeq")(
        function* (id: string) {
          const rows = yield* sql<{ readonly last_seq: number }>`SELECT last_seq FROM threads WHERE id = ${id}`
          const row = rows[0]
          if (row === undefined) return yield* Effect.fail(notFound(id))
          return Number(row.last_seq)
        },
        (effect, id) =>
          Effect.catchTag(retryBusy(effect), "SqlError", (e) => Effect.fail(failed(`cannot read thread ${id}`)(e)))
      )
    }
  })
