/**
 * Clients of the app-server besides the stdio child of AppServerProcess: the app-server in this process
 * over a store the test chooses (`MainLayer.layer` with no transport, one connection attached to the
 * dispatcher), and a WebSocket client (the typed client's). Every wait is bounded; `close()` ends what
 * was opened.
 */
import { AppOptions, JsonRpcServer, MainLayer } from "@mcp-resources/app-server"
import type { ThreadStore } from "@mcp-resources/thread-store"
import { AppServerClient } from "@mcp-resources/app-server-client"
import { Duration, Effect, Exit, type Layer, Logger, LogLevel, ManagedRuntime, Scope } from "effect"
import type { Message } from "../../src/AppServerProcess.js"

/** The messages a client received and bounded waits for the ones to come. */
const messageBox = () => {
  const messages: Array<Message> = []
  const waiters = new Set<{ readonly predicate: (m: Message) => boolean; readonly resolve: (m: Message) => void }>()
  const push = (message: Message) => {
    messages.push(message)
    for (const waiter of [...waiters]) {
      if (waiter.predicate(message)) {
        waiters.delete(waiter)
        waiter.resolve(message)
      }
    }
  }
  const waitFor = (predicate: (m: Message) => boolean, timeoutMs = 15_000): Promise<Message> => {
    const found = messages.find(predicate)
    if (found !== undefined) return Promise.resolve(found)
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        waiters.delete(waiter)
        reject(new Error(`timed out after ${timeoutMs} ms waiting for a message`))
      }, timeoutMs)
      const waiter = {
        predicate,
        resolve: (m: Message) => {
          clearTimeout(timer)
          resolve(m)
        }
      }
      waiters.add(waiter)
    })
  }
  const response = (id: string, timeoutMs?: number) => waitFor((m) => m.id === id && m.method === undefined, timeoutMs)
  return { messages, push, waitFor, response }
}

/** A running in-process app-server with one connection. */
export interface InProcessServer {
  readonly messages: Array<Message>
  readonly request: (method: string, params?: unknown, timeoutMs?: number) => Promise<Message>
  readonly waitFor: (predicate: (m: Message) => boolean, timeoutMs?: number) => Promise<Message>
  readonly close: () => Promise<void>
}

/** Starts the server (config file, data dir) over `store`, attaches a connection and initializes it. */
export const startInProcess = async (options: {
  readonly configPath: string
  readonly dataDir: string
  readonly store: Layer.Layer<ThreadStore.ThreadStore, ThreadStore.ThreadStoreError>
}): Promise<InProcessServer> => {
  const runtime = ManagedRuntime.make(
    MainLayer.layer(
      {
        configPath: options.configPath,
        dataDir: options.dataDir,
        listen: undefined,
        stdio: false,
        allowRemote: false,
        allowInsecureRemote: false,
        tokenEnv: undefined,
        token: undefined,
        allowOrigins: [],
        tls: undefined,
        limits: AppOptions.defaultLimits
      },
      { store: options.store }
    )
  )
  const box = messageBox()
  const scope = Effect.runSync(Scope.make())
  const close = async () => {
    await Effect.runPromise(Scope.close(scope, Exit.void))
    await runtime.dispose()
  }
  try {
    const dispatcher = await runtime.runPromise(JsonRpcServer.JsonRpcServer)
    const session = await runtime.runPromise(
      Scope.extend(
        dispatcher.attach("in-process", (text) => box.push(JSON.parse(text) as Message)),
        scope
      )
    )
    let next = 1
    const request = async (method: string, params?: unknown, timeoutMs = 15_000) => {
      const id = `ip-${next++}`
      // Run outside the server's runtime: quiet, as its own logger would be at `error`.
      await Effect.runPromise(
        session.receive(JSON.stringify({ id, method, params })).pipe(Logger.withMinimumLogLevel(LogLevel.Error))
      )
      return box.response(id, timeoutMs)
    }
    const init = await request("initialize", { clientInfo: { name: "reliability" } })
    if (init.error !== undefined) throw new Error(`initialize failed: ${init.error.message}`)
    return { messages: box.messages, request, waitFor: box.waitFor, close }
  } catch (error) {
    await close()
    throw error
  }
}

/**
 * A WebSocket client of the app-server, initialized: the typed client's WebSocket transport and request
 * table (`@mcp-resources/app-server-client`), with every message it receives kept as received.
 */
export const wsClient = async (url: string) => {
  const box = messageBox()
  const scope = Effect.runSync(Scope.make())
  const close = () => Effect.runPromise(Scope.close(scope, Exit.void))
  const client = await Effect.runPromise(
    Scope.extend(AppServerClient.webSocket({ url }, { onMessage: (message) => box.push(message as Message) }), scope)
  )
  const request = (method: string, params?: unknown, timeoutMs = 15_000): Promise<Message> =>
    Effect.runPromise(
      client.startRequest(method, params, { timeout: Duration.millis(timeoutMs) }).pipe(
        Effect.flatMap((started) => started.response),
        Effect.map((answer) => answer as Message)
      )
    )
  try {
    const init = await request("initialize", { clientInfo: { name: "reliability-ws" } })
    if (init.error !== undefined) throw new Error(`initialize failed: ${init.error.message}`)
  } catch (error) {
    await close()
    throw error
  }
  return { request, close, messages: box.messages }
}
