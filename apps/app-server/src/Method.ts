/**
 * The shape of a method handler: its params schema, its place in the thread's queue and its body.
 * Handlers fail with {@link RpcError} for protocol-level refusals and with the packages' errors
 * otherwise; `JsonRpcServer` maps every failure to a JSON-RPC error in one place.
 */
import { AppServer } from "@mcp-resources/protocol"
import { type Effect, Either, Schema } from "effect"
import type { Connection } from "./Connections.js"
import { decodeParams } from "./internal/params.js"

/** A failure with an explicit JSON-RPC code (`-32600` refusals and the like). */
export class RpcError extends Schema.TaggedError<RpcError>()("RpcError", {
  code: Schema.Number,
  message: Schema.String
}) {}

/** The fixed messages of the wire contract (app-server-protocol.md sections 2 and 3). */
export const messages = AppServer.messages

/** JSON-RPC error codes of the app-server. */
export const codes = AppServer.ErrorCode

/** `-32600` with the given message. */
export const invalidRequest = (message: string): RpcError => new RpcError({ code: codes.invalidRequest, message })

/** `-32600` for a request whose id is the id of a request of the same connection still in flight. */
export const requestIdInFlight = (id: string | number): string =>
  `Invalid request: id ${JSON.stringify(id)} is already used by a request in flight`

/** `-32600` `thread not found: {threadId}` */
export const threadNotFound = (threadId: string): RpcError => invalidRequest(messages.threadNotFound(threadId))

/** A request's place in its thread's queue (app-server-protocol.md section 2). */
export interface Ticket {
  /** Completes when the request may run. */
  readonly ready: Effect.Effect<void>
  /** Lets later requests of the thread start (a tool call calls it once its started item is recorded). */
  readonly release: Effect.Effect<void>
}

/** What a handler receives besides its params. */
export interface RequestContext {
  readonly connection: Connection
  /** The thread's queue position, for `tool/call` (its started item must be recorded in arrival order). */
  readonly ticket: Ticket
}

/** How a method is ordered on its thread: `exclusive` waits for every earlier request; `call` for the earlier start points. */
export type Ordering = "exclusive" | "call" | "none"

/** A request whose params decoded: its thread (when it is ordered on one) and its body. */
export interface Prepared<R> {
  readonly threadId: string | undefined
  readonly run: (context: RequestContext) => Effect.Effect<unknown, unknown, R>
}

/** One method, type-erased so that a table can hold them all: ordering and a params decoder. */
export interface Method<R> {
  readonly ordering: Ordering
  /** Decodes the params; the failure is the whole `Invalid request: {detail}` message. */
  readonly prepare: (params: unknown) => Either.Either<Prepared<R>, string>
}

/** Defines a method with its params type inferred from the schema. */
export const method = <P, I, R>(definition: {
  readonly params: Schema.Schema<P, I>
  readonly ordering?: Ordering
  readonly threadId?: (params: P) => string
  readonly run: (params: P, context: RequestContext) => Effect.Effect<unknown, unknown, R>
}): Method<R> => ({
  ordering: definition.ordering ?? "none",
  prepare: (params) =>
    Either.map(decodeParams(definition.params, params), (decoded) => ({
      threadId:
        definition.ordering === undefined || definition.ordering === "none"
          ? undefined
          : definition.threadId?.(decoded),
      run: (context) => definition.run(decoded, context)
    }))
})
