/**
 * The thread store's fast paths, all of them: each does exactly what the plain version named in its
 * comment does, without the schema machinery (`test/FastPaths.test.ts` holds it to that), and names the
 * BENCHMARKS.md row that measured the gain. Where the bench shows no gain, the plain version is used
 * instead and the fast path is removed from here.
 */
import type { ThreadEvent } from "@mcp-resources/protocol"
import { isRecord as isObject } from "@mcp-resources/protocol/Records"

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
 * The stored event of the kinds the app-server records most (turn starts, items, rollbacks): the
 * parsed JSON is the decoded event when it has exactly the shape the schema decodes to, as our encoder
 * writes it. Undefined for anything else (other events, unknown keys, invalid JSON or values), which
 * goes through the schema, which then gives the same result or the same error as always. The plain
 * version is `Schema.decodeUnknownEither(Schema.parseJson(ThreadEvent.ThreadEvent))`.
 * BENCHMARKS.md, "Reading the results", first round, "Resume (5)": "Stored events of the common kinds
 * decode through a strict shape check" (row "5. resume: checkpoint + 10k events | load +
 * OriginState.rebuild"; also "Resume (scenario 5) and the thread-store codec").
 */
export const storedEvent = (text: string): ThreadEvent.ThreadEvent | undefined => {
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
