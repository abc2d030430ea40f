/**
 * The typed app-server client: `request(method, params)` encodes the params with the method's schema
 * from `@mcp-resources/protocol` and decodes the result with its result schema; a JSON-RPC error answer
 * is a {@link ResponseError} with its code, message and data. Notifications arrive decoded, per
 * subscriber; server-to-client requests go to the handlers given at {@link make} (and are declared by
 * {@link Service.initialize}). Interrupting a request, or its timeout, sends `$/cancelRequest`. Closing
 * the scope closes the connection and fails what is still waiting.
 */
import { AppServer, Wire } from "@mcp-resources/protocol"
import {
  Context,
  Deferred,
  Duration,
  Effect,
  Either,
  Fiber,
  FiberSet,
  Layer,
  Queue,
  type Schema,
  type Scope,
  Stream
} from "effect"
import { isRecord as isObject } from "@mcp-resources/protocol/Records"
import { ClientError, ResponseError } from "./Errors.js"
import * as Transport from "./Transport.js"

/** A method the app-server answers. */
export type Method = AppServer.Method
/** The params of a method, as the caller writes them. */
export type Params<M extends Method> = AppServer.Params<M>
/** The decoded result of a method. */
export type Result<M extends Method> = AppServer.Result<M>
/** A notification method the app-server sends. */
export type NotificationMethod = AppServer.NotificationMethod

/** A notification the app-server sent, decoded with its method's schema. */
export type Notification = {
  readonly [M in NotificationMethod]: {
    readonly method: M
    readonly params: (typeof AppServer.notifications)[M]["Type"]
  }
}[NotificationMethod]

/** Any notification as received (methods this client does not know included). */
export interface RawNotification {
  readonly method: string
  readonly params: unknown
}

/** Answers one server-to-client request: its result, or a {@link ResponseError} sent as the JSON-RPC error. */
export type ServerRequestHandler = (params: unknown) => Effect.Effect<unknown, ResponseError>

/** Options of {@link make}. */
export interface Options {
  /** How long a request waits for its answer unless it says otherwise (default 60 s). */
  readonly requestTimeout?: Duration.DurationInput
  /**
   * The server-to-client requests this client answers, by method. {@link Service.initialize} declares
   * their names in `capabilities.serverRequests`; a request for any other method is answered `-32601`.
   */
  readonly serverRequests?: Readonly<Record<string, ServerRequestHandler>>
  /**
   * The elicitation modes the `mcpServer/elicitation/request` handler answers (`form`, `url`), declared
   * in `capabilities.elicitationModes`; absent: none declared, and the server sends form mode only.
   */
  readonly elicitationModes?: ReadonlyArray<"form" | "url">
  /**
   * Called with every message received, in order, before the client acts on it: the parsed JSON
   * (`undefined` when the text is not JSON) and the text as received. For tests and tools that check
   * the wire; it must not throw.
   */
  readonly onMessage?: (message: unknown, text: string) => void
}

/** A request sent with {@link Service.startRequest}: its id, and the wait for its response. */
export interface StartedRequest {
  /** The request's JSON-RPC id. */
  readonly id: number
  /**
   * Waits for the whole response message as received (parsed JSON, with `result` or `error`; the same
   * object {@link Options.onMessage} was given). Fails with reason `timeout` or `closed` as
   * {@link Service.requestUnknown} does; interrupting it sends `$/cancelRequest`.
   */
  readonly response: Effect.Effect<Record<string, unknown>, ClientError>
}

/** Options of one request. */
export interface RequestOptions {
  /** How long to wait for the answer; then `$/cancelRequest` is sent and the request fails with reason `timeout`. */
  readonly timeout?: Duration.DurationInput
}

/** The arguments after the method: params may be left out where the method's params are all optional. */
export type RequestArgs<M extends Method> =
  {} extends Params<M> ? [params?: Params<M>, options?: RequestOptions] : [params: Params<M>, options?: RequestOptions]

/** A connected app-server client. */
export interface Service {
  /** Sends a request and waits for its typed result. */
  readonly request: <M extends Method>(
    method: M,
    ...args: RequestArgs<M>
  ) => Effect.Effect<Result<M>, ResponseError | ClientError>
  /** Sends any request, params as given, and returns the result undecoded (for methods this client does not know). */
  readonly requestUnknown: (
    method: string,
    params?: unknown,
    options?: RequestOptions
  ) => Effect.Effect<unknown, ResponseError | ClientError>
  /**
   * {@link requestUnknown} outside Effect, for facades: `onAnswer` is called once with the outcome;
   * the returned function cancels the request (`$/cancelRequest`) while it is unanswered.
   */
  readonly unsafeRequestUnknown: (
    method: string,
    params: unknown,
    options: RequestOptions | undefined,
    onAnswer: (answer: Answer) => void
  ) => () => void
  /**
   * Sends any request, params as given, through the request table and returns at once with its id;
   * its `response` is the whole response message as received, an error answer included. For tests and
   * tools that check the wire (an answer nobody waits for is dropped when it arrives).
   */
  readonly startRequest: (
    method: string,
    params?: unknown,
    options?: RequestOptions
  ) => Effect.Effect<StartedRequest, ClientError>
  /**
   * `initialize` with `capabilities.serverRequests` set to the methods of the handlers given at
   * {@link make} and `capabilities.elicitationModes` to its `elicitationModes` (so the result always
   * names the server's capabilities).
   */
  readonly initialize: (
    clientInfo: AppServer.Params<"initialize">["clientInfo"],
    options?: RequestOptions
  ) => Effect.Effect<Result<"initialize">, ResponseError | ClientError>
  /** Sends a notification (`initialized`, `$/cancelRequest`, …). */
  readonly notify: (method: string, params?: unknown) => Effect.Effect<void, ClientError>
  /**
   * A queue of the decoded notifications that arrive from now on, until the scope closes (shut down
   * when the connection closes). Subscribe before the request whose notifications you want.
   */
  readonly subscribe: Effect.Effect<Queue.Dequeue<Notification>, never, Scope.Scope>
  /** As {@link subscribe}, every notification undecoded (methods this client does not know included). */
  readonly subscribeRaw: Effect.Effect<Queue.Dequeue<RawNotification>, never, Scope.Scope>
  /** The decoded notifications as a stream (subscribed when the stream starts; ends when the connection closes). */
  readonly notifications: Stream.Stream<Notification>
  /** Waits until the connection is closed; the reason. */
  readonly closed: Effect.Effect<string>
  /** The app-server's process id (stdio only). */
  readonly pid: number | undefined
  /** Waits for the app-server process to exit (stdio only; after the scope closed it has). */
  readonly exit: Effect.Effect<Transport.ProcessExit> | undefined
}

/** The client as a service. */
export class AppServerClient extends Context.Tag("@mcp-resources/app-server-client/AppServerClient")<
  AppServerClient,
  Service
>() {}

/** The default wait for an answer. */
export const defaultRequestTimeout: Duration.Duration = Duration.seconds(60)

/** The outcome of one request: its raw result or why it failed. */
export type Answer = Either.Either<unknown, ResponseError | ClientError>

interface Pending {
  readonly method: string
  /** When the request times out, in the clock's milliseconds. */
  readonly deadline: number
  readonly timeout: Duration.Duration
  /** Settled with the whole response message (error answers included), for {@link Service.startRequest}. */
  readonly whole: boolean
  resume: ((answer: Answer) => void) | undefined
  settled: Answer | undefined
}

const settle = (entry: Pending, answer: Answer): void => {
  if (entry.resume !== undefined) entry.resume(answer)
  else entry.settled = answer
}

type Json = Record<string, unknown>

const responseError = (method: string, error: unknown): ResponseError => {
  const e = isObject(error) ? error : {}
  return new ResponseError({
    method,
    code: typeof e.code === "number" ? e.code : AppServer.ErrorCode.internalError,
    message: typeof e.message === "string" ? e.message : JSON.stringify(error ?? null),
    ...("data" in e ? { data: e.data } : {})
  })
}

const describe = (duration: Duration.Duration): string => Duration.format(duration)

/**
 * A client's codecs: fields of a newer server (or a newer answer) are kept. Each client holds its own
 * set ({@link make}, `PromiseClient`); a one-off call without a set compiles its schema once for itself.
 */
export const makeCodecs = (): Wire.Codecs => Wire.makeCodecs("preserve")

const encoderOf = (schema: Schema.Schema.Any, codecs: Wire.Codecs | undefined) =>
  codecs === undefined ? Wire.compileEncoder(schema, "preserve") : codecs.encoder(schema)
const decoderOf = (schema: Schema.Schema.Any, codecs: Wire.Codecs | undefined) =>
  codecs === undefined ? Wire.compileDecoder(schema, "preserve") : codecs.decoder(schema)

/**
 * Encodes a method's params with its schema (through `codecs`, a client's set, when given); a failure
 * with reason `params` names the first offending field.
 */
export const encodeParams = <M extends Method>(
  method: M,
  params: Params<M> | undefined,
  codecs?: Wire.Codecs
): Either.Either<unknown, ClientError> => {
  if (!AppServer.isMethod(method)) {
    return Either.left(new ClientError({ reason: "params", message: `unknown method: ${method}` }))
  }
  return Either.mapLeft(
    encoderOf(AppServer.methods[method], codecs)(params ?? {}),
    (error) => new ClientError({ reason: "params", message: `${method} params: ${AppServer.formatParamsError(error)}` })
  )
}

/** Decodes a method's result with its result schema (through `codecs` when given; fields a newer server adds are kept). */
export const decodeResult = <M extends Method>(
  method: M,
  result: unknown,
  codecs?: Wire.Codecs
): Either.Either<Result<M>, ClientError> =>
  Either.mapBoth(decoderOf(AppServer.results[method], codecs)(result), {
    onLeft: (error) =>
      new ClientError({ reason: "result", message: `${method} result: ${AppServer.formatParamsError(error)}` }),
    onRight: (decoded) => decoded as Result<M>
  })

/** A server-to-client request the app-server sends (to clients that declared it at `initialize`). */
export type ServerRequestMethod = AppServer.ServerRequestMethod
/** The decoded params of a server-to-client request. */
export type ServerRequestParams<M extends ServerRequestMethod> = AppServer.ServerRequestParams<M>
/** The answer to a server-to-client request, as the handler returns it. */
export type ServerRequestResult<M extends ServerRequestMethod> = AppServer.ServerRequestResult<M>

/** Typed handlers of the server-to-client requests, by method (e.g. `mcpServer/elicitation/request`). */
export type TypedServerRequestHandlers = {
  readonly [M in ServerRequestMethod]?: (
    params: ServerRequestParams<M>
  ) => Effect.Effect<ServerRequestResult<M>, ResponseError>
}

/**
 * {@link Options.serverRequests} from typed handlers: each request's params are decoded with its
 * method's schema (a mismatch is answered `-32600` naming the field, the handler is not called) and
 * the handler's answer is encoded with its result schema.
 */
export const serverRequestHandlers = (
  handlers: TypedServerRequestHandlers
): Readonly<Record<string, ServerRequestHandler>> => {
  const out: Record<string, ServerRequestHandler> = {}
  for (const method of Object.keys(handlers) as Array<ServerRequestMethod>) {
    const handler = handlers[method]
    if (handler === undefined) continue
    // compiled once here: the returned handlers own them
    const decode = Wire.compileDecoder(AppServer.serverRequests[method], "preserve")
    const encode = Wire.compileEncoder(AppServer.serverRequestResults[method], "preserve")
    out[method] = (params) =>
      Either.match(decode(params ?? {}), {
        onLeft: (error) =>
          Effect.fail(
            new ResponseError({
              method,
              code: AppServer.ErrorCode.invalidRequest,
              message: AppServer.messages.invalidParams(AppServer.formatParamsError(error))
            })
          ),
        onRight: (decoded) =>
          Effect.flatMap(handler(decoded as never), (result) =>
            Either.match(encode(result), {
              onLeft: (error) =>
                Effect.fail(
                  new ResponseError({
                    method,
                    code: AppServer.ErrorCode.internalError,
                    message: `${method} answer: ${AppServer.formatParamsError(error)}`
                  })
                ),
              onRight: (encoded) => Effect.succeed(encoded)
            })
          )
      })
  }
  return out
}

/** The decoded params of a notification method. */
export type NotificationParams<N extends NotificationMethod> = (typeof AppServer.notifications)[N]["Type"]

/**
 * A typed handler of one notification method: `handler` runs for each `method` notification that
 * arrives from now on, in order, one at a time, until the scope closes or the connection closes.
 */
export const onNotification = <N extends NotificationMethod, R>(
  client: Service,
  method: N,
  handler: (params: NotificationParams<N>) => Effect.Effect<void, never, R>
): Effect.Effect<void, never, Scope.Scope | R> =>
  Effect.flatMap(client.subscribe, (queue) =>
    Effect.asVoid(
      Effect.forkScoped(
        Effect.forever(
          Effect.flatMap(Queue.take(queue), (n) =>
            n.method === method ? handler(n.params as NotificationParams<N>) : Effect.void
          )
        )
      )
    )
  )

/** A configured server's `mcpServer/list` entry, as `mcpServer/statusChanged` carries it. */
export type ServerEntry = NotificationParams<"mcpServer/statusChanged">

/** Options of {@link awaitServer}. */
export interface AwaitServerOptions {
  /** What the entry must satisfy (default: its startup settled, any status but `starting`). */
  readonly until?: (entry: ServerEntry) => boolean
  /** How long to wait (default {@link defaultRequestTimeout}); then it fails with reason `timeout`. */
  readonly timeout?: Duration.DurationInput
}

/**
 * Waits for a configured server without polling: subscribes to `mcpServer/statusChanged`, reads
 * `mcpServer/list`, and answers the first entry of `server` (the listed one, then each announced)
 * that satisfies `until`. Fails with reason `timeout` after the timeout, `closed` when the
 * connection closes.
 */
export const awaitServer = (
  client: Service,
  server: string,
  options: AwaitServerOptions = {}
): Effect.Effect<ServerEntry, ClientError | ResponseError> => {
  const until = options.until ?? ((entry: ServerEntry) => entry.status !== "starting")
  const timeout = Duration.decode(options.timeout ?? defaultRequestTimeout)
  const wait = Effect.gen(function* () {
    const queue = yield* client.subscribe
    const listed = (yield* client.request("mcpServer/list", {})).servers.find((s) => s.name === server)
    if (listed !== undefined && until(listed)) return listed
    for (;;) {
      const n = yield* Queue.take(queue)
      if (n.method === "mcpServer/statusChanged" && n.params.name === server && until(n.params)) return n.params
    }
  })
  const closed = Effect.flatMap(client.closed, (reason) =>
    Effect.fail(new ClientError({ reason: "closed", message: `waiting for MCP server '${server}': ${reason}` }))
  )
  return Effect.scoped(Effect.raceFirst(wait, closed)).pipe(
    Effect.timeoutFail({
      duration: timeout,
      onTimeout: () =>
        new ClientError({
          reason: "timeout",
          message: `MCP server '${server}' did not reach the awaited status within ${describe(timeout)}`
        })
    })
  )
}

/** Runs the JSON-RPC client over a transport until the scope closes. */
export const make = (
  transport: Transport.Transport,
  options: Options = {}
): Effect.Effect<Service, never, Scope.Scope> =>
  Effect.gen(function* () {
    const requestTimeout = Duration.decode(options.requestTimeout ?? defaultRequestTimeout)
    const handlers = options.serverRequests ?? {}
    const pending = new Map<number, Pending>()
    const typedSubscribers = new Set<Queue.Queue<Notification>>()
    const rawSubscribers = new Set<Queue.Queue<RawNotification>>()
    const serverRequests = new Map<string | number, Fiber.RuntimeFiber<void, never>>()
    const closedReason = yield* Deferred.make<string>()
    let closed: string | undefined
    let nextId = 1
    const runHandler = yield* FiberSet.makeRuntime<never, void, never>()
    const clock = yield* Effect.clock
    const codecs = makeCodecs()

    const sendJson = (message: Json): Effect.Effect<void, ClientError> =>
      transport.send(JSON.stringify({ jsonrpc: "2.0", ...message }))

    const onClosed = (reason: string) => {
      if (closed !== undefined) return
      closed = reason
      Deferred.unsafeDone(closedReason, Effect.succeed(reason))
      for (const [id, entry] of pending) {
        settle(
          entry,
          Either.left(
            new ClientError({
              reason: "closed",
              message: `${entry.method} (id ${id}) got no answer: the connection closed: ${reason}`
            })
          )
        )
      }
      pending.clear()
      for (const q of typedSubscribers) runHandler(Queue.shutdown(q))
      for (const q of rawSubscribers) runHandler(Queue.shutdown(q))
    }

    const onServerRequest = (id: string | number, method: string, params: unknown) => {
      const handler = Object.hasOwn(handlers, method) ? handlers[method] : undefined
      const answer: Effect.Effect<void> =
        handler === undefined
          ? sendJson({
              id,
              error: { code: AppServer.ErrorCode.methodNotFound, message: AppServer.messages.methodNotFound(method) }
            }).pipe(Effect.ignore)
          : handler(params).pipe(
              Effect.matchEffect({
                onSuccess: (result) => sendJson({ id, result: result ?? null }),
                onFailure: (e) =>
                  sendJson({
                    id,
                    error: { code: e.code, message: e.message, ...(e.data === undefined ? {} : { data: e.data }) }
                  })
              }),
              Effect.catchAllDefect((defect) =>
                sendJson({ id, error: { code: AppServer.ErrorCode.internalError, message: String(defect) } })
              ),
              Effect.ignore,
              Effect.ensuring(Effect.sync(() => serverRequests.delete(id)))
            )
      serverRequests.set(id, runHandler(answer))
    }

    const onNotification = (method: string, params: unknown) => {
      if (method === "$/cancelRequest" && isObject(params)) {
        const fiber = serverRequests.get(params.id as string | number)
        if (fiber !== undefined) runHandler(Effect.asVoid(Fiber.interrupt(fiber)))
      }
      for (const q of rawSubscribers) q.unsafeOffer({ method, params })
      if (typedSubscribers.size === 0 || !Object.hasOwn(AppServer.notifications, method)) return
      const schema = AppServer.notifications[method as NotificationMethod]
      const decoded = codecs.decoder(schema)(params ?? {})
      // A notification that does not match its schema is left to raw subscribers.
      if (Either.isLeft(decoded)) return
      const notification = { method, params: decoded.right } as Notification
      for (const q of typedSubscribers) q.unsafeOffer(notification)
    }

    const tap = options.onMessage
    const onMessage = (text: string) => {
      let message: unknown
      try {
        message = JSON.parse(text)
      } catch {
        tap?.(undefined, text)
        return // not JSON: nothing to match it with
      }
      tap?.(message, text)
      if (!isObject(message)) return
      const { id, method } = message
      if (typeof method === "string") {
        if (typeof id === "string" || typeof id === "number") onServerRequest(id, method, message.params)
        else onNotification(method, message.params)
        return
      }
      if (typeof id !== "number") return
      const entry = pending.get(id)
      if (entry === undefined) return
      pending.delete(id)
      settle(
        entry,
        entry.whole
          ? Either.right(message)
          : "error" in message && message.error !== undefined
            ? Either.left(responseError(entry.method, message.error))
            : Either.right(message.result)
      )
    }

    // Timeouts: one fiber sleeps until the earliest deadline (on the Clock, so TestClock drives it) and
    // fails what expired. Per-request `Effect.timeout` would fork a fiber and a timer for every request,
    // which costs more than the rest of a request together.
    const rearm = yield* Queue.sliding<void>(1)
    let wakeAt = Number.POSITIVE_INFINITY
    const expire = (now: number): number => {
      let next = Number.POSITIVE_INFINITY
      for (const [id, entry] of pending) {
        if (entry.deadline <= now) {
          pending.delete(id)
          settle(
            entry,
            Either.left(
              new ClientError({
                reason: "timeout",
                message: `${entry.method} (id ${id}) got no answer within ${describe(entry.timeout)} ($/cancelRequest sent)`
              })
            )
          )
          transport.unsafeSend(JSON.stringify({ jsonrpc: "2.0", method: "$/cancelRequest", params: { id } }))
        } else if (entry.deadline < next) next = entry.deadline
      }
      return next
    }
    const sweeper = Effect.gen(function* () {
      while (true) {
        const now = clock.unsafeCurrentTimeMillis()
        wakeAt = expire(now)
        const woken = Queue.take(rearm)
        yield* wakeAt === Number.POSITIVE_INFINITY
          ? woken
          : Effect.raceFirst(woken, Effect.sleep(Duration.millis(wakeAt - now)))
      }
    })
    yield* Effect.forkScoped(sweeper)

    const reader = Effect.gen(function* () {
      while (true) {
        const batch = yield* Queue.takeBetween(transport.incoming, 1, Number.POSITIVE_INFINITY)
        for (const item of batch) {
          if (item._tag === "closed") return onClosed(item.reason)
          onMessage(item.text)
        }
      }
    })
    yield* Effect.forkScoped(reader)
    yield* Effect.addFinalizer(() => Effect.sync(() => onClosed("the client was closed")))

    const cancel = (id: number): void => {
      if (pending.delete(id))
        transport.unsafeSend(JSON.stringify({ jsonrpc: "2.0", method: "$/cancelRequest", params: { id } }))
    }

    /** Sends a request and registers its answer's entry; a failure when it could not be sent. */
    const start = (
      method: string,
      params: unknown,
      requestOptions: RequestOptions | undefined,
      whole = false
    ): { readonly id: number; readonly entry: Pending } | ClientError => {
      if (closed !== undefined) {
        return new ClientError({
          reason: "closed",
          message: `${method} was not sent: the connection closed: ${closed}`
        })
      }
      const id = nextId++
      const timeout = requestOptions?.timeout === undefined ? requestTimeout : Duration.decode(requestOptions.timeout)
      const deadline = clock.unsafeCurrentTimeMillis() + Duration.toMillis(timeout)
      const entry: Pending = { method, deadline, timeout, whole, resume: undefined, settled: undefined }
      pending.set(id, entry)
      if (deadline < wakeAt) {
        wakeAt = deadline
        rearm.unsafeOffer(undefined)
      }
      const text = JSON.stringify(
        params === undefined ? { jsonrpc: "2.0", id, method } : { jsonrpc: "2.0", id, method, params }
      )
      if (!transport.unsafeSend(text)) {
        pending.delete(id)
        return new ClientError({ reason: "closed", message: `${method} was not sent: ${transport.peer} is closed` })
      }
      return { id, entry }
    }

    const awaitAnswer = (id: number, entry: Pending): Effect.Effect<unknown, ResponseError | ClientError> =>
      Effect.async<unknown, ResponseError | ClientError>((resume) => {
        if (entry.settled !== undefined) return resume(entry.settled)
        entry.resume = resume
        // Interrupted by the caller while still unanswered: the server is told.
        return Effect.sync(() => cancel(id))
      })

    const requestUnknown = (
      method: string,
      params?: unknown,
      requestOptions?: RequestOptions
    ): Effect.Effect<unknown, ResponseError | ClientError> =>
      Effect.suspend(() => {
        const started = start(method, params, requestOptions)
        if (started instanceof ClientError) return Effect.fail(started)
        return awaitAnswer(started.id, started.entry)
      })

    const startRequest = (
      method: string,
      params?: unknown,
      requestOptions?: RequestOptions
    ): Effect.Effect<StartedRequest, ClientError> =>
      Effect.suspend(() => {
        const started = start(method, params, requestOptions, true)
        if (started instanceof ClientError) return Effect.fail(started)
        const { id, entry } = started
        // A whole-message entry is only ever settled with a message or a ClientError.
        const response = awaitAnswer(id, entry) as Effect.Effect<Record<string, unknown>, ClientError>
        return Effect.succeed({ id, response })
      })

    const unsafeRequestUnknown = (
      method: string,
      params: unknown,
      requestOptions: RequestOptions | undefined,
      onAnswer: (answer: Answer) => void
    ): (() => void) => {
      const started = start(method, params, requestOptions)
      if (started instanceof ClientError) {
        onAnswer(Either.left(started))
        return () => {}
      }
      started.entry.resume = onAnswer
      return () => cancel(started.id)
    }

    const request = <M extends Method>(
      method: M,
      ...args: RequestArgs<M>
    ): Effect.Effect<Result<M>, ResponseError | ClientError> =>
      Effect.suspend(() => {
        const [params, requestOptions] = args as [Params<M> | undefined, RequestOptions | undefined]
        const encoded = encodeParams(method, params, codecs)
        if (Either.isLeft(encoded)) return Effect.fail(encoded.left)
        return Effect.flatMap(requestUnknown(method, encoded.right, requestOptions), (result) =>
          decodeResult(method, result, codecs)
        )
      })

    const subscribeTo = <A>(set: Set<Queue.Queue<A>>): Effect.Effect<Queue.Dequeue<A>, never, Scope.Scope> =>
      Effect.acquireRelease(
        Effect.gen(function* () {
          const queue = yield* Queue.unbounded<A>()
          if (closed !== undefined) yield* Queue.shutdown(queue)
          else set.add(queue)
          return queue
        }),
        (queue) =>
          Effect.zipRight(
            Effect.sync(() => set.delete(queue)),
            Queue.shutdown(queue)
          )
      )
    const subscribe = subscribeTo(typedSubscribers)

    const service: Service = {
      request,
      requestUnknown,
      unsafeRequestUnknown,
      startRequest,
      initialize: (clientInfo, requestOptions) =>
        request(
          "initialize",
          {
            clientInfo,
            capabilities: {
              serverRequests: Object.keys(handlers),
              ...(options.elicitationModes === undefined ? {} : { elicitationModes: options.elicitationModes })
            }
          },
          ...(requestOptions === undefined ? [] : [requestOptions])
        ),
      notify: (method, params) => sendJson(params === undefined ? { method } : { method, params }),
      subscribe,
      subscribeRaw: subscribeTo(rawSubscribers),
      notifications: Stream.unwrapScoped(Effect.map(subscribe, (queue) => Stream.fromQueue(queue))),
      closed: Deferred.await(closedReason),
      pid: transport.pid,
      exit: transport.exit
    }
    return service
  })

/** Spawns an app-server (or any command) and connects to it over standard input/output. */
export const stdio = (
  stdioOptions: Transport.StdioOptions,
  options?: Options
): Effect.Effect<Service, ClientError, Scope.Scope> =>
  Effect.flatMap(Transport.stdio(stdioOptions), (transport) => make(transport, options))

/** Connects to an app-server's WebSocket listener. */
export const webSocket = (
  webSocketOptions: Transport.WebSocketOptions,
  options?: Options
): Effect.Effect<Service, ClientError, Scope.Scope> =>
  Effect.flatMap(Transport.webSocket(webSocketOptions), (transport) => make(transport, options))

/** The client over standard input/output of a spawned command, as a layer. */
export const layerStdio = (
  stdioOptions: Transport.StdioOptions,
  options?: Options
): Layer.Layer<AppServerClient, ClientError> => Layer.scoped(AppServerClient, stdio(stdioOptions, options))

/** The client over a WebSocket, as a layer. */
export const layerWebSocket = (
  webSocketOptions: Transport.WebSocketOptions,
  options?: Options
): Layer.Layer<AppServerClient, ClientError> => Layer.scoped(AppServerClient, webSocket(webSocketOptions, options))
