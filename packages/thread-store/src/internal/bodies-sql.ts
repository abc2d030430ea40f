// The body store over the thread store's SQL database (SQLite or PostgreSQL), tables of migration 2.
import * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import { Effect, Option } from "effect"
import { type BodyMeta, type BodyRef, type Bounds, digestOf, fits, type Service } from "./bodies.js"
import { asBodyError, type BodyStoreError, bodyStorage, describe } from "./error.js"
import { migrate } from "./migrations.js"
import { retryBusyOn } from "./sql.js"
import { makeTransaction } from "./transaction.js"

/** Key of the PostgreSQL advisory lock that serializes the body store's writes across processes. */
const lockKey = 727_310_002

/** How many of the oldest bodies one eviction query reads. */
const evictionBatch = 64

const failed = (context: string) => (error: SqlError) =>
  bodyStorage(context, describe(error.cause !== undefined && error.cause !== null ? error.cause : error))

/** The bytes as the drivers bind them (a Buffer over the same memory, not a copy). */
const toBuffer = (bytes: Uint8Array): Buffer => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)

interface RefRow {
  readonly digest: string
  readonly size: number | string
  readonly uri: string
  readonly mime_type: string | null
}

/** The body store over a database; the thread store's migrations (which create its tables) run first. */
export const make = (bounds: Bounds): Effect.Effect<Service, BodyStoreError, SqlClient.SqlClient> =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const transaction = makeTransaction(sql)
    const retryBusy = retryBusyOn(sql)
    yield* retryBusy(migrate).pipe(
      Effect.catchTag("SqlError", (e) => Effect.fail(failed("cannot migrate the body store")(e))),
      Effect.catchTag("ThreadStoreError", (e) => Effect.fail(asBodyError(e)))
    )

    /** Writes are one at a time across processes (PostgreSQL; SQLite has one writer anyway). */
    const lock = sql.onDialectOrElse({
      pg: () => Effect.asVoid(sql`SELECT pg_advisory_xact_lock(${lockKey})`),
      orElse: () => Effect.void
    })

    /** Deletes the body when no thread holds it any more. */
    const collect = (digest: string) =>
      sql`DELETE FROM bodies WHERE digest = ${digest}
        AND NOT EXISTS (SELECT 1 FROM thread_bodies WHERE thread_bodies.digest = ${digest})`

    const put = (threadId: string, bytes: Uint8Array, meta: BodyMeta, digest: string) =>
      Effect.gen(function* () {
        const size = bytes.byteLength
        yield* lock
        const next = yield* sql<{
          readonly next: number | string
        }>`SELECT COALESCE(MAX(stamp), 0) + 1 AS next FROM bodies`
        const stamp = Number(next[0]!.next)
        const updated = yield* sql<{ readonly digest: string }>`UPDATE bodies SET stamp = ${stamp}
          WHERE digest = ${digest} RETURNING digest`
        if (updated.length === 0)
          yield* sql`INSERT INTO bodies (digest, size, stamp, body) VALUES (${digest}, ${size}, ${stamp}, ${toBuffer(bytes)})`
        yield* sql`DELETE FROM thread_bodies WHERE thread_id = ${threadId} AND digest = ${digest}`
        yield* sql`INSERT INTO thread_bodies (thread_id, digest, size, stamp, uri, mime_type)
          VALUES (${threadId}, ${digest}, ${size}, ${stamp}, ${meta.uri}, ${meta.mimeType ?? null})`
        // The thread's bound: its oldest references released first (the one just put is the newest and fits).
        const refs = yield* sql<{ readonly digest: string; readonly size: number | string }>`SELECT digest, size
          FROM thread_bodies WHERE thread_id = ${threadId} ORDER BY stamp`
        let threadBytes = refs.reduce((sum, ref) => sum + Number(ref.size), 0)
        for (const ref of refs) {
          if (threadBytes <= bounds.threadMaxBytes) break
          threadBytes -= Number(ref.size)
          yield* sql`DELETE FROM thread_bodies WHERE thread_id = ${threadId} AND digest = ${ref.digest}`
          yield* collect(ref.digest)
        }
        // The store's bound: the oldest bodies evicted first, with every thread's reference to them.
        const total = yield* sql<{
          readonly bytes: number | string
        }>`SELECT COALESCE(SUM(size), 0) AS bytes FROM bodies`
        let storeBytes = Number(total[0]!.bytes)
        while (storeBytes > bounds.storeMaxBytes) {
          const oldest = yield* sql<{ readonly digest: string; readonly size: number | string }>`SELECT digest, size
            FROM bodies ORDER BY stamp LIMIT ${evictionBatch}`
          if (oldest.length === 0) break
          for (const body of oldest) {
            if (storeBytes <= bounds.storeMaxBytes) break
            storeBytes -= Number(body.size)
            yield* sql`DELETE FROM thread_bodies WHERE digest = ${body.digest}`
            yield* sql`DELETE FROM bodies WHERE digest = ${body.digest}`
          }
        }
      })

    const service: Service = {
      bounds,
      put: Effect.fn("BodyStore.put")(function* (threadId: string, body: Uint8Array, meta: BodyMeta) {
        const digest = digestOf(body)
        const size = body.byteLength
        if (!fits(bounds, size)) return { digest, size, kept: false }
        yield* transaction(put(threadId, body, meta, digest)).pipe(
          retryBusy,
          Effect.mapError(failed(`cannot store a body of thread ${threadId}`))
        )
        return { digest, size, kept: true }
      }),
      get: Effect.fn("BodyStore.get")((digest: string) =>
        sql<{ readonly body: Uint8Array }>`SELECT body FROM bodies WHERE digest = ${digest}`.pipe(
          retryBusy,
          Effect.mapError(failed(`cannot read body ${digest}`)),
          Effect.map((rows) => Option.map(Option.fromNullable(rows[0]), (row) => new Uint8Array(row.body)))
        )
      ),
      list: Effect.fn("BodyStore.list")((threadId: string) =>
        sql<RefRow>`SELECT digest, size, uri, mime_type FROM thread_bodies
          WHERE thread_id = ${threadId} ORDER BY stamp`.pipe(
          retryBusy,
          Effect.mapError(failed(`cannot list the bodies of thread ${threadId}`)),
          Effect.map((rows) =>
            rows.map(
              (row): BodyRef => ({
                digest: row.digest,
                size: Number(row.size),
                uri: row.uri,
                ...(row.mime_type !== null ? { mimeType: row.mime_type } : {})
              })
            )
          )
        )
      ),
      release: Effect.fn("BodyStore.release")((threadId: string, digests: ReadonlyArray<string>) =>
        transaction(
          Effect.gen(function* () {
            yield* lock
            let released = 0
            for (const digest of new Set(digests)) {
              const dropped = yield* sql<{ readonly digest: string }>`DELETE FROM thread_bodies
                WHERE thread_id = ${threadId} AND digest = ${digest} RETURNING digest`
              if (dropped.length === 0) continue
              released++
              yield* collect(digest)
            }
            return released
          })
        ).pipe(retryBusy, Effect.mapError(failed(`cannot release bodies of thread ${threadId}`)))
      ),
      dropThread: Effect.fn("BodyStore.dropThread")((threadId: string) =>
        transaction(
          Effect.gen(function* () {
            yield* lock
            const dropped = yield* sql<{ readonly digest: string }>`DELETE FROM thread_bodies
              WHERE thread_id = ${threadId} RETURNING digest`
            for (const ref of dropped) yield* collect(ref.digest)
            return dropped.length
          })
        ).pipe(retryBusy, Effect.mapError(failed(`cannot drop the bodies of thread ${threadId}`)))
      ),
      usage: Effect.fn("BodyStore.usage")(() =>
        sql<{
          readonly bodies: number | string
          readonly bytes: number | string
        }>`SELECT COUNT(*) AS bodies, COALESCE(SUM(size), 0) AS bytes FROM bodies`.pipe(
          retryBusy,
          Effect.mapError(failed("cannot read the body store's usage")),
          Effect.map((rows) => ({ bodies: Number(rows[0]!.bodies), bytes: Number(rows[0]!.bytes) }))
        )
      )
    }
    return service
  })
