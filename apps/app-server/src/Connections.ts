/**
 * The registry of open client connections (stdio and WebSocket) and the one place outgoing messages
 * are encoded: every message carries `"jsonrpc":"2.0"`.
 */
import type { AppServer } from "@mcp-resources/protocol"
import { Context, Effect, Layer, Option, type Scope } from "effect"

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
  /** Sends a notification to each of the given connections that is still open. */
  readonly notify: (connectionIds: Iterable<number>, method: string, params: unknown) => Effect.Effect<void>
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
  let next = 1
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
            }),
            Effect.forEach(closeListeners, (listener) => listener(connection.id), { discard: true })
          )
      ),
    setClient: (connection, client) =>
      Effect.sync(() => {
        if (open.get(connection.id) === connection) clients.set(connection.id, client)
      }),
    client: (connectionId) => Effect.sync(() => Option.fromNullable(clients.get(connectionId))),
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
    onClose: (listener) => Effect.sync(() => void closeListeners.push(listener))
  })
})

/** The registry layer. */
export const layer: Layer.Layer<Connections> = Layer.effect(Connections, make)
