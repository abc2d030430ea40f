// Only the driver-neutral client: the SQLite and PostgreSQL drivers live in ./sqlite.js and ./pg.js, loaded on demand.
import * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import type { ThreadEvent } from "@mcp-resources/protocol"
import { Effect, Either, Option } from "effect"
import type { Service, ThreadInfo } from "../ThreadStore.js"
import * as Codec from "./codec.js"
import { alreadyExists, conflict, describe, notFound, storage, type ThreadStoreError } from "./error.js"
import { migrate } from "./migrations.js"

const isUniqueViolation = (error: SqlError): boolean => {
  const code = (error.cause as { readonly code?: unknown } | null | undefined)?.code
  return code === "23505" || code === "SQLITE_CONSTRAINT_PRIMARYKEY" || code === "SQLITE_CONSTRAINT_UNIQUE"
}

/** A storage failure for an `SqlError`, with its context prepended. */
export const failed = (context: string) => (error: SqlError) => storage(context, describe(error))

interface ThreadRow {
  readonly id: string
  readonly created_at: string
  readonly config: string | null
}

interface RecordRow {
  readonly seq: number
  readonly event: string
}

const toInfo = (row: ThreadRow) =>
  Either.map(
    Codec.decodeConfig(row.id, row.config),
    (config): ThreadInfo => ({ id: row.id, createdAt: row.created_at, config })
  )

/** The store over a migrated SQL database (SQLite or PostgreSQL). */
export const make: Effect.Effect<Service, ThreadStoreError, SqlClient.SqlClient> = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* migrate.pipe(Effect.mapError(failed("cannot migrate the thread store")))

  const threadRow = (id: string) =>
    sql<ThreadRow>`SELECT id, created_at, config FROM threads WHERE id = ${id}`.pipe(
      Effect.map((rows) => Option.fromNullable(rows[0]))
    )

  const requireThread = (id: string) =>
    threadRow(id).pipe(Effect.flatMap(Option.match({ onNone: () => Effect.fail(notFound(id)), onSome: toInfo })))

  return {
    create: Effect.fn("ThreadStore.create")(
      function* (thread: ThreadInfo) {
        const config = yield* Codec.encodeConfig(thread.id, thread.config)
        yield* sql`INSERT INTO threads (id, created_at, config, last_seq)
          VALUES (${thread.id}, ${thread.createdAt}, ${config}, 0)`
      },
      (effect, thread) =>
        Effect.catchTag(effect, "SqlError", (e) =>
          Effect.fail(isUniqueViolation(e) ? alreadyExists(thread.id) : failed(`cannot create thread ${thread.id}`)(e))
        )
    ),
    get: Effect.fn("ThreadStore.get")(
      function* (id: string) {
        const row = yield* threadRow(id)
        if (Option.isNone(row)) return Option.none()
        return Option.some(yield* toInfo(row.value))
      },
      (effect, id) => Effect.catchTag(effect, "SqlError", (e) => Effect.fail(failed(`cannot read thread ${id}`)(e)))
    ),
    list: Effect.fn("ThreadStore.list")(
      function* () {
        const rows = yield* sql<ThreadRow>`SELECT id, created_at, config FROM threads ORDER BY created_at DESC, id ASC`
        const infos: Array<ThreadInfo> = []
        for (const row of rows) infos.push(yield* toInfo(row))
        return infos
      },
      (effect) => Effect.catchTag(effect, "SqlError", (e) => Effect.fail(failed("cannot list threads")(e)))
    ),
    remove: Effect.fn("ThreadStore.remove")(
      function* (id: string) {
        return yield* sql.withTransaction(
          Effect.gen(function* () {
            // The thread row first: on PostgreSQL its lock makes racing appends see the thread gone.
            const removed = yield* sql<{ readonly id: string }>`DELETE FROM threads WHERE id = ${id} RETURNING id`
            yield* sql`DELETE FROM thread_records WHERE thread_id = ${id}`
            return removed.length > 0
          })
        )
      },
      (effect, id) => Effect.catchTag(effect, "SqlError", (e) => Effect.fail(failed(`cannot delete thread ${id}`)(e)))
    ),
    append: Effect.fn("ThreadStore.append")(
      function* (id: string, expectedSeq: number, event: ThreadEvent.ThreadEvent) {
        const text = yield* Codec.encode(id, event)
        const seq = expectedSeq + 1
        return yield* sql.withTransaction(
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
            return seq
          })
        )
      },
      (effect, id) =>
        Effect.catchTag(effect, "SqlError", (e) =>
          Effect.fail(isUniqueViolation(e) ? conflict(id) : failed(`cannot append to thread ${id}`)(e))
        )
    ),
    load: Effect.fn("ThreadStore.load")(
      function* (id: string) {
        const thread = yield* requireThread(id)
        // One query: the newest compaction (found through its partial index) and everything after it.
        const rows = yield* sql<RecordRow>`SELECT seq, event FROM thread_records
          WHERE thread_id = ${id} AND seq >= COALESCE(
            (SELECT MAX(seq) FROM thread_records WHERE thread_id = ${id} AND kind = 'compacted'), 0)
          ORDER BY seq`
        const records = yield* Codec.decodeAll(id, rows)
        return { thread, records, lastSeq: records.length === 0 ? 0 : records[records.length - 1]!.seq }
      },
      (effect, id) => Effect.catchTag(effect, "SqlError", (e) => Effect.fail(failed(`cannot load thread ${id}`)(e)))
    ),
    since: Effect.fn("ThreadStore.since")(
      function* (id: string, seq: number) {
        const rows = yield* sql<RecordRow>`SELECT seq, event FROM thread_records
          WHERE thread_id = ${id} AND seq > ${Math.floor(seq)} ORDER BY seq`
        if (rows.length === 0) yield* requireThread(id)
        return yield* Codec.decodeAll(id, rows)
      },
      (effect, id) =>
        Effect.catchTag(effect, "SqlError", (e) => Effect.fail(failed(`cannot read records of thread ${id}`)(e)))
    ),
    lastSeq: Effect.fn("ThreadStore.lastSeq")(
      function* (id: string) {
        const rows = yield* sql<{ readonly last_seq: number }>`SELECT last_seq FROM threads WHERE id = ${id}`
        const row = rows[0]
        if (row === undefined) return yield* Effect.fail(notFound(id))
        return Number(row.last_seq)
      },
      (effect, id) => Effect.catchTag(effect, "SqlError", (e) => Effect.fail(failed(`cannot read thread ${id}`)(e)))
    )
  }
})
