/**
 * Malformed answers fail at once. The SDK drops a response that is not a JSON-RPC response
 * (`result: null`, `[]`, a string, neither result nor error, an `error` without a string `message` or
 * an integer `code`, both `result` and `error`, a key JSON-RPC does not define) as an unknown message,
 * so the request it answers would wait for its whole timeout. The guard sees every message before the
 * SDK does and turns such an answer to one of our requests into an error response that names what is
 * invalid; {@link invalidResponseMessage} recognises it again on the way out.
 */
import { Messages, Records } from "@mcp-resources/protocol"
import type { JSONRPCMessage, Transport } from "@modelcontextprotocol/client"
import { isRecord } from "@mcp-resources/protocol/Records"
import { type Receive, wrapOnMessage } from "./onMessage.js"

/** The key of the error data that marks an error response made by the guard. */
const marker = "mcp-resources/invalidResponse"

/**
 * Where a result's `resultType` travels past the SDK on an `initialize`-era connection: the SDK
 * drops the field there, but a result keeps every field the server sent (a `tools/call` result is
 * handed on as the server's own object) and `input_required` must still be recognised.
 */
const resultTypeKey = "mcp-resources/resultType"

/** The result with `resultTypeKey` renamed back to `resultType`, in the same place (the same object when absent). */
export const restoreResultType = (raw: unknown): unknown => {
  if (!isRecord(raw) || !Object.hasOwn(raw, resultTypeKey)) return raw
  const out: Record<string, unknown> = {}
  for (const key of Object.keys(raw)) Records.setOwn(out, key === resultTypeKey ? "resultType" : key, raw[key])
  return out
}

/** `result` with `resultType` renamed to `resultTypeKey`, in the same place. */
const hideResultType = (result: Readonly<Record<string, unknown>>): Record<string, unknown> => {
  const out: Record<string, unknown> = {}
  for (const key of Object.keys(result)) Records.setOwn(out, key === "resultType" ? resultTypeKey : key, result[key])
  return out
}

/** What the guard does besides refusing malformed answers. */
export interface Guard {
  /** Set once the connection speaks the `initialize` era: results keep their `resultType` past the SDK. */
  keepResultType: boolean
}

/** At most this many unanswered requests are remembered per connection. */
const maxPending = 4096

const kindOf = (value: unknown): string =>
  value === null
    ? "null"
    : Array.isArray(value)
      ? "an array"
      : typeof value === "object"
        ? "object"
        : `a ${typeof value}`

/**
 * Where the event-stream filter leaves the kind of a malformed answer it found (see
 * {@link markMalformedAnswer}): a result object the SDK lets through, that the guard then refuses.
 */
const malformedKey = "mcp-resources/malformedResult"

/** The keys a JSON-RPC response may have (the SDK drops one with any other key). */
const responseKeys: ReadonlySet<string> = new Set(["jsonrpc", "id", "result", "error"])

/** Marks a problem of the response itself (not of its result's kind) in what {@link invalidAnswer} returns. */
const responseProblem = "response: "

/** The message of a request whose answer had `problem` (from {@link invalidAnswer}). */
const problemMessage = (method: string, problem: string): string =>
  problem.startsWith(responseProblem)
    ? Messages.invalidResponse(method, problem.slice(responseProblem.length))
    : Messages.invalidResponseBody(method, problem)

/** What is wrong with the response itself, besides its result ({@link Messages.invalidResponseWhat}). */
const responseWhat = (raw: Readonly<Record<string, unknown>>): string | undefined => {
  const what = Messages.invalidResponseWhat
  if (Object.hasOwn(raw, "error") && Object.hasOwn(raw, "result")) return what.both
  if (raw.jsonrpc !== "2.0") return what.jsonrpc
  const extra = Object.keys(raw).find((key) => !responseKeys.has(key))
  if (extra !== undefined) return what.unexpectedKey(extra)
  if (!Object.hasOwn(raw, "error")) return undefined
  const error = raw.error
  if (!isRecord(error)) return what.error(kindOf(error))
  if (!Object.hasOwn(error, "code")) return what.errorMissing("code")
  if (typeof error.code !== "number" || !Number.isInteger(error.code)) return what.errorCode(kindOf(error.code))
  if (!Object.hasOwn(error, "message")) return what.errorMissing("message")
  if (typeof error.message !== "string") return what.errorMessage(kindOf(error.message))
  return undefined
}

/**
 * What is wrong with an answer (`raw` has an id and no method): the kind of its result (`missing`,
 * `null`, `a string`, … for {@link Messages.invalidResponseBody}) or a problem of the response itself;
 * undefined when the SDK reads it as a result or an error response.
 */
const invalidAnswer = (raw: Readonly<Record<string, unknown>>): string | undefined => {
  const what = responseWhat(raw)
  if (what !== undefined) return `${responseProblem}${what}`
  if (Object.hasOwn(raw, "error")) return undefined
  if (!isRecord(raw.result)) return Object.hasOwn(raw, "result") ? kindOf(raw.result) : "missing"
  const marked = raw.result[malformedKey]
  return typeof marked === "string" ? marked : undefined
}

/** A text that looks like a result: not parsed again (responses can be large). */
const resultShape = /"result"\s*:\s*\{/

/** A text that names JSON-RPC 2.0. */
const version = /"jsonrpc"\s*:\s*"2\.0"/

/**
 * An answer that the SDK's HTTP transport would drop unseen (inside a `text/event-stream` it parses
 * each event and discards one that is not a JSON-RPC message, so the request it answers would wait
 * for its whole timeout), rewritten into a message it passes on and the guard refuses by name; the
 * same text when `data` is not such an answer.
 */
export const markMalformedAnswer = (data: string): string => {
  // cheap refusals first: requests and notifications carry a method, and a flood of them passes here
  // a 2.0 result without an `"error"` anywhere is left to the SDK (errors are small; results can be
  // large, so a result's other keys are not checked here)
  if (
    data.includes('"method"') ||
    !data.includes('"id"') ||
    (resultShape.test(data) && !data.includes('"error"') && version.test(data))
  ) {
    return data
  }
  let raw: unknown
  try {
    raw = JSON.parse(data)
  } catch {
    return data // not JSON: nothing ties it to a request
  }
  if (!isRecord(raw) || "method" in raw || (typeof raw.id !== "string" && typeof raw.id !== "number")) return data
  const kind = invalidAnswer(raw)
  return kind === undefined ? data : JSON.stringify({ jsonrpc: "2.0", id: raw.id, result: { [malformedKey]: kind } })
}

/** The guard's message when `data` is the data of an error response the guard made. */
export const invalidResponseMessage = (data: unknown): string | undefined => {
  if (!isRecord(data)) return undefined
  const message = data[marker]
  return typeof message === "string" ? message : undefined
}

/**
 * Installs the guard on `transport` (before the SDK client connects it): outgoing requests are
 * remembered by id until answered; an answer to one of them that is not a JSON-RPC response with an
 * object `result` or a well-formed `error` is replaced by an error response. The transport object stays the same
 * (the SDK recognises some transports by class).
 */
export const guardResponses = (transport: Transport): Guard => {
  const state: Guard = { keepResultType: false }
  const pending = new Map<string | number, string>()
  const guard =
    (receive: Receive): Receive =>
    (message, extra) => {
      const raw = message as unknown
      if (isRecord(raw) && !("method" in raw) && (typeof raw.id === "string" || typeof raw.id === "number")) {
        const method = pending.get(raw.id)
        if (method !== undefined) {
          pending.delete(raw.id)
          const invalid = invalidAnswer(raw)
          if (invalid !== undefined) {
            const text = problemMessage(method, invalid)
            const replaced = {
              jsonrpc: "2.0",
              id: raw.id,
              error: { code: -32603, message: text, data: { [marker]: text } }
            } as unknown as JSONRPCMessage
            receive(replaced, extra)
            return
          }
          if (
            state.keepResultType &&
            "result" in raw &&
            isRecord(raw.result) &&
            Object.hasOwn(raw.result, "resultType")
          ) {
            receive({ ...raw, result: hideResultType(raw.result) } as unknown as JSONRPCMessage, extra)
            return
          }
        }
      }
      receive(message, extra)
    }
  // whoever installs a handler (the SDK client, a wrapper around it) gets it guarded
  wrapOnMessage(transport, guard)
  const send = transport.send.bind(transport)
  transport.send = (message, options) => {
    const raw = message as unknown
    if (isRecord(raw) && typeof raw.method === "string" && (typeof raw.id === "string" || typeof raw.id === "number")) {
      // requests that are never answered (cancelled, timed out) must not accumulate
      if (pending.size >= maxPending) pending.delete(pending.keys().next().value!)
      pending.set(raw.id, raw.method)
    }
    return send(message, options)
  }
  return state
}
