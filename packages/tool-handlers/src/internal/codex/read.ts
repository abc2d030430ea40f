/** `read_mcp_resource` of the codex profile (resource-tools.md section 8): one `resources/read`, one JSON text. */
import { type Mcp, Messages } from "@mcp-resources/protocol"
import { Effect, Either } from "effect"
import * as Arguments from "../../Arguments.js"
import * as Content from "../../Content.js"
import type { EmitError, LifecycleSink } from "../../LifecycleSink.js"
import type { ToolCall, ToolContext, ToolOutput } from "../context.js"
import * as Lifecycle from "../lifecycle.js"
import * as Rules from "../rules.js"

const absurd = (never: never): Lifecycle.Outcome => never

/** The read's outcome through the codex content entry (which never refuses a result). */
const readOutcome = (ctx: ToolContext, server: string, uri: string, result: Mcp.ReadResourceResult) => {
  const rendered = Content.codex.read(Content.budgetOf(ctx), server, uri, result)
  return Either.isRight(rendered) ? Content.codex.outcome(rendered.right, false) : Content.codex.failure(rendered.left)
}

/** Runs one codex read: arguments, the access gate, the resource rules, the read. */
export const callReadTool = (ctx: ToolContext, call: ToolCall): Effect.Effect<ToolOutput, EmitError, LifecycleSink> => {
  const parsed = Arguments.parseReadArguments(call.arguments)
  if (Either.isLeft(parsed)) return Effect.succeed({ output: parsed.left.message, success: false })
  const { server, uri, raw } = parsed.right
  const invocation = { callId: call.callId, server, tool: call.name, arguments: raw }
  if (!Rules.canAccess(ctx, server)) {
    return Lifecycle.runWith(
      invocation,
      Effect.fail(Messages.serverDisabledByOrchestrator(server)),
      absurd,
      Lifecycle.failure
    )
  }
  const refused = Rules.refusedRead(ctx, server, uri)
  if (refused !== undefined) return Lifecycle.runWith(invocation, Effect.fail(refused), absurd, Lifecycle.failure)
  // one match turns the read into the outcome (no map, mapError, catchAll steps)
  return Lifecycle.runWith(
    invocation,
    Rules.requested(ctx, ctx.set.readResource(server, uri)),
    (result) => readOutcome(ctx, server, uri, result),
    (error) => Lifecycle.failure(Messages.toolFailure.read(error.message))
  )
}
