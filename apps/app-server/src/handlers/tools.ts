/** `tool/list` and `tool/call`: the thread's model tools over its binding, with lifecycle items recorded durably. */
import type { ToolCallItem } from "@mcp-resources/protocol"
import { LifecycleSink, ToolHandlers } from "@mcp-resources/tool-handlers"
import { Clock, Effect } from "effect"
import { cancelledMessage, failedItem, resultNotStoredMessage } from "../internal/items.js"
import { invalidRequest, messages, method } from "../Method.js"
import { type Thread, Threads } from "../Threads.js"

/** The tool methods. */
export const toolMethods = {
  "tool/list": method("tool/list", {
    run: (p, { connection }) =>
      Effect.gen(function* () {
        const threads = yield* Threads
        const thread = yield* threads.get(connection, p.threadId)
        const tools = yield* threads.withToolContext(thread, ToolHandlers.listTools)
        return { tools }
      })
  }),
  "tool/call": method("tool/call", {
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
                // The tool ran: its result is stored even when the append first loses a race, or failed
                // with the cause once the store accepts writes again (Threads.recordCompletion).
                const startedItem = started?.item ?? item
                yield* threads.recordCompletion(thread, p.turnId, item, (cause) =>
                  failedItem(startedItem, resultNotStoredMessage(cause), item.durationMs)
                )
                completed = true
              }
            }).pipe(Effect.orDie, Effect.uninterruptible)
        })
        // A call interrupted after its started item completes that item as failed with `cancelled`.
        const onCancel = Effect.gen(function* () {
          if (started === undefined || completed) return
          const now = yield* Clock.currentTimeMillis
          const item = failedItem(started.item, cancelledMessage, Math.max(0, Math.floor(now - started.at)))
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
