/**
 * The registry of open client connections (stdio and WebSocket) and the one place outgoing messages
 * are encoded: every message carries `"jsonrpc":"2.0"`.
 */
import type { AppServer } from "@mcp-resources/protocol"
import { Context, Deferred, Effect, Layer, Option, type Scope } from "effect"

/** A JSON-RPC request id: a string or a number. */
export type RequestId = string | number

/** One client connection; `write` sends one encoded message (a stdio line or a WebSocket text frame). */
export interface Connection {
  readonly id: number
  readonly label: string
  readonly write: (text: string) => void
}

/** What a connection's client declared at `initialize`. */
export interface ClientSession {
  readonly clientInfo: { readonly name: string; readonly version?: string }
  /** Undefined when the client sent no `capabilities` (a protocol version 1 client). */
  readonly capabilities: AppServer.ClientCapabilities | undefined
}

/** The end of a server-to-client request without a result: the client's error answer, or its connection closed. */
export type ServerRequestFailure =
  | { readonly _tag: "error"; readonly code: number; readonly message: string }
  | { readonly _tag: "closed" }

/** The operations of the registry. */
export interface Service {
  /** Registers a connection until the scope closes. */
  readonly open: (label: string, write: (text: string) => void) => Effect.Effect<Connection, never, Scope.Scope>
  /** Sends a result response. */
  readonly respond: (connection: Connection, id: RequestId, result: unknown) => Effect.Effect<void>
  /** Sends an error response. */
  readonly respondError: (
    connection: Connection,
    id: RequestId | null,
    error: { readonly code: number; readonly message: string }
  ) => Effect.Effect<void>
  /** Records what the connection's client declared at `initialize` (kept until the connection closes). */
  readonly setClient: (connection: Connection, client: ClientSession) => Effect.Effect<void>
  /** What the client of an open connection declared at `initialize`; none before it and once closed. */
  readonly client: (connectionId: number) => Effect.Effect<Option.Option<ClientSession>>
  /** Whether the client of an open connection declared that it answers the server-to-client request `request`. */
  readonly answers: (connectionId: number, request: string) => Effect.Effect<boolean>
  /** The ids of the open connections whose client sent `initialize`. */
  readonly initialized: Effect.Effect<ReadonlyArray<number>>
  /** Sends a notification to each of the given connections that is still open. */
  readonly notify: (connectionIds: Iterable<number>, method: string, params: unknown) => Effect.Effect<void>
  /**
   * Sends a server-to-client request (id `s-N`) to an open connection and waits for its answer: the
   * `result`, or the client's `error`, or `closed` when the connection is (or becomes) closed.
   * Interrupting the wait sends the client `$/cancelRequest` with the request's id.
   */
  readonly request: (
    connectionId: number,
    method: string,
    params: unknown
  ) => Effect.Effect<unknown, ServerRequestFailure>
  /**
   * Hands a response message (no `method`) of the connection to the server request it answers; false
   * when no request of this connection waits for that id.
   */
  readonly answer: (connection: Connection, message: Record<string, unknown>) => boolean
  /** Runs `listener` with the id of every connection that closes from now on (after it is unregistered). */
  readonly onClose: (listener: (connectionId: number) => Effect.Effect<void>) => Effect.Effect<void>
}

/** The connection registry tag. Layer: `layer`. */
export class Connections extends Context.Tag("@mcp-resources/app-server/Connections")<Connections, Service>() {}

const encode = (message: unknown): string => JSON.stringify(message)

/** Builds the registry. */
export const make: Effect.Effect<Service> = Effect.sync(() => {
  const open = new Map<number, Connection>()
  const clients = new Map<number, ClientSession>()
  const closeListeners: Array<(connectionId: number) => Effect.Effect<void>> = []
  /** Server-to-client requests waiting for their answer, per connection, by id. */
  const waiting = new Map<number, Map<string, Deferred.Deferred<unknown, ServerRequestFailure>>>()
  let next = 1
  let nextRequest = 1
  const send = (connection: Connection, message: unknown) =>
    Effect.sync(() => {
      if (open.get(connection.id) === connection) connection.write(encode(message))
    })
  return Connections.of({
    open: (label, write) =>
      Effect.acquireRelease(
        Effect.sync(() => {
          const connection: Connection = { id: next++, label, write }
          open.set(connection.id, connection)
          return connection
        }),
        (connection) =>
          Effect.zipRight(
            Effect.sync(() => {
              open.delete(connection.id)
              clients.delete(connection.id)
              const pending = waiting.get(connection.id)
              waiting.delete(connection.id)
              for (const deferred of pending?.values() ?? [])
                Deferred.unsafeDone(deferred, Effect.fail({ _tag: "closed" }))
            }),
            Effect.forEach(closeListeners, (listener) => listener(connection.id), { discard: true })
          )
      ),
    setClient: (connection, client) =>
      Effect.sync(() => {
        if (open.get(connection.id) === connection) clients.set(connection.id, client)
      }),
    client: (connectionId) => Effect.sync(() => Option.fromNullable(clients.get(connectionId))),
    initialized: Effect.sync(() => [...clients.keys()].filter((id) => open.has(id))),
    answers: (connectionId, request) =>
      Effect.sync(() => clients.get(connectionId)?.capabilities?.serverRequests?.includes(request) ?? false),
    respond: (connection, id, result) => send(connection, { jsonrpc: "2.0", id, result }),
    respondError: (connection, id, error) =>
      send(connection, { jsonrpc: "2.0", id, error: { code: error.code, message: error.message } }),
    notify: (connectionIds, method, params) =>
      Effect.sync(() => {
        const text = encode({ jsonrpc: "2.0", method, params })
        for (const id of connectionIds) open.get(id)?.write(text)
      }),
    request: (connectionId, method, params) =>
      Effect.suspend(() => {
        const connection = open.get(connectionId)
        if (connection === undefined) return Effect.fail<ServerRequestFailure>({ _tag: "closed" })
        const id = `s-${nextRequest++}`
        const deferred = Deferred.unsafeMake<unknown, ServerRequestFailure>(undefined as never)
        let pending = waiting.get(connectionId)
        if (pending === undefined) {
          pending = new Map()
          waiting.set(connectionId, pending)
        }
        pending.set(id, deferred)
        connection.write(encode({ jsonrpc: "2.0", id, method, params }))
        return Deferred.await(deferred).pipe(
          Effect.onInterrupt(() =>
            Effect.sync(() => {
              if (open.get(connectionId) === connection) {
                connection.write(encode({ jsonrpc: "2.0", method: "$/cancelRequest", params: { id } }))
              }
            })
          ),
          Effect.ensuring(Effect.sync(() => waiting.get(connectionId)?.delete(id)))
        )
      }),
    answer: (connection, message) => {
      if (open.get(connection.id) !== connection) return false
      const id = message.id
      const deferred = typeof id === "string" ? waiting.get(connection.id)?.get(id) : undefined
      if (deferred === undefined) return false
      const error = message.error
      if (typeof error === "object" && error !== null) {
        const { code, message: text } = error as { code?: unknown; message?: unknown }
        Deferred.unsafeDone(
          deferred,
          Effect.fail({
            _tag: "error",
            code: typeof code === "number" ? code : 0,
            message: typeof text === "string" ? text : ""
          })
        )
      } else {
        Deferred.unsafeDone(deferred, Effect.succeed(message.result))
      }
      return true
    },
    onClose: (listener) => Effect.sync(() => void closeListeners.push(listener))
  })
})

/** The registry layer. */
export const layer: Layer.Layer<Connections> = Layer.effect(Connections, make)
