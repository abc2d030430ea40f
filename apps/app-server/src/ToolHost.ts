/**
 * What the host gives a tool call (docs/policy.md, resource-tools.md section 9): the lifecycle sink that
 * records the call's items durably in its thread (and sends `item/started` / `item/completed`), the
 * config's command hooks, the audit recorded with the items and, for the model's calls, the
 * resource-changes watch of the extended profile. Built once (MainLayer.ts); `tool/call` and
 * `mcp/widget/callTool` run their calls through it.
 *
 * An item the store does not take fails the sink's `emit` (`LifecycleSink.EmitError`, which ends the
 * call); the host keeps the store's error for that call and fails the call with it (`ThreadStoreError`
 * or `MethodError`).
 */
import type { Config, ToolCallItem } from "@mcp-resources/protocol"
import { ResourceClient, ServerRequests } from "@mcp-resources/resource-client"
import type { ThreadStore } from "@mcp-resources/thread-store"
import { LifecycleSink, type ResourceChanges, type ToolHandlers, ToolHooks } from "@mcp-resources/tool-handlers"
import { Context, Effect, Layer } from "effect"
import { CommandHooks } from "./CommandHooks.js"
import { failedItem, resultNotStoredMessage } from "./internal/items.js"
import { invalidRequest, type MethodError, messages } from "./Method.js"
import { ResourceSubscriptions } from "./ResourceSubscriptions.js"
import { type Thread, Threads } from "./Threads.js"

/** Why a call's item or its thread's state could not be recorded. */
export type RecordError = ThreadStore.ThreadStoreError | MethodError

/** The services a call runs with, which the host provides. */
export type Provided = LifecycleSink.LifecycleSink | ToolHooks.ToolHooks | ToolHooks.ToolAuditLog

/** The first error of a call's sink: what its `LifecycleSink.EmitError` stands for. */
interface NotRecorded {
  error: RecordError | undefined
}

/** The operations of the host. */
export interface Service {
  /**
   * Runs the model's call `callId` in the thread's turn: refused `turn not found` or `duplicate callId`
   * (checked against what this process knows; only a refusal looks for other processes' records first,
   * and an append that conflicts checks again once caught up: ThreadState.record). Its MCP requests
   * carry the call's context (an elicitation is forwarded to a client of the thread: Elicitation.ts).
   */
  readonly toolCall: <A, E, R>(
    thread: Thread,
    call: { readonly turnId: string; readonly callId: string },
    use: (context: ToolHandlers.ToolContext, resourceChanges: ResourceChanges.ReadWatch) => Effect.Effect<A, E, R>
  ) => Effect.Effect<A, Exclude<E, LifecycleSink.EmitError> | RecordError, Exclude<R, Provided>>
  /** Runs a widget's call in the originating call's turn (its items recorded as the model's are). */
  readonly widgetCall: <A, E, R>(
    thread: Thread,
    turnId: string,
    use: (context: ToolHandlers.ToolContext) => Effect.Effect<A, E, R>
  ) => Effect.Effect<A, Exclude<E, LifecycleSink.EmitError> | RecordError, Exclude<R, Provided>>
}

/** The ToolHost tag. Layer: `layer`. */
export class ToolHost extends Context.Tag("@mcp-resources/app-server/ToolHost")<ToolHost, Service>() {}

/** Builds the host over the threads, the config's hooks and the resource subscriptions. */
export const make = Effect.gen(function* () {
  const threads = yield* Threads
  const client = yield* ResourceClient.ResourceClient
  const hooks = yield* CommandHooks
  const subscriptions = yield* ResourceSubscriptions

  // The hooks of the config in force, looked up when the config object changes (a reload), not per call.
  let inForce: { readonly config: Config.HooksConfig | undefined; readonly hooks: ToolHooks.Service } | undefined
  const hooksOf = (config: Config.HooksConfig | undefined): ToolHooks.Service => {
    if (inForce === undefined || inForce.config !== config) inForce = { config, hooks: hooks.forConfig(config) }
    return inForce.hooks
  }

  /** Records the items in the thread's turn: `check` (the model's calls) makes the started item's append conflict-retrying. */
  const sink = (
    thread: Thread,
    turnId: string,
    check: (() => MethodError | undefined) | undefined,
    notRecorded: NotRecorded
  ) => {
    let started: ToolCallItem.McpToolCallItem | undefined
    const notification = (kind: "started" | "completed", item: ToolCallItem.McpToolCallItem) => ({
      method: `item/${kind}`,
      params: { threadId: thread.id, turnId, item }
    })
    return LifecycleSink.LifecycleSink.of({
      emit: ({ phase, item }) =>
        Effect.gen(function* () {
          if (phase === "started") {
            const event = { _tag: "itemStarted", turnId, item } as const
            yield* check === undefined
              ? threads.record(thread, event, notification(phase, item))
              : threads.record(thread, event, notification(phase, item), { check })
            started = item
          } else {
            // The tool ran (or was cancelled): its completion is stored even when the append first
            // loses a race, or failed with the cause once the store accepts writes again
            // (ThreadState.recordCompletion).
            const startedItem = started ?? item
            yield* threads.recordCompletion(thread, turnId, item, (cause) =>
              failedItem(startedItem, resultNotStoredMessage(cause), item.durationMs)
            )
          }
        }).pipe(
          Effect.catchAll((error) => {
            notRecorded.error ??= error
            return Effect.fail(new LifecycleSink.EmitError({ message: error.message }))
          }),
          Effect.uninterruptible
        )
    })
  }

  const audit = (thread: Thread, turnId: string) =>
    ToolHooks.ToolAuditLog.of({
      record: (record) =>
        threads.record(thread, { _tag: "toolAudited", turnId, audit: record }).pipe(
          Effect.catchAll((error) =>
            Effect.logWarning(`The audit record of call '${record.callId}' was not stored: ${error.message}`)
          ),
          Effect.uninterruptible
        )
    })

  /** Runs `use` with the thread's tool context and the host's services. */
  const run = <A, E, R>(
    thread: Thread,
    turnId: string,
    check: (() => MethodError | undefined) | undefined,
    use: (context: ToolHandlers.ToolContext) => Effect.Effect<A, E, R>
  ): Effect.Effect<A, Exclude<E, LifecycleSink.EmitError> | RecordError, Exclude<R, Provided>> => {
    const notRecorded: NotRecorded = { error: undefined }
    return Effect.gen(function* () {
      // host policy (docs/policy.md): the config's command hooks, and the audit recorded with the items
      const config = yield* client.config
      const services: Context.Context<Provided> = Context.make(
        LifecycleSink.LifecycleSink,
        sink(thread, turnId, check, notRecorded)
      ).pipe(
        Context.add(ToolHooks.ToolHooks, hooksOf(config.hooks)),
        Context.add(ToolHooks.ToolAuditLog, audit(thread, turnId))
      )
      return yield* Effect.provide(threads.withToolContext(thread, use), services)
    }).pipe(
      // the sink failed: the call fails with the store's error it kept
      Effect.catchAll(
        (error): Effect.Effect<never, E | RecordError> =>
          !(error instanceof LifecycleSink.EmitError)
            ? Effect.fail(error)
            : notRecorded.error === undefined
              ? Effect.die(error)
              : Effect.fail(notRecorded.error)
      )
    ) as Effect.Effect<A, Exclude<E, LifecycleSink.EmitError> | RecordError, Exclude<R, Provided>>
  }

  const toolCall: Service["toolCall"] = (thread, { turnId, callId }, use) =>
    Effect.gen(function* () {
      const refusal = (): MethodError | undefined =>
        !threads.hasTurn(thread, turnId)
          ? invalidRequest(messages.turnNotFound(turnId))
          : threads.hasCall(thread, callId)
            ? invalidRequest(messages.duplicateCallId(callId))
            : undefined
      if (refusal() !== undefined) {
        yield* threads.refresh(thread)
        const refused = refusal()
        if (refused !== undefined) return yield* Effect.fail(refused)
      }
      // extended profile: each successful read subscribes the thread to the resource, recorded with this turn
      const resourceChanges = subscriptions.watch(thread.id, turnId, (event) =>
        Effect.uninterruptible(threads.record(thread, event))
      )
      return yield* run(thread, turnId, refusal, (context) => use(context, resourceChanges)).pipe(
        // an MCP server's elicitation during the call is forwarded to a client of the thread (Elicitation.ts)
        ServerRequests.withContext({ threadId: thread.id, turnId, callId })
      )
    })

  const widgetCall: Service["widgetCall"] = (thread, turnId, use) => run(thread, turnId, undefined, use)

  return ToolHost.of({ toolCall, widgetCall })
})

/** The ToolHost layer. */
export const layer = Layer.effect(ToolHost, make)
