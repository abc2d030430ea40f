import { ThreadEvent } from "@mcp-resources/protocol"
import { Either, ParseResult, Schema } from "effect"
import { isRecord as isObject } from "@mcp-resources/protocol/Records"
import type { StoredRecord } from "./service.js"
import { storage, type ThreadStoreError } from "./error.js"

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

type Json = Record<string, unknown>

const optString = (u: unknown): boolean => u === undefined || typeof u === "string"
/** Every own key of `o` is in `allowed` (JSON.parse gives plain objects with own enumerable keys only). */
const onlyKeys = (o: Json, allowed: ReadonlySet<string>): boolean => {
  for (const key in o) if (!allowed.has(key)) return false
  return true
}

const turnKeys = new Set(["_tag", "turnId"])
const rollbackKeys = new Set(["_tag", "numTurns"])
const itemEventKeys = new Set(["_tag", "turnId", "item"])
const itemKeys = new Set([
  "type",
  "id",
  "server",
  "tool",
  "arguments",
  "status",
  "result",
  "error",
  "durationMs",
  "connectorId",
  "linkId",
  "mcpAppResourceUri",
  "initiator",
  "originCallId"
])
const errorKeys = new Set(["message"])

/** A subset of what `Mcp.CallToolResult` accepts (content blocks with a string `type`, JSON objects, a boolean). */
const isCallToolResult = (u: unknown): boolean => {
  if (!isObject(u)) return false
  const content = u.content
  if (!Array.isArray(content)) return false
  for (const block of content) if (!isObject(block) || typeof block.type !== "string") return false
  return (
    (u.structuredContent === undefined || isObject(u.structuredContent)) &&
    (u.isError === undefined || typeof u.isError === "boolean") &&
    (u._meta === undefined || isObject(u._meta))
  )
}

/** A subset of what `ToolCallItem.McpToolCallItem` accepts, with no key it does not know. */
const isItem = (u: unknown): boolean =>
  isObject(u) &&
  u.type === "mcpToolCall" &&
  typeof u.id === "string" &&
  typeof u.server === "string" &&
  typeof u.tool === "string" &&
  Object.hasOwn(u, "arguments") &&
  (u.status === "completed" || u.status === "inProgress" || u.status === "failed") &&
  (u.result === null || isCallToolResult(u.result)) &&
  (u.error === null || (isObject(u.error) && typeof u.error.message === "string" && onlyKeys(u.error, errorKeys))) &&
  (u.durationMs === null || typeof u.durationMs === "number") &&
  optString(u.connectorId) &&
  optString(u.linkId) &&
  optString(u.mcpAppResourceUri) &&
  (u.initiator === undefined || u.initiator === "widget") &&
  optString(u.originCallId) &&
  onlyKeys(u, itemKeys)

/**
 * The fast path for the events the app-server records most (turn starts, items, rollbacks): the parsed
 * JSON is the decoded event when it has exactly the shape the schema decodes to, as our encoder writes
 * it. Anything else (other events, unknown keys, invalid JSON or values) goes through the schema,
 * which then gives the same result or the same error as always.
 */
const quick = (text: string): ThreadEvent.ThreadEvent | undefined => {
  let u: unknown
  try {
    u = JSON.parse(text)
  } catch {
    return undefined
  }
  if (!isObject(u)) return undefined
  switch (u._tag) {
    case "turnStarted":
      return typeof u.turnId === "string" && onlyKeys(u, turnKeys) ? (u as ThreadEvent.ThreadEvent) : undefined
    case "itemStarted":
    case "itemCompleted":
      return typeof u.turnId === "string" && isItem(u.item) && onlyKeys(u, itemEventKeys)
        ? (u as ThreadEvent.ThreadEvent)
        : undefined
    case "threadRolledBack":
      return Number.isSafeInteger(u.numTurns) && (u.numTurns as number) >= 0 && onlyKeys(u, rollbackKeys)
        ? (u as ThreadEvent.ThreadEvent)
        : undefined
    default:
      return undefined
  }
}

/** A stored record; a record that does not decode is a storage error naming the thread and the sequence number. */
export const decode = (threadId: string, seq: number, text: unknown): Either.Either<StoredRecord, ThreadStoreError> => {
  const event = typeof text === "string" ? quick(text) : undefined
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
