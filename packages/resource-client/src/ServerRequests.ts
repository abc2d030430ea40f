/**
 * Requests an MCP server makes of the host: elicitation (form and URL modes), and optionally sampling
 * and roots. The host installs handlers with {@link layer}; without one every elicitation is declined
 * (the default, as before this service existed) and sampling and roots are not offered. The same
 * handlers answer the server-to-client requests of the `initialize` era (`elicitation/create`, …) and
 * the `inputRequests` of a 2026-07-28 `input_required` result.
 *
 * Each request names the server and the context it belongs to ({@link RequestContext}): the thread
 * and call that were running a request on that connection when it came, set by the host with
 * {@link withContext} around its tool calls and reads. Threadless connections never reach a handler.
 */
import { Context, Effect, FiberRef, Layer } from "effect"
import { dual } from "effect/Function"

/** Which thread (and call) a request of the server belongs to; empty when it belongs to none. */
export interface RequestContext {
  readonly threadId?: string
  readonly turnId?: string
  readonly callId?: string
}

/** An `elicitation/create` (form or URL mode): the params as the server sent them. */
export interface ElicitationRequest {
  /** The server's name in the host's config. */
  readonly server: string
  /** `{mode?: "form", message, requestedSchema}` or `{mode: "url", message, url, elicitationId}`. */
  readonly params: Readonly<Record<string, unknown>>
  readonly context: RequestContext
}

/** The host's answer to an elicitation. */
export type ElicitationResult =
  | {
      readonly action: "accept"
      readonly content?: Readonly<Record<string, string | number | boolean | ReadonlyArray<string>>>
    }
  | { readonly action: "decline" }
  | { readonly action: "cancel" }

/** A `sampling/createMessage` or `roots/list` request: the params as the server sent them. */
export interface GenericRequest {
  readonly server: string
  readonly params: Readonly<Record<string, unknown>>
  readonly context: RequestContext
}

/** The host's handlers. A handler that fails or dies is answered as a decline (elicitation) or an error. */
export interface Service {
  /** Elicitation; without it every elicitation is declined. */
  readonly elicitation?: {
    /** URL mode is declared to servers only when this is true (form mode always is). */
    readonly url?: boolean
    readonly handle: (request: ElicitationRequest) => Effect.Effect<ElicitationResult>
  }
  /** `sampling/createMessage`: the result as MCP defines it (`{role, content, model, stopReason?}`). */
  readonly sampling?: (request: GenericRequest) => Effect.Effect<Readonly<Record<string, unknown>>, Error>
  /** `roots/list`: the result as MCP defines it (`{roots: [{uri, name?}]}`). */
  readonly roots?: (request: GenericRequest) => Effect.Effect<Readonly<Record<string, unknown>>, Error>
}

/** The answer every elicitation gets without a handler. */
export const decline: ElicitationResult = { action: "decline" }

/** The default: no handlers (elicitation declined, sampling and roots not offered). */
export const declining: Service = {}

/** The ServerRequests service; when no layer provides it, the declining default is used. */
export class ServerRequests extends Context.Reference<ServerRequests>()(
  "@mcp-resources/resource-client/ServerRequests",
  { defaultValue: (): Service => declining }
) {}

/** The host's handlers. */
export const layer = (handlers: Service): Layer.Layer<ServerRequests> => Layer.succeed(ServerRequests, handlers)

/** The default layer: every elicitation declined. */
export const layerDecline: Layer.Layer<ServerRequests> = Layer.succeed(ServerRequests, declining)

/** The context of the requests made by the current fiber (see {@link withContext}). */
export const currentContext: FiberRef.FiberRef<RequestContext | undefined> = FiberRef.unsafeMake<
  RequestContext | undefined
>(undefined)

/**
 * Runs `effect` with its MCP requests marked as belonging to `context`: a server request that comes
 * while they run is given that context, and a call's tool timeout is paused while the host answers it.
 */
export const withContext: {
  (context: RequestContext): <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
  <A, E, R>(effect: Effect.Effect<A, E, R>, context: RequestContext): Effect.Effect<A, E, R>
} = dual(
  2,
  <A, E, R>(effect: Effect.Effect<A, E, R>, context: RequestContext): Effect.Effect<A, E, R> =>
    Effect.locally(effect, currentContext, context)
)
