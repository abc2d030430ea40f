/** A model's call of one `mcp__…` tool (resource-tools.md section 11.3): the server's result through the profile's content pipeline entry. */
import { Messages } from "@mcp-resources/protocol"
import { Effect, Either } from "effect"
import * as Arguments from "../Arguments.js"
import type { EmitError, LifecycleSink } from "../LifecycleSink.js"
import type * as McpToolNames from "../McpToolNames.js"
import * as Content from "../Content.js"
import type { ToolCall, ToolContext, ToolOutput } from "./context.js"
import * as Lifecycle from "./lifecycle.js"
import * as Rules from "./rules.js"
import * as ToolMeta from "./toolMeta.js"

/** Runs the call of a registered, enabled MCP tool. */
export const callMcpTool = (
  ctx: ToolContext,
  call: ToolCall,
  named: McpToolNames.NamedTool,
  content: Content.Pipeline
): Effect.Effect<ToolOutput, EmitError, LifecycleSink> => {
  const parsed = Arguments.parseRaw(call.arguments)
  if (Either.isLeft(parsed)) return Effect.succeed({ output: parsed.left.message, success: false })
  const args = parsed.right
  const { server, tool } = named
  const request = Rules.requested(
    ctx,
    args === null ? ctx.set.callTool(server, tool.name) : ctx.set.callTool(server, tool.name, args)
  )
  const operation = request.pipe(
    Effect.map((result): Lifecycle.Outcome => content.toolResult(Content.budgetOf(ctx), server, result)),
    Effect.catchAll((error) => Effect.succeed(content.failure(Messages.toolFailure.call(error.message))))
  )
  return Lifecycle.run(
    {
      callId: call.callId,
      server,
      tool: tool.name,
      arguments: args,
      app: ToolMeta.appFields(tool, server === ctx.config.apps.serverName)
    },
    operation
  )
}
