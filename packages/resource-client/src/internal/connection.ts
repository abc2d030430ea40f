/**
 * One MCP connection over the SDK (`@modelcontextprotocol/client`, the only place that touches it at
 * run time): opening it (transport, era negotiation, handshake) and closing it. The transport choice
 * is in `transports.ts`, the request path in `request.ts`, what failures mean in `failures.ts`.
 */
import { Errors, McpSkills, Messages, Widget } from "@mcp-resources/protocol"
import type { Client, McpSubscription, PriorDiscovery, Transport } from "@modelcontextprotocol/client"
import { Cause, Clock, Effect, type Either, ExecutionStrategy, Exit, Option, Runtime, Scope } from "effect"
import type * as ServerRequests from "../ServerRequests.js"
import type { ServerEntry } from "../ServerEntry.js"
import {
  httpConnectionLost,
  noStream,
  redactedError,
  redactorOf,
  refusedForRevision,
  sseConnectionLost,
  startupFailure
} from "./failures.js"
import { type Hold, InFlightList, keepRaw, makeRequester, maxTimerMillis, timerOn, type Wire } from "./request.js"
import { gateNotifications } from "./notificationGate.js"
import { type Receive, wrapOnMessage } from "./onMessage.js"
import * as Sdk from "./sdk.js"
import { ChangeQueue } from "./changes.js"
import * as Detection from "./detection.js"
import { Background, Signal } from "./onDemand.js"
import { guardResponses } from "./responseGuard.js"
import { attribute, elicit, pausing } from "./serverRequests.js"
import { MessageTooLargeError, StdioTransport } from "./stdioTransport.js"
import {
  asSse,
  type HttpTrace,
  type HttpTransportKind,
  httpTrace,
  httpTransportKind,
  sseFallbackStatuses,
  type TransportFactory,
  tracedHttpTransport,
  tracedSseTransport
} from "./transports.js"

export { decodeResult, decodeResultEither, type Hold } from "./request.js"
export { asSse, type HttpTransportKind, makeTransport, type TransportFactory, transportKind } from "./transports.js"

/** The name and version the client announces in `initialize`. */
export const clientInfo = { name: "mcp-resources", version: "0.1.0" } as const

/**
 * Extra milliseconds the handshake's own bound (on the current clock) is given beyond the startup
 * timeout, so that the caller's startup timeout (the same time, started earlier) comes first.
 */
const handshakeMargin = 1000

/**
 * The promise `run(signal)` starts, bounded by `millis` on the current clock through the request
 * path's one timer (`timerOn`): once they passed, the signal is aborted and the effect fails with
 * `onTimeout()`; a rejection fails it with `onFailure(error)`; interrupting it aborts the signal. One
 * async step with no fiber of its own, so that the bound holds also where the caller cannot be
 * interrupted (a connection set's publish, a subscription book's lock): a race there would wait for
 * its loser.
 */
const promiseWithin = <A, E>(
  run: (signal: AbortSignal) => Promise<A>,
  millis: number,
  onFailure: (error: unknown) => E,
  onTimeout: () => E
): Effect.Effect<A, E> =>
  Effect.clockWith((clock) =>
    Effect.async<A, E>((resume) => {
      const controller = new AbortController()
      let settled = false
      const cancel = timerOn(clock, millis, () => {
        if (settled) return
        settled = true
        controller.abort()
        resume(Effect.fail(onTimeout()))
      })
      const settle = (effect: Effect.Effect<A, E>) => {
        if (settled) return
        settled = true
        cancel()
        resume(effect)
      }
      try {
        run(controller.signal).then(
          (value) => settle(Effect.succeed(value)),
          (error) => settle(Effect.fail(onFailure(error)))
        )
      } catch (error) {
        settle(Effect.fail(onFailure(error)))
      }
      return Effect.sync(() => {
        if (settled) return
        settled = true
        cancel()
        controller.abort()
      })
    })
  )

/** Every revision of the `initialize` era the SDK negotiates, newest first. */
export const legacyRevisions = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"] as const

/** The revision of the `server/discover` era. */
export const modernRevision = "2026-07-28"

/** What a server declared in its `initialize` (or `server/discover`) result that we branch on. */
export interface Capabilities {
  readonly resources: boolean
  readonly tools: boolean
  /** `completions` declared: `completion/complete` may be sent. */
  readonly completions: boolean
  /** `resources.subscribe` declared: `resources/subscribe` (or, on 2026-07-28, `resourceSubscriptions` of a listen) may be sent. */
  readonly subscribe: boolean
  /** `resources.listChanged` declared. */
  readonly listChanged: boolean
  /** The server's declaration of the skills extension (`io.modelcontextprotocol/skills`), when it made one. */
  readonly skills: McpSkills.Declaration | undefined
}

/**
 * The era verdict of a connection, kept by its server for the next connection of the same entry
 * (a reconnect adopts it instead of probing again).
 */
export type Verdict = PriorDiscovery

/** An open connection. Closing its scope closes the transport (child process, HTTP session). */
export interface Connection {
  readonly capabilities: Capabilities
  /** One request; `params` omitted entirely when undefined. Fails with the per-request timeout message. */
  readonly request: (
    method: string,
    params: Record<string, unknown> | undefined,
    timeoutMillis: number
  ) => Effect.Effect<unknown, Errors.TransportError | Errors.ServerError>
  /**
   * {@link request} with the result decoded (synchronously) by `decode`, and every failure (the
   * request's, the timeout, the decoding mismatch) prefixed with what `context` gives (asked only
   * when one fails): one async step in all.
   * When `hold` is given, it is held for the request's whole run.
   */
  readonly requestDecoded: <A>(
    method: string,
    params: Record<string, unknown> | undefined,
    timeoutMillis: number,
    decode: (raw: unknown) => Either.Either<A, Errors.TransportError>,
    context: () => string,
    hold?: Hold
  ) => Effect.Effect<A, Errors.TransportError | Errors.ServerError>
  /**
   * Calls `listener` once with the close reason when the transport closes (at once when it already
   * closed).
   */
  readonly onClosed: (listener: (reason: string) => void) => void
  /** True once the connection closed because the server needs a login: reconnecting cannot help before one. */
  readonly needsLogin: () => boolean
  /** Fired on every `notifications/tools/list_changed` (one that arrives before a listener is kept). */
  readonly toolsChanged: Signal
  /**
   * Runs the connection's work on demand (what reacts to its events); stopped, interrupting what
   * still runs, first when the connection's scope closes.
   */
  readonly background: Background
  /** The negotiated protocol revision (e.g. `2025-11-25`, `2026-07-28`), when the SDK reports one. */
  readonly protocolVersion: string | undefined
  /** The era verdict, for the next connection of the same entry. */
  readonly verdict: Verdict | undefined
  /** HTTP servers: streamable HTTP, or HTTP+SSE (configured, or fallen back to). Undefined otherwise. */
  readonly httpTransport: HttpTransportKind | undefined
  /** `notifications/resources/list_changed` and `.../updated`, coalesced (bounded; nothing dropped). */
  readonly resourceChanges: ChangeQueue
  /** The era of the connection: `modern` for 2026-07-28 (`server/discover`), else `legacy`. */
  readonly era: "legacy" | "modern"
  /**
   * 2026-07-28 only: (re)opens this connection's one `subscriptions/listen` stream for exactly these
   * resource uris (plus the lists the server declared `listChanged` for), closing the previous one,
   * and waits for the server's acknowledgement. An empty set without list changes closes the stream.
   */
  readonly listen: (uris: ReadonlyArray<string>, timeoutMillis: number) => Effect.Effect<void, Errors.TransportError>
  /**
   * 2026-07-28 only: sets the one listener told when the server drops the `subscriptions/listen`
   * stream (change detection's, which reopens it with backoff: `detection.ts`). Without one, a
   * dropped stream is reopened after a second.
   */
  readonly onStreamDropped: (listener: () => void) => void
  /** Reopens the dropped stream with the uris it had (nothing when another stream replaced it since). */
  readonly reopenStream: (timeoutMillis: number) => Effect.Effect<void, Errors.TransportError>
  /** How this connection's changes are learnt (`detection.ts`). */
  readonly detection: Detection.State
}

/**
 * The SDK's `versionNegotiation` for the entry's `protocol_version` (absent = `auto`). A stdio server
 * that never answers the `auto` probe is an older one: half the start-up timeout is waited for it
 * ({@link probeMillis}, bounded by {@link probeWithin}), so that `initialize` still fits in the rest
 * (over HTTP silence is an outage, not a verdict).
 */
const negotiation = (entry: ServerEntry) => {
  // HTTP+SSE is a transport of the `initialize` era: a `server/discover` probe over it is a wasted round trip
  const sse = entry.transport._tag === "http" && entry.transport.sse === true
  switch (entry.protocolVersion ?? (sse ? "legacy" : "auto")) {
    case "legacy":
      return { mode: "legacy" as const }
    case "2026-07-28":
      return { mode: { pin: modernRevision } }
    case "auto":
      // the probe's bound is `probeWithin`'s, on the current clock; the SDK's own timer is off
      return { mode: "auto" as const, probe: { timeoutMs: maxTimerMillis } }
  }
}

/** How long the `auto` era probe waits for its answer: half the start-up timeout. */
const probeMillis = (timeoutMillis: number): number => Math.max(1, Math.floor(timeoutMillis / 2))

/** The id of a response (a message with an id and no method), else undefined. */
const responseId = (message: unknown): string | number | undefined => {
  if (typeof message !== "object" || message === null || "method" in message || !("id" in message)) return undefined
  const id = message.id
  return typeof id === "string" || typeof id === "number" ? id : undefined
}

/** What the handler of a handshake's probe answers sees of it; emptied once the handshake settled. */
interface ProbeAnswers {
  /** Each probe sent and not answered yet, with the cancel of its bound (`undefined`: settled). */
  pending: Map<string | number, () => void> | undefined
  /** Whether a probe was sent. */
  sent: boolean
  /** The SDK's handler for the probe's answer. */
  receive: Receive | undefined
}

/**
 * The wrap of the SDK's message handler while a handshake probes: the handler given, first ending the
 * bound of a probe a response answers. Made here, not inside {@link probeWithin}: the transport keeps
 * its wraps and handler for the connection's life, and a closure there would keep the whole handshake
 * (its options, signal, callbacks) alive with them.
 */
const answering =
  (answers: ProbeAnswers) =>
  (receive: Receive): Receive => {
    if (answers.pending === undefined || (answers.sent && answers.pending.size === 0)) return receive
    answers.receive = receive
    return (message, extra) => {
      if (answers.pending !== undefined) {
        const id = responseId(message)
        if (id !== undefined) answers.pending.get(id)?.()
      }
      receive(message, extra)
    }
  }

/**
 * How the SDK reads a probe that got no answer: over a transport it takes for stdio (one with `stderr`
 * and `pid`, as ours is) the server is an older one and the connection falls back to `initialize`;
 * over any other transport the silence is an outage and the start-up fails with the probe's timeout.
 */
const silenceIsLegacy = (transport: Transport): boolean => "stderr" in transport && "pid" in transport

/**
 * The `auto` handshake `connect()` with the era probe (`server/discover`, sent by the SDK before
 * `initialize`) bounded by `millis` on `clock` through the request path's one timer (`timerOn`), the
 * SDK's own probe timer off. Once a probe went unanswered that long it ends as the SDK's timeout
 * would end it: where silence is a verdict ({@link silenceIsLegacy}) the SDK's probe is given a local
 * `method not found` answer, which it reads as a legacy server, and `initialize` follows; elsewhere
 * the handshake fails with `timedOut()` (`silence` is told when the silence was taken for a verdict).
 * Only the handler the SDK installs for the probe is wrapped
 * (the one installed after it is left as it is), and `send` is given back once the handshake settled.
 */
const probeWithin = (
  transport: Transport,
  clock: Clock.Clock,
  millis: number,
  timedOut: () => unknown,
  silence: () => void,
  connect: () => Promise<void>
): Promise<void> =>
  new Promise<void>((resolve, reject) => {
    const pending = new Map<string | number, () => void>()
    const answers: ProbeAnswers = { pending, sent: false, receive: undefined }
    let settled = false
    wrapOnMessage(transport, answering(answers))
    const ownSend = Object.getOwnPropertyDescriptor(transport, "send")
    const send = transport.send.bind(transport)
    const settle = () => {
      settled = true
      answers.pending = undefined
      answers.receive = undefined
      for (const cancel of [...pending.values()]) cancel()
      if (transport.send === probeSend) {
        if (ownSend === undefined) delete (transport as { send?: unknown }).send
        else Object.defineProperty(transport, "send", ownSend)
      }
    }
    const probeSend: Transport["send"] = (message, options) => {
      const id = "method" in message && message.method === "server/discover" && "id" in message ? message.id : undefined
      if (!settled && id !== undefined) {
        answers.sent = true
        const cancel = timerOn(clock, millis, () => {
          if (!pending.delete(id) || settled) return
          if (silenceIsLegacy(transport)) {
            silence()
            answers.receive?.({
              jsonrpc: "2.0",
              id,
              error: { code: -32601, message: `server/discover not answered within ${millis} ms` }
            })
            return
          }
          settle()
          reject(timedOut())
        })
        pending.set(id, () => {
          pending.delete(id)
          cancel()
        })
      }
      return send(message, options)
    }
    transport.send = probeSend
    connect().then(
      () => {
        if (settled) return
        settle()
        resolve()
      },
      (error: unknown) => {
        if (settled) return
        settle()
        reject(error)
      }
    )
  })

/** Why a stdio transport closed: the exit of its process (undefined for other transports, or while it runs). */
const stdioCloseReason = (transport: Transport): string | undefined =>
  transport instanceof StdioTransport ? transport.closeReason : undefined

/** Closes the client (and its transport); an HTTP session is terminated first. Never fails. */
const closeClient = (client: Client, transport: Transport): Effect.Effect<void> =>
  Effect.gen(function* () {
    const http = tracedHttpTransport(transport)
    if (http !== undefined && http.sessionId !== undefined) {
      yield* Effect.tryPromise(() => http.terminateSession()).pipe(Effect.timeout("2 seconds"), Effect.ignore)
    }
    // stdio: the transport ends stdin, then SIGTERM, then SIGKILL, each after a 2 s grace
    yield* Effect.tryPromise(() => client.close()).pipe(Effect.timeout("10 seconds"), Effect.ignore)
  })

/** The client capabilities declared for the host's handlers (without any: form elicitation, declined). */
export const clientCapabilities = (handlers: ServerRequests.Service | undefined) => {
  const elicitation = handlers?.elicitation
  return {
    elicitation: elicitation?.url === true ? { form: {}, url: {} } : {},
    ...(handlers?.sampling === undefined ? {} : { sampling: {} }),
    ...(handlers?.roots === undefined ? {} : { roots: {} })
  }
}

/** Resolves when the signal aborts (the server cancelled its request). */
const aborted = (signal: AbortSignal): Effect.Effect<void> =>
  Effect.async<void>((resume) => {
    if (signal.aborted) return resume(Effect.void)
    const onAbort = () => resume(Effect.void)
    signal.addEventListener("abort", onAbort, { once: true })
    return Effect.sync(() => signal.removeEventListener("abort", onAbort))
  })

/** How a connection is opened. */
export interface OpenOptions {
  /** Bounds the whole start (transport, era negotiation, handshake). */
  readonly timeoutMillis: number
  readonly transports: TransportFactory
  /**
   * Where the connection's work on demand and its stderr logging run: the set's runtime, shared by
   * its connections (without one, the runtime of the fiber that opens it).
   */
  readonly runtime?: Runtime.Runtime<never>
  /** An earlier era verdict for the same entry, adopted instead of probing. */
  readonly prior?: Verdict
  /** The host's answers to server requests. */
  readonly handlers?: ServerRequests.Service
}

/**
 * A streamable HTTP start that the server refused with 400, 404 or 405 (the failure as reported
 * otherwise): the server may speak only the legacy HTTP+SSE transport.
 */
class SseCandidate {
  readonly _tag = "SseCandidate"
  constructor(readonly failure: Errors.ResourceFailure) {}
}

/**
 * A stdio server whose `auto` probe went unanswered (taken for an older server) and which then refused
 * `initialize` naming the 2026-07-28 revision: a modern server slow to start. The caller starts it
 * again in that era (`server.ts`), with the whole start-up time again.
 */
export class SlowModernStart {
  readonly _tag = "SlowModernStart"
  constructor(readonly failure: Errors.ResourceFailure) {}
  /** The refusal's message. */
  get message(): string {
    return this.failure.message
  }
}

/**
 * Runs `attempt` on `entry` in a scope of its own, forked from `parent` and closed at once when the
 * attempt fails, and answers its value with that scope. A modern-only stdio server slow to start
 * ({@link SlowModernStart}) is attempted once more pinned to {@link modernRevision}, with the whole
 * start-up time again (the log says why). The one place that retry is decided, for the connection
 * set's servers (`server.ts`) and the threadless reads (`threadless.ts`).
 */
export const attemptInEra = <A, E, R>(
  entry: ServerEntry,
  parent: Scope.Scope,
  attempt: (target: ServerEntry) => Effect.Effect<A, E | SlowModernStart, R>
): Effect.Effect<readonly [A, Scope.CloseableScope], E | Errors.ResourceFailure, Exclude<R, Scope.Scope>> => {
  const once = (target: ServerEntry) =>
    Effect.gen(function* () {
      const scope = yield* Scope.fork(parent, ExecutionStrategy.sequential)
      const exit = yield* Effect.exit(Scope.extend(attempt(target), scope))
      if (Exit.isSuccess(exit)) return [exit.value, scope] as const
      yield* Scope.close(scope, exit)
      return yield* Effect.failCause(exit.cause)
    })
  const isSlow = (error: unknown): error is SlowModernStart => error instanceof SlowModernStart
  return once(entry).pipe(
    Effect.catchIf(isSlow, (slow) =>
      Effect.logInfo(
        `MCP server '${entry.name}' answered the protocol era probe too late and then refused the older revision (${slow.message}); starting it again in the ${modernRevision} era`
      ).pipe(Effect.zipRight(once({ ...entry, protocolVersion: modernRevision })))
    ),
    // pinned to its era, a start is never taken for a slow modern one; the refusal is its failure
    Effect.catchIf(isSlow, (slow) => Effect.fail(slow.failure))
  )
}

/** A streamable HTTP entry (not `type = "sse"`) whose first POST was refused with a fallback status. */
const isSseCandidate = (entry: ServerEntry, trace: HttpTrace | undefined): boolean => {
  const last = trace?.last
  return (
    entry.transport._tag === "http" &&
    entry.transport.sse !== true &&
    trace?.oauth?.required !== true &&
    last?._tag === "status" &&
    last.method === "POST" &&
    sseFallbackStatuses.has(last.status)
  )
}

/**
 * Opens a connection: builds the transport, negotiates the era (`prior` adopts an earlier verdict
 * instead of probing) and runs the handshake, bounded by `timeoutMillis`. The transport closes with
 * the scope, also when connecting fails. Finalizers are added to the scope directly (an
 * `acquireRelease` would keep a copy of the opening fiber's references for the connection's life).
 *
 * An HTTP server that refuses the first POST with 400, 404 or 405 is tried once more with the legacy
 * HTTP+SSE transport on the same URL, as the specification's backwards compatibility section says:
 * a GET whose event stream must name the message endpoint (its `endpoint` event) within half of the
 * start-up time left. Without that event, the streamable HTTP failure is the start's failure.
 * A stdio server that answered the `auto` probe too late and refused `initialize` for the 2026-07-28
 * revision fails with {@link SlowModernStart}, for the caller to start it again in that era.
 */
export const open = (
  entry: ServerEntry,
  options: OpenOptions
): Effect.Effect<Connection, Errors.ResourceFailure | SlowModernStart, Scope.Scope> =>
  Effect.gen(function* () {
    if (entry.transport._tag !== "http" || entry.transport.sse === true) {
      return yield* Effect.mapError(openWith(entry, options), (error) =>
        error._tag === "SseCandidate" ? error.failure : error
      )
    }
    const scope = yield* Effect.scope
    const started = yield* Clock.currentTimeMillis
    const first = yield* Scope.fork(scope, ExecutionStrategy.sequential)
    const exit = yield* Effect.exit(Scope.extend(openWith(entry, options), first))
    if (Exit.isSuccess(exit)) return exit.value
    yield* Scope.close(first, exit)
    const candidate = Option.getOrUndefined(Cause.failureOption(exit.cause))
    if (candidate?._tag !== "SseCandidate") return yield* Effect.failCause(withoutCandidates(exit.cause))
    const original = candidate.failure
    const left = options.timeoutMillis - ((yield* Clock.currentTimeMillis) - started)
    const second = yield* Scope.fork(scope, ExecutionStrategy.sequential)
    const legacy = asSse(entry)
    const fallback = Effect.gen(function* () {
      const transport = yield* options.transports.make(legacy, () => undefined)
      yield* Scope.addFinalizer(
        second,
        Effect.promise(() => transport.close().catch(() => undefined))
      )
      const sse = tracedSseTransport(transport)
      if (sse !== undefined) {
        const reached = yield* Effect.tryPromise(() => sse.start()).pipe(
          Effect.timeout(Math.max(1, Math.floor(left / 2))),
          Effect.either
        )
        if (reached._tag === "Left") return yield* Effect.fail(new SseCandidate(original))
      }
      return yield* openWith(legacy, { ...options, timeoutMillis: Math.max(1, left) }, transport)
    })
    const tried = yield* Effect.exit(Scope.extend(fallback, second))
    if (Exit.isSuccess(tried)) {
      yield* Effect.logInfo(
        `MCP server '${entry.name}': the streamable HTTP POST was refused (${original.message}); connected over HTTP+SSE`
      )
      return tried.value
    }
    yield* Scope.close(second, tried)
    // no event stream with an `endpoint` event: not an HTTP+SSE server either; the POST's refusal says why
    if (Option.getOrUndefined(Cause.failureOption(tried.cause))?._tag === "SseCandidate") {
      return yield* Effect.fail(original)
    }
    return yield* Effect.failCause(withoutCandidates(tried.cause))
  })

/** A failure cause with each candidate replaced by the failure it carries. */
const withoutCandidates = (cause: Cause.Cause<Errors.ResourceFailure | SseCandidate | SlowModernStart>) =>
  Cause.map(cause, (error) =>
    error._tag === "SseCandidate" || error._tag === "SlowModernStart" ? error.failure : error
  )

/** {@link open} without the fallback: one transport (`premade`, already made, or the entry's own). */
const openWith = (
  entry: ServerEntry,
  { timeoutMillis, transports, prior, handlers, ...options }: OpenOptions,
  premade?: Transport
): Effect.Effect<Connection, Errors.ResourceFailure | SseCandidate | SlowModernStart, Scope.Scope> =>
  Effect.gen(function* () {
    const sdk = yield* Sdk.load
    const scope = yield* Effect.scope
    const runtime = options.runtime ?? (yield* Effect.runtime<never>())
    const toolsChanged = new Signal()
    const resourceChanges = new ChangeQueue()
    yield* Scope.addFinalizer(
      scope,
      Effect.sync(() => resourceChanges.shutdown())
    )
    // the server's standard error is logged as it arrives (in order)
    const logSync = Runtime.runSync(runtime)
    const transport =
      premade ??
      (yield* transports.make(entry, (text) => {
        logSync(Effect.logDebug(`MCP server '${entry.name}' stderr: ${text.trimEnd()}`))
      }))
    const sse = tracedSseTransport(transport) !== undefined
    const guard = guardResponses(transport)
    // behind the guard: change notifications are applied to this connection's queue and signal
    // without the SDK, and those nothing handles are dropped (see notificationGate.ts)
    gateNotifications(transport, { resourceChanges, toolsChanged })
    const trace = httpTrace(transport)
    let pendingReason: string | undefined
    let closeReason: string | undefined
    // before the SDK reports the close (or when it never does, as during the era probe), a stdio exit is one
    const closedReason = () => closeReason ?? stdioCloseReason(transport)
    // the in-flight requests, failed with the close reason when the transport closes
    const inFlight = new InFlightList()
    let closeListeners: Array<(reason: string) => void> = []
    const redact = redactorOf(entry)
    const markClosed = (reason: string) => {
      closeReason ??= redact(reason)
      for (const request of inFlight.takeAll()) request.closed(closeReason)
      const listeners = closeListeners
      closeListeners = []
      for (const listener of listeners) listener(closeReason)
    }
    const onClosed = (listener: (reason: string) => void) => {
      if (closeReason === undefined) closeListeners.push(listener)
      else listener(closeReason)
    }
    // the connection's work on demand, the host's answers among it: stopped first when the scope
    // closes (added again last, below), and in any case when a failed start closes it
    const background = new Background(runtime)
    yield* Scope.addFinalizer(scope, background.stop)
    /** Runs a host answer for a server-to-client request, attributed to the requests in flight. */
    const answer = <A>(
      signal: AbortSignal,
      use: (context: ServerRequests.RequestContext) => Effect.Effect<A, Error>
    ): Promise<A> => {
      const { context, budgets } = attribute(inFlight)
      return background.promise(
        pausing(budgets, Effect.raceFirst(use(context), Effect.zipRight(aborted(signal), Effect.interrupt)))
      )
    }
    const client = yield* Effect.sync(() => {
      const client = new sdk.client.Client(clientInfo, {
        // MCP Apps: this client's hosts render `ui://` widgets of this MIME type (docs/widgets.md)
        capabilities: {
          ...clientCapabilities(handlers),
          extensions: { [Widget.extensionId]: { mimeTypes: [Widget.mimeType] } }
        },
        versionNegotiation: negotiation(entry),
        // 2026-07-28 `input_required` is answered by us (it names the input), never fulfilled silently
        inputRequired: { autoFulfill: false }
      })
      if (handlers === undefined) {
        client.setRequestHandler("elicitation/create", () => Promise.resolve({ action: "decline" as const }))
      } else {
        client.setRequestHandler(
          "elicitation/create",
          (request, ctx) =>
            answer(ctx.mcpReq.signal, (context) =>
              elicit(handlers, entry.name, request.params, context)
            ) as Promise<never>
        )
        const { sampling, roots } = handlers
        if (sampling !== undefined) {
          client.setRequestHandler(
            "sampling/createMessage",
            (request, ctx) =>
              answer(ctx.mcpReq.signal, (context) =>
                sampling({ server: entry.name, params: request.params, context })
              ) as Promise<never>
          )
        }
        if (roots !== undefined) {
          client.setRequestHandler(
            "roots/list",
            (request, ctx) =>
              answer(ctx.mcpReq.signal, (context) =>
                roots({ server: entry.name, params: request.params ?? {}, context })
              ) as Promise<never>
          )
        }
      }
      client.onerror = (error) => {
        // stdio refuses a message over the limit; the stream cannot be resynchronised
        if (error instanceof MessageTooLargeError) {
          pendingReason = Messages.messageExceeds(entry.maxMessageBytes)
          markClosed(pendingReason)
          return
        }
        if (entry.transport._tag !== "http") return
        // HTTP+SSE: the event stream is the connection; its error (a drop, an end) loses it
        if (sse) {
          const lost = sseConnectionLost(error)
          if (lost !== undefined) markClosed(`${Messages.connectionClosed}: ${lost}`)
          return
        }
        // a 404/405 on the optional GET stream means "no stream", not a lost session
        if (noStream(error, transport.sessionId)) return
        // the GET stream is the SDK's to re-open (with its own backoff); only a POST that cannot
        // reach the server loses the connection
        const last = trace?.last
        if (last?._tag === "network" && last.method === "GET" && error instanceof TypeError) return
        // streamable HTTP never reports a close: a dropped socket or a lost session is one
        const lost = httpConnectionLost(error, transport.sessionId)
        if (lost !== undefined) markClosed(`${Messages.connectionClosed}: ${lost}`)
      }
      client.onclose = () => {
        // a stdio server's exit names its code (or signal)
        markClosed(pendingReason ?? stdioCloseReason(transport) ?? Messages.connectionClosed)
      }
      return client
    })
    yield* Scope.addFinalizer(scope, closeClient(client, transport))
    // the `auto` probe went unanswered and was taken for an older server
    let silent = false
    const handshakeFailure = (error: unknown) => {
      const failure = redactedError(
        startupFailure(error, trace, entry.protocolVersion === modernRevision, timeoutMillis, closedReason),
        redact
      )
      if (silent && refusedForRevision(error, modernRevision)) return new SlowModernStart(failure)
      return isSseCandidate(entry, trace) ? new SseCandidate(failure) : failure
    }
    // the handshake is bounded by the request path's one timer on the current clock, the SDK's own
    // timer off; when it passes, the failure is the SDK's timeout's, as before
    const clock = yield* Effect.clock
    const probing = prior === undefined && negotiation(entry)?.mode === "auto"
    const probeTimedOut = () => {
      const millis = probeMillis(timeoutMillis)
      return new sdk.client.SdkError(
        sdk.client.SdkErrorCode.RequestTimeout,
        `Version negotiation probe timed out after ${millis}ms`,
        { timeout: millis }
      )
    }
    yield* promiseWithin(
      (signal) => {
        const options = { signal, timeout: maxTimerMillis }
        const connected = probing
          ? probeWithin(
              transport,
              clock,
              probeMillis(timeoutMillis),
              probeTimedOut,
              () => {
                silent = true
              },
              () => client.connect(transport, options)
            )
          : client.connect(transport, prior === undefined ? options : { ...options, prior })
        // an adopted 2026-07-28 verdict connects without a round trip: `server/discover` proves the
        // server is there (a legacy verdict skips the probe and runs `initialize`, which proves it)
        return prior?.kind === "modern"
          ? connected.then(() => client.discover(options)).then(() => undefined)
          : connected
      },
      timeoutMillis + handshakeMargin,
      handshakeFailure,
      () =>
        handshakeFailure(
          new sdk.client.SdkError(sdk.client.SdkErrorCode.RequestTimeout, "Request timed out", {
            timeout: timeoutMillis + handshakeMargin
          })
        )
    )
    // from now on a request that finds a login needed (a refused refresh) ends the connection: every
    // later request would fail the same way, and the server's status says what to do
    let needsLogin = false
    const oauth = trace?.oauth
    if (oauth !== undefined) {
      oauth.onRequired = () => {
        needsLogin = true
        markClosed(Messages.authorizationRequired(entry.name))
      }
    }
    const declared = client.getServerCapabilities()
    const capabilities: Capabilities = {
      resources: declared?.resources !== undefined,
      tools: declared?.tools !== undefined,
      completions: declared?.completions !== undefined,
      subscribe: declared?.resources?.subscribe === true,
      listChanged: declared?.resources?.listChanged === true,
      skills: McpSkills.declarationOf(declared?.extensions)
    }
    const memory = entry.transport._tag === "memory"
    const wire: Wire = {
      client,
      anyResult: sdk.anyResult,
      memory,
      closedReason,
      inFlight,
      trace,
      serverRequests: handlers === undefined ? undefined : { handlers, server: entry.name },
      ...(entry.transport._tag === "http" ? { redact } : {})
    }
    const { requestWith } = makeRequester(wire)
    const era = client.getProtocolEra()
    guard.keepResultType = era !== "modern"
    const discover = client.getDiscoverResult()
    const verdict: Verdict | undefined =
      discover !== undefined ? { kind: "modern", discover } : era === "legacy" ? { kind: "legacy" } : undefined
    let listening: McpSubscription | undefined
    /** The uris of the latest stream, and the stream the server dropped (while it is the latest). */
    let listenedUris: ReadonlyArray<string> = []
    let dropped: McpSubscription | undefined
    let streamDropped: (() => void) | undefined
    const closeStream = (stream: McpSubscription | undefined) =>
      stream === undefined ? Effect.void : Effect.promise(() => stream.close().catch(() => undefined))
    yield* Scope.addFinalizer(
      scope,
      Effect.suspend(() => {
        const last = listening
        listening = undefined
        return closeStream(last)
      })
    )
    // the new stream is acknowledged before the previous one closes: no update falls between the two
    const listen = (uris: ReadonlyArray<string>, timeoutMillis: number): Effect.Effect<void, Errors.TransportError> =>
      Effect.suspend(() => {
        const previous = listening
        const filter = {
          ...(declared?.resources?.listChanged === true ? { resourcesListChanged: true } : {}),
          ...(declared?.tools?.listChanged === true ? { toolsListChanged: true } : {}),
          ...(uris.length > 0 ? { resourceSubscriptions: [...uris] } : {})
        }
        if (Object.keys(filter).length === 0) {
          listening = undefined
          return closeStream(previous)
        }
        const failed = (error: unknown) =>
          new Errors.TransportError({
            kind: "unavailable",
            message: `subscriptions/listen failed: ${error instanceof Error ? error.message : String(error)}`
          })
        // the acknowledgement is awaited on the request path's one timer, the SDK's own off
        return promiseWithin(
          (signal) => client.listen(filter, { timeout: maxTimerMillis, signal }),
          timeoutMillis,
          failed,
          () => failed(new Error("subscriptions/listen ack timed out"))
        ).pipe(
          Effect.flatMap((subscription) =>
            Effect.suspend(() => {
              listening = subscription
              listenedUris = uris
              return Effect.zipRight(closeStream(previous), reopenWhenDropped(subscription, uris, timeoutMillis))
            })
          )
        )
      })
    // a stream the server side dropped (not closed by us, nor ended gracefully) is opened again:
    // by change detection with backoff when it listens (`detection.ts`), else after a second
    const reopenWhenDropped = (subscription: McpSubscription, uris: ReadonlyArray<string>, timeoutMillis: number) =>
      Effect.sync(() =>
        background.run(
          Effect.promise(() => subscription.closed).pipe(
            Effect.flatMap((how) => {
              if (how !== "remote" || listening !== subscription) return Effect.void
              dropped = subscription
              if (streamDropped !== undefined) return Effect.sync(streamDropped)
              return Effect.logWarning(
                `MCP server '${entry.name}': the subscriptions/listen stream dropped; opening it again`
              ).pipe(
                // a second's pause: a server that drops every stream is not asked in a tight loop
                Effect.zipRight(Effect.sleep("1 second")),
                Effect.zipRight(
                  Effect.suspend(() => (listening === subscription ? listen(uris, timeoutMillis) : Effect.void))
                ),
                Effect.catchAll((error) => Effect.logWarning(`MCP server '${entry.name}': ${error.message}`))
              )
            })
          )
        )
      )
    const reopenStream = (timeoutMillis: number): Effect.Effect<void, Errors.TransportError> =>
      Effect.suspend(() =>
        listening !== undefined && listening === dropped ? listen(listenedUris, timeoutMillis) : Effect.void
      )
    // added last: the first finalizer to run, before the stream and the client close
    yield* Scope.addFinalizer(scope, background.stop)
    return {
      capabilities,
      era: era === "modern" ? "modern" : "legacy",
      listen,
      onStreamDropped: (listener) => {
        streamDropped = listener
      },
      reopenStream,
      detection: Detection.initial(entry, capabilities, era === "modern" ? "modern" : "legacy"),
      request: (method, params, timeoutMillis) =>
        requestWith(method, params, timeoutMillis, keepRaw, undefined, undefined),
      // the request path itself, not a wrapper: a read does not step through this module
      requestDecoded: requestWith,
      onClosed,
      needsLogin: () => needsLogin,
      toolsChanged,
      background,
      resourceChanges,
      protocolVersion: client.getNegotiatedProtocolVersion(),
      verdict,
      httpTransport: httpTransportKind(transport)
    }
  })
