import { Effect, Either, Option } from "effect"
import type { Service, ThreadInfo } from "./service.js"
import * as Codec from "./codec.js"
import { alreadyExists, conflict, notFound } from "./error.js"

interface Entry {
  readonly id: string
  readonly createdAt: string
  readonly config: string
  /** Encoded records, seq = index + 1; appended in place (the array never escapes this module). */
  readonly records: Array<{ readonly kind: string; readonly event: string }>
}

/**
 * The memory store. Records are kept as the same JSON text the SQL layers write, so that every layer
 * hands out fresh values and rejects the same events. Each operation is one synchronous step, hence atomic.
 */
export const make: Effect.Effect<Service> = Effect.sync(() => {
  const threads = new Map<string, Entry>()

  const info = (entry: Entry) =>
    Either.map(
      Codec.decodeConfig(entry.id, entry.config),
      (config): ThreadInfo => ({ id: entry.id, createdAt: entry.createdAt, config })
    )

  const entryOf = (id: string) => {
    const entry = threads.get(id)
    return entry === undefined ? Either.left(notFound(id)) : Either.right(entry)
  }

  const recordsFrom = (entry: Entry, from: number, to?: number) =>
    Codec.decodeAll(
      entry.id,
      entry.records.slice(from, to).map((r, i) => ({ seq: from + i + 1, event: r.event }))
    )

  return {
    create: Effect.fn("ThreadStore.create")(function* (thread: ThreadInfo) {
      const config = yield* Codec.encodeConfig(thread.id, thread.config)
      if (threads.has(thread.id)) return yield* Effect.fail(alreadyExists(thread.id))
      threads.set(thread.id, { id: thread.id, createdAt: thread.createdAt, config, records: [] })
    }),
    get: Effect.fn("ThreadStore.get")(function* (id: string) {
      const entry = threads.get(id)
      if (entry === undefined) return Option.none()
      return Option.some(yield* info(entry))
    }),
    list: Effect.fn("ThreadStore.list")(function* () {
      const entries = [...threads.values()].sort((a, b) =>
        a.createdAt === b.createdAt ? (a.id < b.id ? -1 : a.id > b.id ? 1 : 0) : a.createdAt < b.createdAt ? 1 : -1
      )
      const infos: Array<ThreadInfo> = []
      for (const entry of entries) infos.push(yield* info(entry))
      return infos
    }),
    remove: Effect.fn("ThreadStore.remove")((id: string) => Effect.sync(() => threads.delete(id))),
    append: Effect.fn("ThreadStore.append")(function* (id: string, expectedSeq: number, event) {
      const entry = yield* entryOf(id)
      const text = yield* Codec.encode(id, event)
      if (entry.records.length !== expectedSeq) return yield* Effect.fail(conflict(id))
      entry.records.push({ kind: event._tag, event: text })
      return entry.records.length
    }),
    load: Effect.fn("ThreadStore.load")(function* (id: string) {
      const entry = yield* entryOf(id)
      const thread = yield* info(entry)
      let from = entry.records.length - 1
      while (from >= 0 && entry.records[from]!.kind !== "compacted") from--
      const records = yield* recordsFrom(entry, Math.max(from, 0))
      return { thread, records, lastSeq: entry.records.length }
    }),
    since: Effect.fn("ThreadStore.since")(function* (id: string, seq: number) {
      const entry = yield* entryOf(id)
      return yield* recordsFrom(entry, Math.min(Math.max(Math.floor(seq), 0), entry.records.length))
    }),
    sincePages: (id, seq, onPage) =>
      Effect.gen(function* () {
        const entry = yield* entryOf(id)
        let last = Math.floor(seq)
        // Up to the length at the start: records appended while a page is handled are not handed over.
        const end = entry.records.length
        for (let from = Math.max(last, 0); from < end; from = last) {
          last = Math.min(from + Codec.pageRows, end)
          yield* onPage(yield* recordsFrom(entry, from, last))
        }
        return last
      }).pipe(Effect.withSpan("ThreadStore.sincePages")),
    lastSeq: Effect.fn("ThreadStore.lastSeq")(function* (id: string) {
      const entry = yield* entryOf(id)
      return entry.records.length
    })
  }
})
