/** `tool/list` and `tool/call`: the thread's model tools over its binding, with lifecycle items recorded durably. */
import type { ToolCallItem } from "@mcp-resources/protocol"
import { LifecycleSink, ToolHandlers } from "@mcp-resources/tool-handlers"
import { Clock, Effect } from "effect"
import { ThreadIdParams, ToolCallParams } from "../internal/params.js"
import { invalidRequest, messages, method } from "../Method.js"
import { type Thread, Threads } from "../Threads.js"

/** The `cancelled` completion of a call interrupted after its started item. */
const cancelledItem = (started: ToolCallItem.McpToolCallItem, durationMs: number): ToolCallItem.McpToolCallItem => {
  const { connectorId, linkId, mcpAppResourceUri, ...base } = started
  return {
    ...base,
    status: "failed",
    result: null,
    error: { message: "cancelled" },
    durationMs,
    ...(connectorId !== undefined ? { connectorId } : {}),
    ...(linkId !== undefined ? { linkId } : {}),
    ...(mcpAppResourceUri !== undefined ? { mcpAppResourceUri } : {})
  }
}

/** The tool methods. */
export const toolMethods = {
  "tool/list": method({
    params: ThreadIdParams,
    run: (p, { connection }) =>
      Effect.gen(function* () {
        const threads = yield* Threads
        const thread = yield* threads.get(connection, p.threadId)
        const tools = yield* threads.withToolContext(thread, ToolHandlers.listTools)
        return { tools }
      })
  }),
  "tool/call": method({
    params: ToolCallParams,
    ordering: "call",
    threadId: (p) => p.threadId,
    run: (p, { connection, ticket }) =>
      Effect.gen(function* () {
        const threads = yield* Threads
        const thread: Thread = yield* threads.get(connection, p.threadId)
        yield* threads.refresh(thread)
        if (!threads.hasTurn(thread, p.turnId))
          return yield* Effect.fail(invalidRequest(messages.turnNotFound(p.turnId)))
        if (threads.hasCall(thread, p.callId))
          return yield* Effect.fail(invalidRequest(messages.duplicateCallId(p.callId)))
        let started: { readonly item: ToolCallItem.McpToolCallItem; readonly at: number } | undefined
        let completed = false
        const notification = (kind: "started" | "completed", item: ToolCallItem.McpToolCallItem) => ({
          method: `item/${kind}`,
          params: { threadId: thread.id, turnId: p.turnId, item }
        })
        const sink = LifecycleSink.LifecycleSink.of({
          emit: ({ phase, item }) =>
            Effect.gen(function* () {
              if (phase === "started") {
                yield* threads.record(
                  thread,
                  { _tag: "itemStarted", turnId: p.turnId, item },
                  notification(phase, item)
                )
                started = { item, at: yield* Clock.currentTimeMillis }
                yield* ticket.release
              } else {
                yield* threads.record(
                  thread,
                  { _tag: "itemCompleted", turnId: p.turnId, item },
                  notification(phase, item)
                )
                completed = true
              }
            }).pipe(Effect.orDie, Effect.uninterruptible)
        })
        // A call interrupted after its started item completes that item as failed with `cancelled`.
        const onCancel = Effect.gen(function* () {
          if (started === undefined || completed) return
          const now = yield* Clock.currentTimeMillis
          const item = cancelledItem(started.item, Math.max(0, Math.floor(now - started.at)))
          yield* threads
            .record(thread, { _tag: "itemCompleted", turnId: p.turnId, item }, notification("completed", item))
            .pipe(Effect.catchAll((error) => Effect.logWarning(`could not record a cancelled item: ${error.message}`)))
        })
        const output = yield* threads
          .withToolContext(thread, (context) =>
            ToolHandlers.callTool(context, { callId: p.callId, name: p.name, arguments: p.arguments })
          )
          .pipe(
            Effect.provideService(LifecycleSink.LifecycleSink, sink),
            Effect.onInterrupt(() => onCancel)
          )
        return { callId: p.callId, output: output.output, success: output.success }
      })
  })
}
