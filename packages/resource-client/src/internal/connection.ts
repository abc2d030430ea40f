/**
 * One MCP connection over the SDK: the only place that touches `@modelcontextprotocol/sdk` at run time.
 * Every SDK promise is wrapped here once, with our timeout and an abort signal.
 */
import { Errors, Messages } from "@mcp-resources/protocol"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport, StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js"
import {
  ElicitRequestSchema,
  ErrorCode,
  McpError,
  ResourceListChangedNotificationSchema,
  ResourceUpdatedNotificationSchema,
  ToolListChangedNotificationSchema
} from "@modelcontextprotocol/sdk/types.js"
import {
  Clock,
  Config as EffectConfig,
  Deferred,
  Effect,
  Either,
  Option,
  ParseResult,
  Queue,
  Schema,
  type Scope
} from "effect"
import { z } from "zod"
import type { ServerEntry } from "../ServerEntry.js"
import { ChangeQueue } from "./notifications.js"
import { RequestSignal } from "./requestSignal.js"
import { MessageTooLargeError, StdioTransport } from "./stdioTransport.js"

/** The name and version the client announces in `initialize`. */
export const clientInfo = { name: "mcp-resources", version: "0.1.0" } as const

/** Extra milliseconds given to the SDK's own timer when another clock (a TestClock) drives the timeout. */
const sdkTimerMargin = 1000

/** The class of the live clock, whose `sleep` is a plain timer. */
const LiveClock = Clock.make().constructor as new (...args: ReadonlyArray<never>) => Clock.Clock

/** The longest delay a timer can have (a longer one would fire at once). */
const maxTimerMillis = 2 ** 31 - 1

/** Any JSON-RPC result, unchanged: we decode it ourselves so that no field is stripped before. */
const AnyResult = z.unknown()

/** What a server declared in its `initialize` result that we branch on. */
export interface Capabilities {
  readonly resources: boolean
  readonly tools: boolean
}

/**
 * A hold on what a request runs in (a connection set): taken when the request starts and given back
 * exactly once when it ends, whatever the end; `release` returns what remains to do.
 */
export interface Hold {
  readonly acquire: () => void
  readonly release: () => Effect.Effect<void>
}

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
   * request's, the timeout, the decoding mismatch) prefixed with `context`: one async step in all.
   * When `hold` is given, it is held for the request's whole run.
   */
  readonly requestDecoded: <A>(
    method: string,
    params: Record<string, unknown> | undefined,
    timeoutMillis: number,
    decode: (raw: unknown) => Either.Either<A, Errors.TransportError>,
    context: string,
    hold?: Hold
  ) => Effect.Effect<A, Errors.TransportError | Errors.ServerError>
  /** Completes with the close reason when the transport closes. */
  readonly closed: Deferred.Deferred<string>
  /** One element per `notifications/tools/list_changed`. */
  readonly toolsChanged: Queue.Dequeue<void>
  /** `notifications/resources/list_changed` and `.../updated`, coalesced (bounded; nothing dropped). */
  readonly resourceChanges: ChangeQueue
}

/** The transport kind of an entry, as `mcpServer/list` shows it. */
export const transportKind = (entry: ServerEntry): "stdio" | "http" | "memory" => entry.transport._tag

const transportError = (kind: Errors.TransportKind, message: string) => new Errors.TransportError({ kind, message })

const errorMessage = (error: unknown): string =>
  error instanceof Error ? error.message : typeof error === "string" ? error : String(error)

/** Maps an SDK failure: server responses become `Mcp error: {code}: {message}`, local failures stay local. */
const mapSdkError = (
  error: unknown,
  method: string,
  timeoutMillis: number,
  closedReason: () => string | undefined
): Errors.TransportError | Errors.ServerError => {
  if (error instanceof McpError) {
    const prefix = `MCP error ${error.code}: `
    const raw = error.message.startsWith(prefix) ? error.message.slice(prefix.length) : error.message
    const data = error.data as { readonly timeout?: unknown; readonly maxTotalTimeout?: unknown } | undefined
    const localTimeout =
      error.code === ErrorCode.RequestTimeout &&
      (data?.timeout !== undefined || data?.maxTotalTimeout !== undefined || raw === "Request timed out")
    if (localTimeout) return transportError("timeout", Messages.timedOutAwaiting(method, timeoutMillis))
    const localClose =
      error.code === ErrorCode.ConnectionClosed && (raw === "Connection closed" || raw === "Request was cancelled")
    if (localClose) return closedError(closedReason() ?? Messages.connectionClosed)
    return Errors.serverError(error.code, raw)
  }
  const reason = closedReason()
  if (reason !== undefined) return closedError(reason)
  const message = errorMessage(error)
  return message === "Not connected" ? closedError(Messages.connectionClosed) : transportError("other", message)
}

/**
 * The reason when an HTTP transport error means the connection is gone: the request could not reach
 * the server at all (refused, reset, unreachable), or the server no longer knows the session (404).
 */
const httpConnectionLost = (error: unknown): string | undefined => {
  if (error instanceof TypeError && error.message === "fetch failed") {
    const code = (error.cause as { readonly code?: unknown } | undefined)?.code
    return typeof code === "string" ? `fetch failed (${code})` : "fetch failed"
  }
  if (error instanceof StreamableHTTPError && error.code === 404)
    return "the server no longer knows the session (HTTP 404)"
  // the server's event stream dropped and could not be reopened
  const message = errorMessage(error)
  if (message.startsWith("Failed to reconnect SSE stream") || message.startsWith("Maximum reconnection attempts")) {
    return message
  }
  return undefined
}

const closedError = (reason: string) =>
  transportError(reason.startsWith("message exceeds ") ? "oversize" : "closed", reason)

/** The local `invalidResult` failure of a decoding mismatch, naming the failing path. */
const invalidResult = (error: ParseResult.ParseError, method: string): Errors.TransportError => {
  const issue = ParseResult.ArrayFormatter.formatErrorSync(error)[0]
  const path = issue === undefined || issue.path.length === 0 ? "result" : issue.path.join(".")
  return transportError(
    "invalidResult",
    `invalid ${method} result at ${path}: ${issue?.message ?? "does not match the MCP schema"}`
  )
}

/** Decodes a raw result synchronously to an Either; a mismatch is a local `invalidResult` failure naming the failing path. */
export const decodeResultEither = <A, I>(
  schema: Schema.Schema<A, I>,
  method: string
): ((raw: unknown) => Either.Either<A, Errors.TransportError>) => {
  const decode = Schema.decodeUnknownEither(schema)
  return (raw) => {
    const result = decode(raw)
    return Either.isRight(result) ? Either.right(result.right) : Either.left(invalidResult(result.left, method))
  }
}

/** Decodes a raw result (synchronously); a mismatch is a local `invalidResult` failure naming the failing path. */
export const decodeResult = <A, I>(
  schema: Schema.Schema<A, I>,
  method: string
): ((raw: unknown) => Effect.Effect<A, Errors.TransportError>) => {
  const decode = decodeResultEither(schema, method)
  return (raw) => {
    const result = decode(raw)
    return Either.isRight(result) ? Effect.succeed(result.right) : Effect.fail(result.left)
  }
}

/** Keeps a raw result as it is. */
const keepRaw = (raw: unknown): Either.Either<unknown, never> => Either.right(raw)

/** Sets an own data property, also for a key named `__proto__` (which plain assignment would not create). */
const define = (target: Record<string, unknown>, key: string, value: unknown): void => {
  if (key === "__proto__") {
    Object.defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true })
  } else {
    target[key] = value
  }
}

/**
 * What the wire would deliver of an in-memory value, for the fields that matter to decoding:
 * `undefined`-valued properties are dropped (an SDK McpServer sends `title: undefined`, which exact
 * optional fields refuse) and `undefined` array elements become `null`. Everything else is shared:
 * an object or array is copied only when something inside it changed.
 */
const asWire = (value: unknown): unknown => {
  if (typeof value !== "object" || value === null) return value
  if (Array.isArray(value)) {
    let copy: Array<unknown> | undefined
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i]
      const wire = item === undefined ? null : asWire(item)
      if (copy === undefined && wire !== item) copy = value.slice(0, i)
      if (copy !== undefined) copy.push(wire)
    }
    return copy ?? value
  }
  const record = value as Record<string, unknown>
  let copy: Record<string, unknown> | undefined
  const keys = Object.keys(record)
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!
    const item = record[key]
    const wire = item === undefined ? undefined : asWire(item)
    if (copy === undefined && (item === undefined || wire !== item)) {
      copy = {}
      for (let j = 0; j < i; j++) define(copy, keys[j]!, record[keys[j]!])
    }
    if (copy !== undefined && wire !== undefined) define(copy, key, wire)
  }
  return copy ?? value
}

type RequestError = Errors.TransportError | Errors.ServerError

/** What the in-flight requests of one connection share: the SDK client and the close state. */
interface Wire {
  readonly client: Client
  /** In-memory results never went through JSON. */
  readonly memory: boolean
  readonly closedReason: () => string | undefined
  readonly inFlight: InFlightList
}

/** A request in the in-flight list. */
interface Linked {
  prev: Linked | undefined
  next: Linked | undefined
  linked: boolean
  /** Fails the request with the close reason (cancelling the SDK request). */
  closed(reason: string): void
}

/**
 * The in-flight requests of a connection, failed with the close reason when the transport closes:
 * an intrusive list in insertion order (adding and removing allocate nothing, unlike a Set).
 */
class InFlightList {
  head: Linked | undefined = undefined
  tail: Linked | undefined = undefined

  add(node: Linked): void {
    node.linked = true
    node.prev = this.tail
    node.next = undefined
    if (this.tail === undefined) this.head = node
    else this.tail.next = node
    this.tail = node
  }

  remove(node: Linked): void {
    if (!node.linked) return
    node.linked = false
    if (node.prev === undefined) this.head = node.next
    else node.prev.next = node.next
    if (node.next === undefined) this.tail = node.prev
    else node.next.prev = node.prev
    node.prev = undefined
    node.next = undefined
  }

  /** Empties the list, returning its requests in insertion order. */
  takeAll(): Array<Linked> {
    const all: Array<Linked> = []
    for (let node = this.head; node !== undefined; node = node.next) all.push(node)
    for (const node of all) {
      node.linked = false
      node.prev = undefined
      node.next = undefined
    }
    this.head = undefined
    this.tail = undefined
    return all
  }
}

/**
 * One SDK request in flight: its abort signal and resume in one object rather than a
 * closure each. Settles once: with the result, the SDK's failure, the close reason, the timeout, or
 * a cancellation (which aborts the SDK request).
 */
class InFlight<A> implements Linked {
  prev: Linked | undefined = undefined
  next: Linked | undefined = undefined
  linked = false
  done = false
  signal: RequestSignal | undefined = undefined
  resume: ((effect: Effect.Effect<A, RequestError>) => void) | undefined = undefined

  constructor(
    readonly wire: Wire,
    readonly method: string,
    readonly timeoutMillis: number,
    readonly decode: (raw: unknown) => Either.Either<A, Errors.TransportError>,
    readonly context: string | undefined
  ) {}

  failure(error: RequestError): Effect.Effect<never, RequestError> {
    return Effect.fail(this.context === undefined ? error : Errors.withContext(error, this.context))
  }

  /** Marks the request settled (false when it already was); `abort` cancels the SDK request. */
  settle(abort: boolean): boolean {
    if (this.done) return false
    this.done = true
    this.wire.inFlight.remove(this)
    if (abort) this.signal?.abort()
    return true
  }

  /**
   * Sends the request. On the live clock (`live`) the SDK's timer is the timeout: its expiry cancels the
   * request and maps to our timeout message. Any other clock drives the timeout itself, so the SDK's
   * timer gets a margin and never fires first.
   */
  start(
    resume: (effect: Effect.Effect<A, RequestError>) => void,
    params: Record<string, unknown> | undefined,
    live: boolean
  ): void {
    this.resume = resume
    // a transport that closes (crash, oversize message) fails the request with the close reason
    const reason = this.wire.closedReason()
    if (reason !== undefined) {
      this.done = true
      resume(this.failure(closedError(reason)))
      return
    }
    const signal = new RequestSignal()
    this.signal = signal
    this.wire.inFlight.add(this)
    const timeout = Math.min(live ? this.timeoutMillis : this.timeoutMillis + sdkTimerMargin, maxTimerMillis)
    const method = this.method
    this.wire.client
      .request(params === undefined ? { method } : { method, params }, AnyResult, {
        signal,
        timeout,
        maxTotalTimeout: timeout
      })
      .then(
        (raw: unknown) => this.succeeded(raw),
        (error: unknown) => this.failed(error)
      )
  }

  succeeded(raw: unknown): void {
    if (!this.settle(false)) return
    // an in-memory result never went through JSON: drop `undefined` fields as the wire would
    const decoded = this.decode(this.wire.memory ? asWire(raw) : raw)
    this.resume?.(Either.isRight(decoded) ? Effect.succeed(decoded.right) : this.failure(decoded.left))
  }

  failed(error: unknown): void {
    if (this.settle(false)) {
      this.resume?.(this.failure(mapSdkError(error, this.method, this.timeoutMillis, this.wire.closedReason)))
    }
  }

  closed(reason: string): void {
    if (this.settle(true)) this.resume?.(this.failure(closedError(reason)))
  }
}

const hostEnvironment = (): Record<string, string> => {
  const env: Record<string, string> = {}
  for (const [key, value] of Object.entries(process.env)) if (value !== undefined) env[key] = value
  return env
}

/** What builds the SDK transport of an entry (the `McpTransport` service). */
export interface TransportFactory {
  readonly make: (entry: ServerEntry, stderr: (text: string) => void) => Effect.Effect<Transport, Errors.TransportError>
}

/** Builds the SDK transport of an entry (not started yet): stdio, streamable HTTP or in-memory. */
export const makeTransport = (
  entry: ServerEntry,
  stderr: (text: string) => void
): Effect.Effect<Transport, Errors.TransportError> => {
  const transport = entry.transport
  switch (transport._tag) {
    case "stdio":
      return Effect.sync(() => {
        return new StdioTransport({
          command: transport.command,
          args: transport.args,
          env: { ...hostEnvironment(), ...transport.env },
          ...(transport.cwd === undefined ? {} : { cwd: transport.cwd }),
          maxMessageBytes: entry.maxMessageBytes,
          stderr
        })
      })
    case "http":
      return Effect.gen(function* () {
        const headers: Record<string, string> = { ...transport.httpHeaders }
        if (transport.bearerTokenEnvVar !== undefined) {
          const variable = transport.bearerTokenEnvVar
          const token = yield* EffectConfig.option(EffectConfig.string(variable)).pipe(
            Effect.orElseSucceed(() => Option.none<string>())
          )
          if (Option.isNone(token)) {
            return yield* Effect.fail(
              transportError("startup", `environment variable ${variable} for the bearer token is not set`)
            )
          }
          headers.Authorization = `Bearer ${token.value}`
        }
        return new StreamableHTTPClientTransport(new URL(transport.url), { requestInit: { headers } })
      })
    case "memory":
      return Effect.tryPromise({
        try: () => transport.connect(),
        catch: (error) => transportError("startup", errorMessage(error))
      })
  }
}

/** Closes the client (and its transport); an HTTP session is terminated first. Never fails. */
const closeClient = (client: Client, transport: Transport): Effect.Effect<void> =>
  Effect.gen(function* () {
    if (transport instanceof StreamableHTTPClientTransport && transport.sessionId !== undefined) {
      yield* Effect.tryPromise(() => transport.terminateSession()).pipe(Effect.timeout("2 seconds"), Effect.ignore)
    }
    // stdio: the SDK ends stdin, then SIGTERM, then SIGKILL, each after a 2 s grace
    yield* Effect.tryPromise(() => client.close()).pipe(Effect.timeout("10 seconds"), Effect.ignore)
  })

/**
 * Opens a connection: builds the transport, connects and runs `initialize` (bounded by
 * `timeoutMillis`). The transport closes with the scope, also when connecting fails.
 */
export const open = (
  entry: ServerEntry,
  timeoutMillis: number,
  transports: TransportFactory
): Effect.Effect<Connection, Errors.ResourceFailure, Scope.Scope> =>
  Effect.gen(function* () {
    const closed = yield* Deferred.make<string>()
    const toolsChanged = yield* Effect.acquireRelease(Queue.sliding<void>(1), Queue.shutdown)
    const stderr = yield* Effect.acquireRelease(Queue.unbounded<string>(), Queue.shutdown)
    const resourceChanges = yield* Effect.acquireRelease(
      Effect.sync(() => new ChangeQueue()),
      (changes) => Effect.sync(() => changes.shutdown())
    )
    yield* Queue.take(stderr).pipe(
      Effect.flatMap((text) => Effect.logDebug(`MCP server '${entry.name}' stderr: ${text.trimEnd()}`)),
      Effect.forever,
      Effect.forkScoped
    )
    const transport = yield* transports.make(entry, (text) => {
      Queue.unsafeOffer(stderr, text)
    })
    let pendingReason: string | undefined
    let closeReason: string | undefined
    const closedReason = () => closeReason
    // the in-flight requests, failed with the close reason when the transport closes
    const inFlight = new InFlightList()
    const markClosed = (reason: string) => {
      closeReason ??= reason
      Deferred.unsafeDone(closed, Effect.succeed(closeReason))
      for (const request of inFlight.takeAll()) request.closed(closeReason)
    }
    const client = yield* Effect.acquireRelease(
      Effect.sync(() => {
        const client = new Client(clientInfo, { capabilities: { elicitation: {} } })
        client.setRequestHandler(ElicitRequestSchema, () => Promise.resolve({ action: "decline" as const }))
        client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
          Queue.unsafeOffer(toolsChanged, undefined)
          return Promise.resolve()
        })
        client.setNotificationHandler(ResourceListChangedNotificationSchema, () => {
          resourceChanges.offer({ _tag: "listChanged" })
          return Promise.resolve()
        })
        client.setNotificationHandler(ResourceUpdatedNotificationSchema, (notification) => {
          resourceChanges.offer({ _tag: "updated", uri: notification.params.uri })
          return Promise.resolve()
        })
        client.onerror = (error) => {
          // stdio refuses a message over the limit; the stream cannot be resynchronised
          if (error instanceof MessageTooLargeError) {
            pendingReason = Messages.messageExceeds(entry.maxMessageBytes)
            markClosed(pendingReason)
            return
          }
          // streamable HTTP never reports a close: a dropped socket or a lost session is one
          const lost = entry.transport._tag === "http" ? httpConnectionLost(error) : undefined
          if (lost !== undefined) markClosed(`${Messages.connectionClosed}: ${lost}`)
        }
        client.onclose = () => {
          markClosed(pendingReason ?? Messages.connectionClosed)
        }
        return client
      }),
      (client) => closeClient(client, transport)
    )
    yield* Effect.tryPromise({
      try: (signal) => client.connect(transport, { signal, timeout: timeoutMillis + sdkTimerMargin }),
      catch: (error) => mapSdkError(error, "initialize", timeoutMillis, closedReason)
    }).pipe(
      Effect.mapError((error) => (error._tag === "ServerError" ? error : transportError("startup", error.message)))
    )
    const declared = client.getServerCapabilities()
    const capabilities: Capabilities = {
      resources: declared?.resources !== undefined,
      tools: declared?.tools !== undefined
    }
    const memory = entry.transport._tag === "memory"
    const wire: Wire = { client, memory, closedReason, inFlight }
    /**
     * One SDK request as a single async step: fails with the close reason when the transport
     * closes, and (when `live`) with the timeout message after `timeoutMillis` on the SDK's timer.
     * The result is decoded by `decode`; when `context` is set, every failure is prefixed with it.
     * Interrupting it cancels the SDK request. `hold` is taken before and released after, in the
     * same mask and match.
     */
    const attempt = <A>(
      method: string,
      params: Record<string, unknown> | undefined,
      timeoutMillis: number,
      live: boolean,
      decode: (raw: unknown) => Either.Either<A, Errors.TransportError>,
      context: string | undefined,
      hold: Hold | undefined
    ): Effect.Effect<A, RequestError> =>
      // one mask and one match around a plain async step (cheaper than a canceler, which adds onInterrupt)
      Effect.uninterruptibleMask((restore) => {
        const request = new InFlight(wire, method, timeoutMillis, decode, context)
        hold?.acquire()
        return Effect.matchCauseEffect(
          restore(Effect.async<A, RequestError>((resume) => request.start(resume, params, live))),
          {
            // interrupted (a timeout, the caller): cancel the SDK request; a settled request is left alone
            onFailure: (cause) => {
              request.settle(true)
              const rest = hold === undefined ? Effect.void : hold.release()
              return rest === Effect.void ? Effect.failCause(cause) : Effect.zipRight(rest, Effect.failCause(cause))
            },
            onSuccess: (value) => {
              const rest = hold === undefined ? Effect.void : hold.release()
              return rest === Effect.void ? Effect.succeed(value) : Effect.as(rest, value)
            }
          }
        )
      })
    const requestWith = <A>(
      method: string,
      params: Record<string, unknown> | undefined,
      timeoutMillis: number,
      decode: (raw: unknown) => Either.Either<A, Errors.TransportError>,
      context: string | undefined,
      hold: Hold | undefined
    ): Effect.Effect<A, Errors.TransportError | Errors.ServerError> =>
      Effect.clockWith((clock) => {
        // the live clock sleeps on a plain timer, as the SDK's timeout does: let that one bound the
        // request without forking a race; any other clock (a TestClock) drives the timeout itself
        if (clock instanceof LiveClock) return attempt(method, params, timeoutMillis, true, decode, context, hold)
        const bounded = attempt(method, params, timeoutMillis, false, decode, undefined, hold).pipe(
          Effect.timeoutFail({
            duration: timeoutMillis,
            onTimeout: () => transportError("timeout", Messages.timedOutAwaiting(method, timeoutMillis))
          })
        )
        return context === undefined ? bounded : Effect.mapError(bounded, (error) => Errors.withContext(error, context))
      })
    const request = (method: string, params: Record<string, unknown> | undefined, timeoutMillis: number) =>
      requestWith(method, params, timeoutMillis, keepRaw, undefined, undefined)
    const requestDecoded = <A>(
      method: string,
      params: Record<string, unknown> | undefined,
      timeoutMillis: number,
      decode: (raw: unknown) => Either.Either<A, Errors.TransportError>,
      context: string,
      hold?: Hold
    ) => requestWith(method, params, timeoutMillis, decode, context, hold)
    return { capabilities, request, requestDecoded, closed, toolsChanged, resourceChanges }
  })
