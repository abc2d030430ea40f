/**
 * The notification gate of one connection: it sees every incoming message before the SDK does
 * (over stdio and HTTP alike) and keeps a server's notification flood from costing the process —
 * and so every other server's requests — one SDK dispatch per notification.
 *
 * - A notification nobody here handles (`notifications/message`: no logging handler is installed) is
 *   dropped before the SDK validates and dispatches it.
 * - A change notification (`notifications/resources/updated` per uri, `.../list_changed` per list,
 *   `notifications/progress` per token, the latest winning) is held and merged with a pending one for
 *   the same target: a flood reaches the SDK as one notification per distinct target.
 * - Held notifications are handed on at the end of the event-loop turn, and before any other message
 *   (a response, a request, an unknown notification), so that the order between changes and answers
 *   stays as the server sent it. Nothing held is dropped; past `maxHeld` distinct targets the held
 *   ones are handed on at once (bounded memory).
 */
import type { JSONRPCMessage, Transport } from "@modelcontextprotocol/client"
import { type Receive, wrapOnMessage } from "./onMessage.js"
import { markMalformedAnswer } from "./responseGuard.js"

type Extra = Parameters<Receive>[1]

/** Distinct targets held before they are handed on at once. */
export const maxHeld = 1024

/**
 * Notifications dropped before the SDK: nothing here handles them (no logging handler is installed,
 * and no request of ours carries a progress token, so a progress notification has no taker).
 */
const unhandled = new Set(["notifications/message", "notifications/progress"])

const modernPrefix = '{"jsonrpc":"2.0",'
const dropMethods = ['"method":"notifications/message"', '"method":"notifications/progress"'] as const

/**
 * Whether a stdio line is, without parsing it, certainly a notification that {@link gateNotifications}
 * would drop: it begins with its method (after `"jsonrpc":"2.0"` or not), names a method only once,
 * has no `"id"` and no `\u` escape (so no key can hide in another spelling), and says `"jsonrpc":"2.0"`.
 * Anything else is parsed and goes through the gate as usual.
 */
export const droppableLine = (line: string): boolean => {
  if (!line.startsWith("{")) return false
  const at = line.startsWith(modernPrefix) ? modernPrefix.length : 1
  if (!(line.startsWith(dropMethods[0], at) || line.startsWith(dropMethods[1], at))) return false
  return (
    line.indexOf('"method"') === line.lastIndexOf('"method"') &&
    !line.includes('"id"') &&
    !line.includes("\\u") &&
    line.includes('"jsonrpc":"2.0"')
  )
}

/** Notifications merged per method alone. */
const perMethod = new Set([
  "notifications/resources/list_changed",
  "notifications/tools/list_changed",
  "notifications/prompts/list_changed"
])

const isRecord = (u: unknown): u is Readonly<Record<string, unknown>> =>
  typeof u === "object" && u !== null && !Array.isArray(u)

/** The target a notification merges on, or undefined when it is not merged. */
const targetOf = (method: string, params: unknown): string | undefined => {
  if (perMethod.has(method)) return method
  if (!isRecord(params)) return undefined
  if (method === "notifications/resources/updated" && typeof params.uri === "string")
    return `updated\u0000${params.uri}`
  if (method === "notifications/progress") {
    const token = params.progressToken
    if (typeof token === "string" || typeof token === "number") return `progress\u0000${typeof token}\u0000${token}`
  }
  return undefined
}

/** What the gate counted on its connection. */
export interface GateStats {
  /** Notifications received. */
  received: number
  /** Notifications handed on to the SDK. */
  delivered: number
  /** Notifications nobody handles, dropped. */
  dropped: number
}

/**
 * Installs the gate on `transport` (before the SDK client connects it); a handler installed earlier
 * as an accessor (the response guard) keeps working in front of it. The transport object stays the same.
 */
export const gateNotifications = (transport: Transport): GateStats => {
  const stats: GateStats = { received: 0, delivered: 0, dropped: 0 }
  const gate = (receive: Receive): Receive => {
    let held = new Map<string, { readonly message: JSONRPCMessage; readonly extra: Extra }>()
    let scheduled: NodeJS.Immediate | undefined
    const flush = () => {
      if (scheduled !== undefined) {
        clearImmediate(scheduled)
        scheduled = undefined
      }
      if (held.size === 0) return
      const out = held
      held = new Map()
      for (const { message, extra } of out.values()) {
        stats.delivered += 1
        receive(message, extra)
      }
    }
    return (message, extra) => {
      const raw = message as unknown
      if (isRecord(raw) && typeof raw.method === "string" && !("id" in raw)) {
        stats.received += 1
        if (unhandled.has(raw.method)) {
          stats.dropped += 1
          return
        }
        const target = targetOf(raw.method, raw.params)
        if (target !== undefined) {
          // the latest of a target wins (a progress value supersedes the earlier ones); its place stays
          held.set(target, { message, extra })
          if (held.size >= maxHeld) flush()
          else scheduled ??= setImmediate(flush)
          return
        }
        flush()
        stats.delivered += 1
        receive(message, extra)
        return
      }
      flush()
      receive(message, extra)
    }
  }
  wrapOnMessage(transport, gate)
  return stats
}

/** The end of an event in a `text/event-stream` (a blank line, in any of the three line endings). */
const eventEnd = /\r\n\r\n|\n\n|\r\r/

/**
 * One event of a `text/event-stream` without its notification when that notification certainly is
 * one nothing handles ({@link droppableLine}): its `id:` lines stay (the stream's last event id still
 * advances, so a resumed stream does not replay it), its data goes. An answer the SDK would drop
 * unseen is marked for the response guard ({@link markMalformedAnswer}). Any other event is kept as it is.
 */
export const filterEvent = (event: string): string => {
  const lines = event.split(/\r\n|\n|\r/)
  const data = lines.filter((line) => line.startsWith("data:"))
  if (data.length !== 1) return event
  const value = data[0]!.startsWith("data: ") ? data[0]!.slice(6) : data[0]!.slice(5)
  if (droppableLine(value)) return lines.filter((line) => line.startsWith("id:")).join("\n")
  const marked = markMalformedAnswer(value)
  return marked === value
    ? event
    : lines.map((line) => (line.startsWith("data:") ? `data: ${marked}` : line)).join("\n")
}

/**
 * A `text/event-stream` body without the notifications nothing handles (see {@link filterEvent}), so
 * that the SDK's HTTP transport does not parse and validate each of a flood. Events are passed on
 * whole, in order; a dropped event without an id leaves nothing.
 */
export const filterEventStream = (body: ReadableStream<Uint8Array>): ReadableStream<Uint8Array> => {
  const decoder = new TextDecoder()
  const encoder = new TextEncoder()
  let pending = ""
  return body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        pending += decoder.decode(chunk, { stream: true })
        let out = ""
        let match = eventEnd.exec(pending)
        while (match !== null) {
          const kept = filterEvent(pending.slice(0, match.index))
          if (kept !== "") out += `${kept}\n\n`
          pending = pending.slice(match.index + match[0].length)
          match = eventEnd.exec(pending)
        }
        if (out !== "") controller.enqueue(encoder.encode(out))
      },
      flush(controller) {
        const rest = pending + decoder.decode()
        if (rest !== "") controller.enqueue(encoder.encode(rest))
      }
    })
  )
}
