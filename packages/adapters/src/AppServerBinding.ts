/**
 * The second source of the adapters' tools: a thread of a running app-server, through the typed client
 * of `@mcp-resources/app-server-client`. The tools are the app-server's `tool/list` of the thread and
 * each call is its `tool/call` with the model's raw argument text, so the model reads exactly the
 * app-server's messages; lifecycle items are the app-server's `item/started` and `item/completed`
 * notifications of the call; aborting a call sends `$/cancelRequest` (the app-server cancels the MCP
 * request and completes the item as failed).
 *
 * The app-server sends no notification when a thread's tool list changes: a thread is bound to the
 * app-server's MCP connections at each `turn/start`, and `tool/list` reflects that binding's catalog
 * as the servers refresh it. So list again per run or step, as with a thread binding.
 */
import { randomUUID } from "node:crypto"
import type { AppServerClient, PromiseClient } from "@mcp-resources/app-server-client"
import type { LifecycleSink, ToolHandlers } from "@mcp-resources/tool-handlers"
import { Cause, Effect, Exit, Queue } from "effect"
import { constant } from "effect/Function"
import type { BridgeTool, CallOptions } from "./Bridge.js"
import { abortReason } from "./internal/abort.js"

/** A thread of an app-server as the adapters' source of tools. */
export interface AppServerBinding {
  /** A connected, initialized client: the Effect `AppServerClient` service or a `PromiseClient`. */
  readonly client: AppServerClient.Service | PromiseClient.PromiseClient
  /** The thread whose tools these are (from `thread/start` or `thread/resume`). */
  readonly threadId: string
  /**
   * The turn the calls belong to, or a function giving the current one (read at every call). Absent:
   * every listing starts a turn (`turn/start`, which also binds the thread to the app-server's current
   * MCP connections) and the tools it returns call in that turn.
   */
  readonly turnId?: string | (() => string)
  /** Receives the app-server's lifecycle items (`started`, then `completed`) of every call; default: none. */
  readonly onLifecycle?: (event: LifecycleSink.LifecycleEvent) => void
}

/** Whether a source is an app-server thread (rather than a thread binding in this process). */
export const isAppServerBinding = (source: object): source is AppServerBinding =>
  "client" in source && "threadId" in source

const serviceOf = (binding: AppServerBinding): AppServerClient.Service =>
  "service" in binding.client ? binding.client.service : binding.client

/** Runs an effect of the client; aborting `signal` interrupts it (a request in flight is cancelled). */
const run = async <A, E>(effect: Effect.Effect<A, E>, signal?: AbortSignal): Promise<A> => {
  if (signal?.aborted === true) throw abortReason(signal)
  const exit = await Effect.runPromiseExit(effect, signal === undefined ? undefined : { signal })
  if (Exit.isSuccess(exit)) return exit.value
  // aborted while it ran: the request was interrupted, `$/cancelRequest` sent
  const aborted = signal as AbortSignal | undefined
  throw aborted?.aborted === true ? abortReason(aborted) : Cause.squash(exit.cause)
}

/**
 * What the model reads when the app-server refuses the request itself (a JSON-RPC error such as
 * `turn not found: {turnId}`) or the connection fails (timeout, closed): a failed call whose output is
 * the error's message. Failures of the tool are normal `tool/call` results and pass through as they are.
 */
const failedRequest = (error: { readonly message: string }): ToolHandlers.ToolOutput => ({
  output: error.message,
  success: false
})

/** The `item/*` notification of this call, as a lifecycle event; `undefined` for anything else. */
const lifecycleOf = (
  notification: AppServerClient.Notification,
  threadId: string,
  callId: string
): LifecycleSink.LifecycleEvent | undefined =>
  (notification.method === "item/started" || notification.method === "item/completed") &&
  notification.params.threadId === threadId &&
  notification.params.item.id === callId
    ? { phase: notification.method === "item/started" ? "started" : "completed", item: notification.params.item }
    : undefined

const callEffect = (
  binding: AppServerBinding,
  params: AppServerClient.Params<"tool/call">
): Effect.Effect<ToolHandlers.ToolOutput> => {
  const client = serviceOf(binding)
  const request = client.request("tool/call", params).pipe(
    Effect.map(
      ({ output, success, contentItems }): ToolHandlers.ToolOutput =>
        contentItems === undefined ? { output, success } : { output, success, contentItems }
    ),
    Effect.catchAll((error) => Effect.succeed(failedRequest(error)))
  )
  const onLifecycle = binding.onLifecycle
  if (onLifecycle === undefined) return request
  return Effect.scoped(
    Effect.gen(function* () {
      // Subscribed before the request: the app-server sends the call's items before its answer.
      const queue = yield* client.subscribe
      yield* Effect.forkScoped(
        Effect.forever(
          Effect.flatMap(Queue.take(queue), (notification) =>
            Effect.sync(() => {
              const event = lifecycleOf(notification, params.threadId, params.callId)
              if (event !== undefined) onLifecycle(event)
            })
          )
        )
      )
      const output = yield* request
      // Every notification sent before the answer is in the queue already: let the delivery catch up
      // (a size of -1 is the delivering fiber waiting on an empty queue), so the items reach the host
      // before the framework sees the result.
      while (!(yield* Queue.isShutdown(queue)) && (yield* Queue.size(queue)) !== -1) yield* Effect.yieldNow()
      return output
    })
  )
}

/**
 * Runs one call on the raw argument text through the app-server's `tool/call` in `turnId`. Never
 * rejects for a failed call; rejects only when `signal` aborts (`$/cancelRequest` was sent).
 */
export const callTool = (
  binding: AppServerBinding,
  turnId: string,
  name: string,
  rawArguments: string,
  options: CallOptions = {}
): Promise<ToolHandlers.ToolOutput> =>
  run(
    callEffect(binding, {
      threadId: binding.threadId,
      turnId,
      callId: options.callId ?? `call_${randomUUID()}`,
      name,
      arguments: rawArguments
    }),
    options.signal
  )

/**
 * The thread's current tools from the app-server's `tool/list` (after a `turn/start` when the binding
 * names no turn). Rejects with the app-server's error when it refuses (an unknown thread, say).
 */
export const listTools = async (binding: AppServerBinding): Promise<ReadonlyArray<BridgeTool>> => {
  const client = serviceOf(binding)
  const threadId = binding.threadId
  const given = binding.turnId
  const turnOf =
    given === undefined
      ? constant((await run(client.request("turn/start", { threadId }))).turn.id)
      : typeof given === "function"
        ? given
        : constant(given)
  const { tools } = await run(client.request("tool/list", { threadId }))
  return tools.map(
    (spec): BridgeTool => ({
      name: spec.name,
      description: spec.description,
      parameters: spec.parameters,
      call: (rawArguments, options) => callTool(binding, turnOf(), spec.name, rawArguments, options)
    })
  )
}
