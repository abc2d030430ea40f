/**
 * The notification gate of one connection: it sees every incoming message before the SDK does
 * (over stdio and HTTP alike) and keeps a server's notification flood from costing the process —
 * and so every other server's requests — more than a constant amount of work per notification.
 *
 * - A notification nobody here handles (`notifications/message`: no logging handler is installed;
 *   `notifications/progress`; `notifications/prompts/list_changed`) is dropped before the SDK
 *   validates and dispatches it.
 * - A change notification (`notifications/resources/updated` with a uri, `.../resources/list_changed`,
 *   `.../tools/list_changed`) is applied here, at once, to the connection's own {@link Sink}: a set
 *   insertion or a flag. It never reaches the SDK, whose dispatch (schema checks, a promise per
 *   notification) cost tens of microseconds and several allocations each — enough, for a flood of
 *   distinct uris, to keep the event loop busy and every other server's answer waiting. The sink's
 *   queue is the first step of the change path (`changes.ts`), which coalesces (one pending entry per
 *   uri, one run at a time per server), so a flood of any size costs the work after it once per run. Being applied as they arrive, changes keep their order with the
 *   answers around them.
 * - Anything else (answers, requests, other notifications, a change notification without a uri)
 *   reaches the SDK as it is.
 */
import type { Transport } from "@modelcontextprotocol/client"
import { isRecord } from "@mcp-resources/protocol/Records"
import type { ChangeQueue } from "./changes.js"
import type { Signal } from "./onDemand.js"
import { type Receive, wrapOnMessage } from "./onMessage.js"
import { markMalformedAnswer } from "./responseGuard.js"

/**
 * Notifications dropped before the SDK: nothing here handles them (no logging handler is installed,
 * no request of ours carries a progress token, and prompts are not used).
 */
const unhandled = new Set(["notifications/message", "notifications/progress", "notifications/prompts/list_changed"])

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

/** Where a connection's change notifications go: its own coalescing queue and signal. */
export interface Sink {
  /** `notifications/resources/list_changed` and `.../updated`. */
  readonly resourceChanges: ChangeQueue
  /** `notifications/tools/list_changed`. */
  readonly toolsChanged: Signal
}

/** Applies a change notification to `sink`; false when it is not one the gate applies. */
const apply = (sink: Sink, method: string, params: unknown): boolean => {
  switch (method) {
    case "notifications/resources/updated": {
      const uri = isRecord(params) ? params.uri : undefined
      if (typeof uri !== "string") return false
      sink.resourceChanges.offer({ _tag: "updated", uri })
      return true
    }
    case "notifications/resources/list_changed":
      sink.resourceChanges.offer({ _tag: "listChanged" })
      return true
    case "notifications/tools/list_changed":
      sink.toolsChanged.fire()
      return true
    default:
      return false
  }
}

/** What the gate counted on its connection. */
export interface GateStats {
  /** Notifications received. */
  received: number
  /** Change notifications applied to the sink (not handed to the SDK). */
  applied: number
  /** Notifications handed on to the SDK. */
  delivered: number
  /** Notifications nobody handles, dropped. */
  dropped: number
}

/**
 * Installs the gate on `transport` (before the SDK client connects it), applying change notifications
 * to `sink`; a handler installed earlier as an accessor (the response guard) keeps working in front
 * of it. The transport object stays the same.
 */
export const gateNotifications = (transport: Transport, sink: Sink): GateStats => {
  const stats: GateStats = { received: 0, applied: 0, delivered: 0, dropped: 0 }
  const gate =
    (receive: Receive): Receive =>
    (message, extra) => {
      const raw = message as unknown
      if (isRecord(raw) && typeof raw.method === "string" && !("id" in raw)) {
        stats.received += 1
        if (unhandled.has(raw.method)) {
          stats.dropped += 1
          return
        }
        if (apply(sink, raw.method, raw.params)) {
          stats.applied += 1
          return
        }
        stats.delivered += 1
      }
      receive(message, extra)
    }
  wrapOnMessage(transport, gate)
  // an HTTP connection's event streams apply change notifications before the SDK's transport parses them
  if (gatesStreams(transport)) transport.streamGate.sink = sink
  return stats
}

/**
 * Where the change notifications of one HTTP connection's event streams go: the connection's
 * {@link Sink}, set by {@link gateNotifications} once the connection has one. Until then (and on
 * transports without streams) they reach the SDK and the gate as any message does.
 */
export interface StreamGate {
  sink: Sink | undefined
}

/** A transport whose event streams pass a {@link StreamGate} (the HTTP transports made in transports.ts). */
export interface GatesStreams {
  readonly streamGate: StreamGate
}

const gatesStreams = (transport: Transport): transport is Transport & GatesStreams =>
  typeof (transport as Partial<GatesStreams>).streamGate === "object"

/** The end of an event in a `text/event-stream` (a blank line, in any of the three line endings). */
const eventEnd = /\r\n\r\n|\n\n|\r\r/

/** Methods a change notification may name, as they appear in its JSON text. */
const changeMarkers = [
  '"notifications/resources/updated"',
  '"notifications/resources/list_changed"',
  '"notifications/tools/list_changed"'
] as const

/**
 * Applies `value` (one event's data) to `sink` when it is a change notification the gate applies,
 * parsed once here rather than validated by the SDK's transport; false for anything else.
 */
const applyEventData = (value: string, sink: Sink): boolean => {
  if (!changeMarkers.some((marker) => value.includes(marker))) return false
  let message: unknown
  try {
    message = JSON.parse(value)
  } catch {
    return false
  }
  if (!isRecord(message) || typeof message.method !== "string" || "id" in message || message.jsonrpc !== "2.0") {
    return false
  }
  return apply(sink, message.method, message.params)
}

/**
 * One event of a `text/event-stream` without its notification when that notification certainly is
 * one nothing handles ({@link droppableLine}) or, with a `sink`, a change notification, applied to the
 * sink here (so that a flood of them is not parsed and validated by the SDK's transport): its `id:`
 * lines stay (the stream's last event id still advances, so a resumed stream does not replay it), its
 * data goes. An answer the SDK would drop unseen is marked for the response guard
 * ({@link markMalformedAnswer}). Any other event is kept as it is.
 */
export const filterEvent = (event: string, sink?: Sink): string => {
  const lines = event.split(/\r\n|\n|\r/)
  const data = lines.filter((line) => line.startsWith("data:"))
  if (data.length !== 1) return event
  const value = data[0]!.startsWith("data: ") ? data[0]!.slice(6) : data[0]!.slice(5)
  if (droppableLine(value) || (sink !== undefined && applyEventData(value, sink))) {
    return lines.filter((line) => line.startsWith("id:")).join("\n")
  }
  const marked = markMalformedAnswer(value)
  return marked === value
    ? event
    : lines.map((line) => (line.startsWith("data:") ? `data: ${marked}` : line)).join("\n")
}

/**
 * A `text/event-stream` body without the notifications nothing handles and, once `gate` has a sink,
 * without the change notifications (applied to the sink as they arrive; see {@link filterEvent}), so
 * that the SDK's HTTP transport does not parse and validate each of a flood. Events are passed on
 * whole, in order; a dropped event without an id leaves nothing.
 */
export const filterEventStream = (
  body: ReadableStream<Uint8Array>,
  gate: StreamGate = { sink: undefined }
): ReadableStream<Uint8Array> => {
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
          const kept = filterEvent(pending.slice(0, match.index), gate.sink)
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
