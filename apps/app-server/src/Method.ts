/**
 * The shape of a method handler: its name (which gives its params and result schemas), its place in
 * the thread's queue and its body.
 * Handlers fail with {@link MethodError} for protocol-level refusals and with the packages' errors
 * otherwise; `JsonRpcServer` maps every failure to a JSON-RPC error in one place.
 */
import { AppServer, type Wire } from "@mcp-resources/protocol"
import { type Effect, Either, Schema } from "effect"
import type { Connection } from "./Connections.js"

/** A method's refusal with an explicit JSON-RPC code (`-32600` refusals and the like). */
export class MethodError extends Schema.TaggedError<MethodError>()("MethodError", {
  code: Schema.Number,
  message: Schema.String
}) {}

/** The fixed messages of the wire contract (app-server-protocol.md sections 2 and 3). */
export const messages = AppServer.messages

/** JSON-RPC error codes of the app-server. */
export const codes = AppServer.ErrorCode

/** `-32600` with the given message. */
export const invalidRequest = (message: string): MethodError => new MethodError({ code: codes.invalidRequest, message })

/** `-32600` for a request whose id is the id of a request of the same connection still in flight. */
export const requestIdInFlight = (id: string | number): string =>
  `Invalid request: id ${JSON.stringify(id)} is already used by a request in flight`

/** `-32600` `thread not found: {threadId}` */
export const threadNotFound = (threadId: string): MethodError => invalidRequest(messages.threadNotFound(threadId))

/** Whether `error` is the `thread not found` refusal of `threadId` (a deleted thread), not another failure. */
export const isThreadNotFound = (error: unknown, threadId: string): boolean =>
  error instanceof MethodError && error.message === messages.threadNotFound(threadId)

/** A request's place in its thread's queue (app-server-protocol.md section 2). */
export interface Ticket {
  /** Completes when the request may run. */
  readonly ready: Effect.Effect<void>
  /** Lets later requests of the thread start (a tool call's, once its started item is recorded: internal/threadQueue.ts). */
  readonly release: Effect.Effect<void>
}

/** What a handler receives besides its params. */
export interface RequestContext {
  readonly connection: Connection
}

/** How a method is ordered on its thread: `exclusive` waits for every earlier request; `call` for the earlier start points. */
export type Ordering = "exclusive" | "call" | "none"

/** A request whose params decoded: its thread (when it is ordered on one) and its body. */
export interface Prepared<R> {
  readonly threadId: string | undefined
  /** The thread whose owning instance runs the request on a clustered app-server (ThreadOwners.ts); else undefined. */
  readonly owner: string | undefined
  readonly run: (context: RequestContext) => Effect.Effect<unknown, unknown, R>
}

/**
 * One method, type-erased so that a table can hold them all: its name, ordering, params decoder and
 * result schema. The dispatcher encodes every result through `result` before sending it.
 */
export interface Method<R> {
  readonly name: AppServer.Method
  readonly ordering: Ordering
  /** The method's result schema (`AppServer.results[name]`). */
  readonly result: Schema.Schema<unknown, unknown>
  /** Decodes the params with the server's codecs; the failure is the whole `Invalid request: {detail}` message. */
  readonly prepare: (params: unknown, codecs: Wire.Codecs) => Either.Either<Prepared<R>, string>
}

/** What a method is defined by: its ordering, its thread (for an ordered method) and its body. */
export interface Definition<M extends AppServer.Method, R> {
  readonly ordering?: Ordering
  readonly threadId?: (params: AppServer.Params<M>) => string
  /**
   * The thread whose owning instance runs the request on a clustered app-server (its appends and tool
   * runs serialized there; docs/deploying.md). Unclustered, nothing changes.
   */
  readonly owner?: (params: AppServer.Params<M>) => string
  readonly run: (params: AppServer.Params<M>, context: RequestContext) => Effect.Effect<AppServer.Result<M>, unknown, R>
}

/**
 * Defines a method: its params and result types come from the protocol's schemas for `name`
 * (`AppServer.methods` and `AppServer.results`), so a handler cannot return another shape.
 */
export const method = <M extends AppServer.Method, R>(name: M, definition: Definition<M, R>): Method<R> => {
  const ordering = definition.ordering ?? "none"
  return {
    name,
    ordering,
    result: AppServer.results[name] as unknown as Schema.Schema<unknown, unknown>,
    prepare: (params, codecs) =>
      Either.map(
        Either.mapLeft(codecs.decodeParams(name, params), messages.invalidParams),
        (decoded): Prepared<R> => ({
          threadId: ordering === "none" ? undefined : definition.threadId?.(decoded),
          owner: definition.owner?.(decoded),
          run: (context) => definition.run(decoded, context)
        })
      )
  }
}
