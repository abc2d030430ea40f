/**
 * The app-server in this process, over a store the test chooses: `MainLayer.layer` with no transport
 * and one connection attached to the dispatcher, driven with JSON-RPC text like a client. Every wait is
 * bounded; `close()` detaches the connection and disposes the runtime (children included).
 */
import { JsonRpcServer, MainLayer } from "@mcp-resources/app-server"
import type { ThreadStore } from "@mcp-resources/thread-store"
import { Effect, Exit, type Layer, Logger, LogLevel, ManagedRuntime, Scope } from "effect"
import type { Message } from "../../src/AppServerProcess.js"

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
        tokenEnv: undefined,
        allowOrigins: []
      },
      { store: options.store }
    )
  )
  const messages: Array<Message> = []
  const waiters = new Set<{ readonly predicate: (m: Message) => boolean; readonly resolve: (m: Message) => void }>()
  const scope = Effect.runSync(Scope.make())
  const close = async () => {
    await Effect.runPromise(Scope.close(scope, Exit.void))
    await runtime.dispose()
  }
  try {
    const dispatcher = await runtime.runPromise(JsonRpcServer.JsonRpcServer)
    const session = await runtime.runPromise(
      Scope.extend(
        dispatcher.attach("in-process", (text) => {
          const message = JSON.parse(text) as Message
          messages.push(message)
          for (const waiter of [...waiters]) {
            if (waiter.predicate(message)) {
              waiters.delete(waiter)
              waiter.resolve(message)
            }
          }
        }),
        scope
      )
    )
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
    let next = 1
    const request = async (method: string, params?: unknown, timeoutMs = 15_000) => {
      const id = `ip-${next++}`
      // Run outside the server's runtime: quiet, as its own logger would be at `error`.
      await Effect.runPromise(
        session.receive(JSON.stringify({ id, method, params })).pipe(Logger.withMinimumLogLevel(LogLevel.Error))
      )
      return waitFor((m) => m.id === id && m.method === undefined, timeoutMs)
    }
    const init = await request("initialize", { clientInfo: { name: "reliability" } })
    if (init.error !== undefined) throw new Error(`initialize failed: ${init.error.message}`)
    return { messages, request, waitFor, close }
  } catch (error) {
    await close()
    throw error
  }
}
