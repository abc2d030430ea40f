/** The lifecycle runner shared by every tool call (resource-tools.md section 9, 11.3). */
import type { Mcp, ToolCallItem } from "@mcp-resources/protocol"
import { Clock, Effect } from "effect"
import { LifecycleSink } from "../LifecycleSink.js"

/** The optional app fields of an MCP tool item; each present only when it is a string. */
export interface AppFields {
  readonly connectorId?: string
  readonly linkId?: string
  readonly mcpAppResourceUri?: string
}

/** What the item is about: built once phase 1 has succeeded. */
export interface Invocation {
  readonly callId: string
  readonly server: string
  readonly tool: string
  readonly arguments: unknown
  readonly app?: AppFields
}

/** How phase 2 ended: what the completed item shows and what the caller gets. */
export interface Outcome {
  readonly status: "completed" | "failed"
  readonly result: Mcp.CallToolResult | null
  readonly error: { readonly message: string } | null
  readonly output: string
  readonly success: boolean
}

/** The result of a tool call as a host gives it to the model. */
export interface ToolOutput {
  readonly output: string
  readonly success: boolean
}

/** A failure: `status:"failed"`, `result:null`, `error:{message}`; the message is the output. */
export const failure = (message: string): Outcome => ({
  status: "failed",
  result: null,
  error: { message },
  output: message,
  success: false
})

/** The message of a cancelled call's completed item. */
export const cancelledMessage = "cancelled"

const item = (
  invocation: Invocation,
  fields: Pick<ToolCallItem.McpToolCallItem, "status" | "result" | "error" | "durationMs">
): ToolCallItem.McpToolCallItem => ({
  type: "mcpToolCall",
  id: invocation.callId,
  server: invocation.server,
  tool: invocation.tool,
  arguments: invocation.arguments,
  status: fields.status,
  result: fields.result,
  error: fields.error,
  durationMs: fields.durationMs,
  ...(invocation.app?.connectorId === undefined ? {} : { connectorId: invocation.app.connectorId }),
  ...(invocation.app?.linkId === undefined ? {} : { linkId: invocation.app.linkId }),
  ...(invocation.app?.mcpAppResourceUri === undefined ? {} : { mcpAppResourceUri: invocation.app.mcpAppResourceUri })
})

/**
 * Emits the started item, runs the operation, emits the completed item with the elapsed whole
 * milliseconds (from Clock), and returns the output. An interrupted operation completes its item as
 * failed with message `cancelled` before the interruption goes on.
 */
export const run = (
  invocation: Invocation,
  operation: Effect.Effect<Outcome>
): Effect.Effect<ToolOutput, never, LifecycleSink> =>
  Effect.uninterruptibleMask((restore) =>
    Effect.gen(function* () {
      const sink = yield* LifecycleSink
      yield* sink.emit({
        phase: "started",
        item: item(invocation, { status: "inProgress", result: null, error: null, durationMs: null })
      })
      const start = yield* Clock.currentTimeMillis
      const complete = (outcome: Outcome) =>
        Effect.flatMap(Clock.currentTimeMillis, (end) =>
          sink.emit({
            phase: "completed",
            item: item(invocation, {
              status: outcome.status,
              result: outcome.result,
              error: outcome.error,
              durationMs: Math.max(0, Math.floor(end - start))
            })
          })
        )
      const outcome = yield* restore(operation).pipe(Effect.onInterrupt(() => complete(failure(cancelledMessage))))
      yield* complete(outcome)
      return { output: outcome.output, success: outcome.success }
    })
  )
