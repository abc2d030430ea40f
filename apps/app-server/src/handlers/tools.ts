/**
 * `tool/list` and `tool/call`: the thread's model tools over its binding, with lifecycle items recorded
 * durably. A call's items come from the tool handlers' lifecycle (`LifecycleSink`), which also owns the
 * failed `cancelled` completion of an interrupted call: this module only stores what it emits.
 */
import type { ToolCallItem } from "@mcp-resources/protocol"
import { ResourceClient, ServerRequests } from "@mcp-resources/resource-client"
import { LifecycleSink, ToolHandlers, ToolHooks } from "@mcp-resources/tool-handlers"
import { Effect } from "effect"
import * as CommandHooks from "../CommandHooks.js"
import { failedItem, resultNotStoredMessage } from "../internal/items.js"
import { invalidRequest, type MethodError, messages, method } from "../Method.js"
import { ResourceSubscriptions } from "../ResourceSubscriptions.js"
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
        // The turn and call id are checked against what this process knows; only a refusal looks for
        // other processes' records first (another process may have started the turn), and an append
        // that conflicts checks again once caught up (Threads.record).
        const refusal = (): MethodError | undefined =>
          !threads.hasTurn(thread, p.turnId)
            ? invalidRequest(messages.turnNotFound(p.turnId))
            : threads.hasCall(thread, p.callId)
              ? invalidRequest(messages.duplicateCallId(p.callId))
              : undefined
        if (refusal() !== undefined) {
          yield* threads.refresh(thread)
          const refused = refusal()
          if (refused !== undefined) return yield* Effect.fail(refused)
        }
        let started: ToolCallItem.McpToolCallItem | undefined
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
                  notification(phase, item),
                  { check: refusal }
                )
                started = item
                yield* ticket.release
              } else {
                // The tool ran (or was cancelled): its completion is stored even when the append first
                // loses a race, or failed with the cause once the store accepts writes again
                // (Threads.recordCompletion).
                const startedItem = started ?? item
                yield* threads.recordCompletion(thread, p.turnId, item, (cause) =>
                  failedItem(startedItem, resultNotStoredMessage(cause), item.durationMs)
                )
              }
            }).pipe(Effect.orDie, Effect.uninterruptible)
        })
        // host policy (docs/policy.md): the config's command hooks, and the audit recorded with the items
        const config = yield* Effect.flatMap(ResourceClient.ResourceClient, (client) => client.config)
        const audit = ToolHooks.ToolAudit.of({
          record: (record) =>
            threads.record(thread, { _tag: "toolAudited", turnId: p.turnId, audit: record }).pipe(
              Effect.catchAll((error) =>
                Effect.logWarning(`The audit record of call '${record.callId}' was not stored: ${error.message}`)
              ),
              Effect.uninterruptible
            )
        })
        // a profile that watches reads (extended) subscribes the thread to each resource read, recorded with this turn
        const resourceChanges = (yield* ResourceSubscriptions).watch(thread.id, p.turnId, (event) =>
          Effect.uninterruptible(threads.record(thread, event))
        )
        const output = yield* threads
          .withToolContext(thread, (context) =>
            ToolHandlers.callTool(
              { ...context, resourceChanges },
              {
                callId: p.callId,
                name: p.name,
                arguments: p.arguments
              }
            )
          )
          .pipe(
            Effect.provideService(LifecycleSink.LifecycleSink, sink),
            Effect.provideService(ToolHooks.ToolHooks, CommandHooks.forConfig(config.hooks)),
            Effect.provideService(ToolHooks.ToolAudit, audit),
            // an MCP server's elicitation during the call is forwarded to a client of the thread (Elicitation.ts)
            ServerRequests.withContext({ threadId: thread.id, turnId: p.turnId, callId: p.callId })
          )
        // `contentItems` only in the extended profile: a codex result stays as it was
        return output.contentItems === undefined
          ? { callId: p.callId, output: output.output, success: output.success }
          : { callId: p.callId, output: output.output, success: output.success, contentItems: output.contentItems }
      })
  })
}
