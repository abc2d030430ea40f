/**
 * MCP servers' elicitation requests forwarded to the client (server-requests.md): the resource
 * client's `ServerRequests` handler of the app-server. A request that belongs to a thread goes, as
 * `mcpServer/elicitation/request {threadId, server, params}`, to one connection that holds the thread
 * and declared at `initialize` that it answers it in the request's mode (`capabilities.elicitationModes`,
 * form only when absent): the first such connection to have started or resumed the thread. Without one (or without a thread: threadless reads never get here) it is
 * declined at once. The wait is bounded by `[mcp] elicitation_timeout_sec`; no answer in time, a
 * closed connection or an error answer is a decline, and the MCP call continues.
 */
import { AppServer } from "@mcp-resources/protocol"
import { ResourceClient, ServerRequests } from "@mcp-resources/resource-client"
import { Context, Duration, Effect, Either, Layer, Option, Schema } from "effect"
import { Connections } from "./Connections.js"
import { Threads } from "./Threads.js"

/** The server-to-client request method. */
export const requestMethod = "mcpServer/elicitation/request" satisfies AppServer.ServerRequestMethod

/** The names a client may declare in `capabilities.serverRequests` for it (the method, or the short form). */
export const declaredNames = [requestMethod, "elicitation"] as const

/** What the router needs once the threads exist (the threads are built over the resource client, which needs the router). */
export interface Binding {
  /** The connections holding the thread, in the order they started or resumed it. */
  readonly holders: (threadId: string) => ReadonlyArray<number>
  /** `[mcp] elicitation_timeout_sec` of the latest config, in seconds. */
  readonly timeoutSec: Effect.Effect<number>
}

/** The router: its `ServerRequests` handlers, and the late binding to the threads. */
export interface Service {
  readonly handlers: ServerRequests.Service
  readonly bind: (binding: Binding) => Effect.Effect<void>
}

/** The router tag. Layers: `layer` (the router and the resource client's `ServerRequests` over it), `layerBind`. */
export class Elicitation extends Context.Tag("@mcp-resources/app-server/Elicitation")<Elicitation, Service>() {}

const decodeAnswer = Schema.decodeUnknownEither(AppServer.ElicitationRequestResult)

/** An elicitation mode (MCP: `form`, the default, or `url`). */
export type Mode = "form" | "url"

/** The mode of an `elicitation/create`: `url` when it says so, form otherwise (MCP's default). */
export const modeOf = (params: Readonly<Record<string, unknown>>): Mode => (params.mode === "url" ? "url" : "form")

/** The modes a client answers: `capabilities.elicitationModes`, or form only when it names none. */
export const modesOf = (capabilities: AppServer.ClientCapabilities | undefined): ReadonlyArray<string> =>
  capabilities?.elicitationModes ?? ["form"]

const decline: ServerRequests.ElicitationResult = { action: "decline" }

/** Builds the router over the connection registry. */
export const make = Effect.gen(function* () {
  const connections = yield* Connections
  let binding: Binding | undefined

  /** Whether the client of the connection declared it answers elicitation in `mode`. */
  const answersMode = (connectionId: number, mode: Mode) =>
    Effect.gen(function* () {
      let declared = false
      for (const name of declaredNames) declared ||= yield* connections.answers(connectionId, name)
      if (!declared) return false
      const client = yield* connections.client(connectionId)
      return Option.isSome(client) && modesOf(client.value.capabilities).includes(mode)
    })

  /** The first holder of the thread that declared it answers elicitation in `mode`. */
  const target = (threadId: string, mode: Mode) =>
    Effect.gen(function* () {
      for (const connectionId of binding?.holders(threadId) ?? []) {
        if (yield* answersMode(connectionId, mode)) return connectionId
      }
      return undefined
    })

  const handle = (request: ServerRequests.ElicitationRequest): Effect.Effect<ServerRequests.ElicitationResult> =>
    Effect.gen(function* () {
      const threadId = request.context.threadId
      if (threadId === undefined || binding === undefined) return decline
      const mode = modeOf(request.params)
      const connectionId = yield* target(threadId, mode)
      if (connectionId === undefined) {
        yield* Effect.logDebug(
          `elicitation of MCP server '${request.server}' declined: no client answers ${mode}-mode elicitation`
        )
        return decline
      }
      const params: AppServer.ServerRequestParams<typeof requestMethod> = {
        threadId,
        server: request.server,
        params: request.params,
        ...(request.context.turnId === undefined ? {} : { turnId: request.context.turnId }),
        ...(request.context.callId === undefined ? {} : { callId: request.context.callId })
      }
      const timeoutSec = yield* binding.timeoutSec
      const answer = yield* connections
        .request(connectionId, requestMethod, params)
        .pipe(Effect.timeout(Duration.millis(Math.round(timeoutSec * 1000))), Effect.either)
      if (Either.isLeft(answer)) {
        const failure = answer.left
        const why =
          failure._tag === "TimeoutException"
            ? `no answer within ${timeoutSec}s`
            : failure._tag === "closed"
              ? "the connection closed"
              : `the client answered error ${failure.code}`
        yield* Effect.logInfo(`elicitation of MCP server '${request.server}' declined: ${why}`).pipe(
          Effect.annotateLogs({ threadId, connection: connectionId })
        )
        return decline
      }
      const decoded = decodeAnswer(answer.right)
      if (Either.isLeft(decoded)) {
        yield* Effect.logWarning(
          `elicitation of MCP server '${request.server}' declined: the client's answer is not an elicitation result`
        ).pipe(Effect.annotateLogs({ threadId, connection: connectionId }))
        return decline
      }
      return decoded.right as ServerRequests.ElicitationResult
    })

  return Elicitation.of({
    // both modes are declared to MCP servers; each request goes only to a client that answers its mode
    handlers: { elicitation: { url: true, handle } },
    bind: (next) =>
      Effect.sync(() => {
        binding = next
      })
  })
})

/** The router, and the resource client's `ServerRequests` over it. */
export const layer: Layer.Layer<Elicitation | ServerRequests.ServerRequests, never, Connections> = Layer.effectContext(
  Effect.map(make, (service) =>
    Context.make(Elicitation, service).pipe(Context.add(ServerRequests.ServerRequests, service.handlers))
  )
)

/** Binds the router to the threads and the latest config (after both exist). */
export const layerBind: Layer.Layer<never, never, Elicitation | Threads | ResourceClient.ResourceClient> =
  Layer.effectDiscard(
    Effect.gen(function* () {
      const router = yield* Elicitation
      const threads = yield* Threads
      const client = yield* ResourceClient.ResourceClient
      yield* router.bind({
        holders: threads.holders,
        timeoutSec: Effect.map(client.config, (config) => config.mcp.elicitationTimeoutSec)
      })
    })
  )
