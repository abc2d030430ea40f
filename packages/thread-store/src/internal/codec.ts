import { ThreadEvent } from "@mcp-resources/protocol"
import { Either, ParseResult, Schema } from "effect"
import type { StoredRecord } from "./service.js"
import { storage, type ThreadStoreError } from "./error.js"
import { storedEvent } from "./fastPaths.js"

const EventJson = Schema.parseJson(ThreadEvent.ThreadEvent)
const encodeEvent = Schema.encodeEither(EventJson)
const decodeEvent = Schema.decodeUnknownEither(EventJson)
const ConfigJson = Schema.parseJson(Schema.Unknown)
const encodeConfigJson = Schema.encodeEither(ConfigJson)
const decodeConfigJson = Schema.decodeUnknownEither(ConfigJson)

const firstIssue = (error: ParseResult.ParseError): string => {
  const issue = ParseResult.ArrayFormatter.formatErrorSync(error)[0]
  if (issue === undefined) return error.message
  return issue.path.length === 0 ? issue.message : `${issue.path.join(".")}: ${issue.message}`
}

/** The event as JSON text, keys in schema order. */
export const encode = (threadId: string, event: ThreadEvent.ThreadEvent): Either.Either<string, ThreadStoreError> =>
  Either.mapLeft(encodeEvent(event), (e) => storage(`cannot store an event of thread ${threadId}`, firstIssue(e)))

/** A stored record; a record that does not decode is a storage error naming the thread and the sequence number. */
export const decode = (threadId: string, seq: number, text: unknown): Either.Either<StoredRecord, ThreadStoreError> => {
  const event = typeof text === "string" ? storedEvent(text) : undefined
  if (event !== undefined) return Either.right({ seq, event })
  return Either.match(decodeEvent(text), {
    onLeft: (e) => Either.left(storage(`corrupt record ${seq} of thread ${threadId}`, firstIssue(e))),
    onRight: (event) => Either.right({ seq, event })
  })
}

/** The most records per page when a thread's records are read: one query and its decoding stay short. */
export const pageRows = 1024

/** Decodes stored rows in order, stopping at the first corrupt one. */
export const decodeAll = (
  threadId: string,
  rows: ReadonlyArray<{ readonly seq: number; readonly event: unknown }>
): Either.Either<ReadonlyArray<StoredRecord>, ThreadStoreError> => {
  const records: Array<StoredRecord> = []
  for (const row of rows) {
    const decoded = decode(threadId, Number(row.seq), row.event)
    if (Either.isLeft(decoded)) return Either.left(decoded.left)
    records.push(decoded.right)
  }
  return Either.right(records)
}

/** A thread's config override as JSON text (`null` when absent). */
export const encodeConfig = (threadId: string, config: unknown): Either.Either<string, ThreadStoreError> =>
  Either.mapLeft(encodeConfigJson(config === undefined ? null : config), (e) =>
    storage(`cannot store the config of thread ${threadId}`, firstIssue(e))
  )

/** The stored config override back as JSON. */
export const decodeConfig = (threadId: string, text: unknown): Either.Either<unknown, ThreadStoreError> =>
  text === null || text === undefined
    ? Either.right(null)
    : Either.mapLeft(decodeConfigJson(text), (e) => storage(`corrupt config of thread ${threadId}`, firstIssue(e)))
