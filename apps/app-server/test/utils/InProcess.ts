/**
 * The app-server in the test's own process: the main layer without transports (over a store the test
 * may wrap), one connection attached to the dispatcher, its messages collected. Every wait is bounded;
 * the server and its MCP children close with the scope.
 */
import type { ThreadStore } from "@mcp-resources/thread-store"
import { Data, Deferred, Duration, Effect, Layer, type Scope } from "effect"
import * as AppOptions from "../../src/AppOptions.js"
import * as JsonRpcServer from "../../src/JsonRpcServer.js"
import * as MainLayer from "../../src/MainLayer.js"
import * as ServerStatus from "./serverStatus.js"

/** A message the server sent on the connection. */
export type Message = Record<string, unknown> & {
  readonly id?: unknown
  readonly method?: unknown
  readonly result?: unknown
  readonly error?: { readonly code: number; readonly message: string }
  readonly params?: Record<string, unknown>
}

/** A wait that did not complete in time. */
export class WaitTimeout extends Data.TaggedError("WaitTimeout")<{ readonly message: string }> {}

/** A started in-process server with one initialized connection. */
export interface InProcessServer {
  readonly messages: Array<Message>
  readonly dispatcher: JsonRpcServer.Service
  /** Sends a request and waits for its answer. */
  readonly request: (method: string, params?: unknown) => Effect.Effect<Message, WaitTimeout>
  /** Sends a request without waiting; returns its id. */
  readonly send: (method: string, params?: unknown) => Effect.Effect<string>
  /** Sends a notification. */
  readonly notify: (method: string, params?: unknown) => Effect.Effect<void>
  /** Answers a request the server sent to this connection (a server request such as an elicitation). */
  readonly reply: (id: unknown, result: unknown) => Effect.Effect<void>
  /** Waits for a message that matches. */
  readonly waitFor: (predicate: (message: Message) => boolean, what: string) => Effect.Effect<Message, WaitTimeout>
}

const waitLimit = Duration.seconds(20)

/** Connection handlers over messages collected in order, with bounded waits. */
export const messageBox = () => {
  const messages: Array<Message> = []
  const waiters = new Set<{ readonly predicate: (m: Message) => boolean; readonly done: Deferred.Deferred<Message> }>()
  const push = (text: string) => {
    const message = JSON.parse(text) as Message
    messages.push(message)
    for (const waiter of [...waiters]) {
      if (waiter.predicate(message)) {
        waiters.delete(waiter)
        Deferred.unsafeDone(waiter.done, Effect.succeed(message))
      }
    }
  }
  const waitFor = (predicate: (m: Message) => boolean, what: string): Effect.Effect<Message, WaitTimeout> =>
    Effect.suspend(() => {
      const found = messages.find(predicate)
      if (found !== undefined) return Effect.succeed(found)
      const done = Deferred.unsafeMake<Message>(undefined as never)
      const waiter = { predicate, done }
      waiters.add(waiter)
      return Deferred.await(done).pipe(
        Effect.timeoutFail({
          duration: waitLimit,
          onTimeout: () => new WaitTimeout({ message: `timed out waiting for ${what}` })
        }),
        Effect.ensuring(Effect.sync(() => waiters.delete(waiter)))
      )
    })
  return { messages, push, waitFor }
}

/** Options of the server: everything a command line would give, without transports. */
export const serverOptions = (dataDir: string, configPath?: string): AppOptions.ServerOptions => ({
  configPath,
  dataDir,
  listen: undefined,
  stdio: false,
  allowRemote: false,
  allowInsecureRemote: false,
  tokenEnv: undefined,
  token: undefined,
  allowOrigins: [],
  tls: undefined,
  limits: AppOptions.defaultLimits
})

/** Attaches a connection to a dispatcher and initializes it (declaring `capabilities` when given). */
export const connect = (
  dispatcher: JsonRpcServer.Service,
  capabilities?: Record<string, unknown>
): Effect.Effect<InProcessServer, WaitTimeout, Scope.Scope> =>
  Effect.gen(function* () {
    const box = messageBox()
    const session = yield* dispatcher.attach("in-process", box.push)
    let next = 1
    const send = (method: string, params?: unknown) =>
      Effect.suspend(() => {
        const id = `r-${next++}`
        return Effect.as(session.receive(JSON.stringify({ id, method, params })), id)
      })
    const request = (method: string, params?: unknown) =>
      Effect.flatMap(send(method, params), (id) =>
        box.waitFor((m) => m.id === id && m.method === undefined, `the answer to ${method}`)
      )
    const notify = (method: string, params?: unknown) => session.receive(JSON.stringify({ method, params }))
    const reply = (id: unknown, result: unknown) => session.receive(JSON.stringify({ id, result }))
    const init = yield* request("initialize", {
      clientInfo: { name: "in-process-test" },
      ...(capabilities !== undefined ? { capabilities } : {})
    })
    if (init.error !== undefined) return yield* Effect.die(new Error(`initialize failed: ${init.error.message}`))
    return { messages: box.messages, dispatcher, request, send, notify, reply, waitFor: box.waitFor }
  })

/**
 * Starts the whole server (config file, data dir; `store` replaces what `[persistence]` chooses) in this
 * process and connects to it. Set `MCP_RESOURCES_LOG=error` first for a quiet run.
 */
export const startInProcess = (options: {
  readonly dataDir: string
  readonly configPath?: string
  readonly store?: Layer.Layer<ThreadStore.ThreadStore, ThreadStore.ThreadStoreError>
  /** The connection's `initialize` capabilities (for example the server requests it answers). */
  readonly capabilities?: Record<string, unknown>
}): Effect.Effect<InProcessServer, WaitTimeout | ThreadStore.ThreadStoreError | Error, Scope.Scope> =>
  Effect.gen(function* () {
    const layer = MainLayer.layer(
      serverOptions(options.dataDir, options.configPath),
      options.store !== undefined ? { store: options.store } : {}
    )
    const context = yield* Layer.build(layer)
    const dispatcher = yield* Effect.provide(JsonRpcServer.JsonRpcServer, context)
    return yield* connect(dispatcher, options.capabilities)
  }) as Effect.Effect<InProcessServer, WaitTimeout | ThreadStore.ThreadStoreError | Error, Scope.Scope>

/** The result of an answer (fails the test when it is an error). */
export const resultOf = (message: Message): Record<string, unknown> => {
  if (message.result === undefined) throw new Error(`expected a result, got ${JSON.stringify(message)}`)
  return message.result as Record<string, unknown>
}

/** The thread id of a `thread/start` answer. */
export const threadIdOf = (message: Message): string => (resultOf(message).thread as { id: string }).id

/** Waits until no server is `starting`, through `mcpServer/statusChanged` (`serverStatus.ts`); no polling. */
export const waitSettled = (server: InProcessServer): Effect.Effect<Array<Record<string, unknown>>, WaitTimeout> =>
  ServerStatus.waitServers(
    {
      messages: server.messages,
      list: Effect.map(
        server.request("mcpServer/list", {}),
        (m) => resultOf(m).servers as Array<Record<string, unknown>>
      ),
      awaitMessage: server.waitFor
    },
    ServerStatus.noneStarting,
    "no server starting"
  )
