/**
 * `tool/list` and `tool/call`: the thread's model tools over its binding. A call runs through the host
 * (ToolHost.ts), which records its lifecycle items durably and gives it the hooks, the audit and the
 * resource-changes watch; the thread's queue lets the next request go once its started item is recorded.
 */
import { ToolHandlers } from "@mcp-resources/tool-handlers"
import { Effect } from "effect"
import { method } from "../Method.js"
import { Threads } from "../Threads.js"
import { ToolHost } from "../ToolHost.js"

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
    owner: (p) => p.threadId,
    run: (p, { connection }) =>
      Effect.gen(function* () {
        const thread = yield* Effect.flatMap(Threads, (threads) => threads.get(connection, p.threadId))
        const call = { callId: p.callId, name: p.name, arguments: p.arguments }
        const output = yield* Effect.flatMap(ToolHost, (host) =>
          host.toolCall(thread, p, (context, resourceChanges) =>
            // every profile gets the read watch; only one that watches reads (extended) uses it
            ToolHandlers.callTool({ ...context, resourceChanges }, call)
          )
        )
        // `contentItems` only in the extended profile: a codex result stays as it was
        return output.contentItems === undefined
          ? { callId: p.callId, output: output.output, success: output.success }
          : { callId: p.callId, output: output.output, success: output.success, contentItems: output.contentItems }
      })
  })
}
