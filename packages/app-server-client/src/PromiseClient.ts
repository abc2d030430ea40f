/**
 * The client for code that does not use Effect: the same client behind Promises. `request` rejects with
 * the {@link ResponseError} or {@link ClientError} itself; an `AbortSignal` cancels a request
 * (`$/cancelRequest`); `close()` ends the child or closes the socket.
 */
import { Cause, Duration, Effect, Either, Exit, Queue, Scope } from "effect"
import * as AppServerClient from "./AppServerClient.js"
import { ResponseError } from "./Errors.js"
import type * as Transport from "./Transport.js"

/** Options of one request. */
export interface RequestOptions {
  /** How long to wait for the answer (default: the client's `requestTimeoutMs`). */
  readonly timeoutMs?: number
  /** Aborting it cancels the request (`$/cancelRequest` is sent) and rejects the promise. */
  readonly signal?: AbortSignal
}

/** Options of {@link connectStdio} and {@link connectWebSocket}. */
export interface Options {
  /** How long a request waits for its answer unless it says otherwise (default 60 000). */
  readonly requestTimeoutMs?: number
  /** The server-to-client requests this client answers, by method; a rejection that is a {@link ResponseError} is sent as is. */
  readonly serverRequests?: Readonly<Record<string, (params: unknown) => Promise<unknown>>>
  /** The elicitation modes the `mcpServer/elicitation/request` handler answers (absent: form only). */
  readonly elicitationModes?: ReadonlyArray<"form" | "url">
}

/** A connected client. */
export interface PromiseClient {
  /** Sends a request and resolves with its typed result. */
  readonly request: <M extends AppServerClient.Method>(
    method: M,
    params: AppServerClient.Params<M>,
    options?: RequestOptions
  ) => Promise<AppServerClient.Result<M>>
  /** Sends any request and resolves with the result undecoded. */
  readonly requestUnknown: (method: string, params?: unknown, options?: RequestOptions) => Promise<unknown>
  /** `initialize`, declaring the methods of `serverRequests`. */
  readonly initialize: (
    clientInfo: AppServerClient.Params<"initialize">["clientInfo"]
  ) => Promise<AppServerClient.Result<"initialize">>
  /** Sends a notification. */
  readonly notify: (method: string, params?: unknown) => Promise<void>
  /** Calls `listener` with every decoded notification from now on; returns the function that stops it. */
  readonly onNotification: (listener: (notification: AppServerClient.Notification) => void) => () => void
  /** Resolves with the reason once the connection closed. */
  readonly closed: Promise<string>
  /** The app-server's process id (stdio only). */
  readonly pid: number | undefined
  /** Resolves when the app-server process exited (stdio only), with its code or signal. */
  readonly exited: Promise<Transport.ProcessExit> | undefined
  /** Closes the connection (the child is ended, the socket closed). */
  readonly close: () => Promise<void>
  /** The Effect client underneath, for libraries that take one (closed by {@link close}). */
  readonly service: AppServerClient.Service
}

/** Runs an effect; rejects with its failure itself (not wrapped). */
const run = async <A, E>(effect: Effect.Effect<A, E>, signal?: AbortSignal): Promise<A> => {
  const exit = await Effect.runPromiseExit(effect, signal === undefined ? undefined : { signal })
  if (Exit.isSuccess(exit)) return exit.value
  throw Cause.squash(exit.cause)
}

const toEffectOptions = (options: Options): AppServerClient.Options => ({
  ...(options.elicitationModes === undefined ? {} : { elicitationModes: options.elicitationModes }),
  ...(options.requestTimeoutMs === undefined ? {} : { requestTimeout: Duration.millis(options.requestTimeoutMs) }),
  ...(options.serverRequests === undefined
    ? {}
    : {
        serverRequests: Object.fromEntries(
          Object.entries(options.serverRequests).map(([method, handler]) => [
            method,
            (params: unknown) =>
              Effect.tryPromise({
                try: () => handler(params),
                catch: (e) =>
                  e instanceof ResponseError
                    ? e
                    : new ResponseError({ method, code: -32603, message: e instanceof Error ? e.message : String(e) })
              })
          ])
        )
      })
})

const connect = async (open: Effect.Effect<AppServerClient.Service, unknown, Scope.Scope>): Promise<PromiseClient> => {
  const scope = Effect.runSync(Scope.make())
  let client: AppServerClient.Service
  try {
    client = await run(Scope.extend(open, scope))
  } catch (e) {
    await Effect.runPromise(Scope.close(scope, Exit.void))
    throw e
  }
  const codecs = AppServerClient.makeCodecs()
  const withTimeout = (options?: RequestOptions) =>
    options?.timeoutMs === undefined ? undefined : { timeout: Duration.millis(options.timeoutMs) }
  // Straight on the client's request table, without a fiber per request (what a bench loop measures).
  const requestUnknown = (method: string, params?: unknown, options?: RequestOptions): Promise<unknown> =>
    new Promise((resolve, reject) => {
      const signal = options?.signal
      if (signal?.aborted) return reject(signal.reason)
      const onAbort = () => {
        cancel()
        reject(signal?.reason)
      }
      const cancel = client.unsafeRequestUnknown(method, params, withTimeout(options), (answer) => {
        signal?.removeEventListener("abort", onAbort)
        if (Either.isRight(answer)) resolve(answer.right)
        else reject(answer.left)
      })
      signal?.addEventListener("abort", onAbort, { once: true })
    })
  return {
    request: async (method, params, options) => {
      const encoded = AppServerClient.encodeParams(method, params, codecs)
      if (Either.isLeft(encoded)) throw encoded.left
      const decoded = AppServerClient.decodeResult(method, await requestUnknown(method, encoded.right, options), codecs)
      if (Either.isLeft(decoded)) throw decoded.left
      return decoded.right
    },
    requestUnknown,
    initialize: (clientInfo) => run(client.initialize(clientInfo)),
    notify: (method, params) => run(client.notify(method, params)),
    onNotification: (listener) => {
      const listening = Effect.runSync(Scope.fork(scope, { _tag: "Sequential" }))
      const queue = Effect.runSync(Scope.extend(client.subscribe, listening))
      Effect.runFork(Effect.forever(Effect.flatMap(Queue.take(queue), (n) => Effect.sync(() => listener(n)))), {
        scope: listening
      })
      return () => void Effect.runPromise(Scope.close(listening, Exit.void))
    },
    closed: Effect.runPromise(client.closed),
    pid: client.pid,
    exited: client.exit === undefined ? undefined : Effect.runPromise(client.exit),
    close: () => Effect.runPromise(Scope.close(scope, Exit.void)),
    service: client
  }
}

/** Spawns an app-server (or any command) and connects to it over standard input/output. */
export const connectStdio = (stdio: Transport.StdioOptions, options: Options = {}): Promise<PromiseClient> =>
  connect(AppServerClient.stdio(stdio, toEffectOptions(options)))

/** Connects to an app-server's WebSocket listener. */
export const connectWebSocket = (
  webSocket: Transport.WebSocketOptions,
  options: Options = {}
): Promise<PromiseClient> => connect(AppServerClient.webSocket(webSocket, toEffectOptions(options)))

/** Connects over a transport opened by `open` (for example `BrowserTransport.browserWebSocket` in a web page). */
export const connectTransport = (
  open: Effect.Effect<Transport.Transport, unknown, Scope.Scope>,
  options: Options = {}
): Promise<PromiseClient> =>
  connect(Effect.flatMap(open, (transport) => AppServerClient.make(transport, toEffectOptions(options))))
