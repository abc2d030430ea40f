/** The MCP tool-call item of lifecycle notifications (app-server-protocol.md section 4). */
import { Schema } from "effect"
import { CallToolResult } from "./Mcp.js"
import { opt } from "./internal/schema.js"

/** `inProgress`, `completed` or `failed`. */
export const ItemStatus = Schema.Literal("inProgress", "completed", "failed")
/** `inProgress`, `completed` or `failed`. */
export type ItemStatus = typeof ItemStatus.Type

/** `{type:"mcpToolCall", id, server, tool, arguments, status, result, error, durationMs, connectorId?, linkId?, mcpAppResourceUri?}` */
export const McpToolCallItem = Schema.Struct({
  type: Schema.Literal("mcpToolCall"),
  id: Schema.String,
  server: Schema.String,
  tool: Schema.String,
  arguments: Schema.Unknown,
  status: ItemStatus,
  result: Schema.NullOr(CallToolResult),
  error: Schema.NullOr(Schema.Struct({ message: Schema.String })),
  durationMs: Schema.NullOr(Schema.Number),
  connectorId: opt(Schema.String),
  linkId: opt(Schema.String),
  mcpAppResourceUri: opt(Schema.String),
  initiator: opt(
    Schema.Literal("widget").annotations({
      description: "Set on a call a widget made (mcp/widget/callTool); absent on the model's calls."
    })
  ),
  originCallId: opt(
    Schema.String.annotations({ description: "With initiator widget: the call whose widget made this call." })
  )
}).annotations({ identifier: "McpToolCallItem" })
/** The MCP tool-call item. */
export type McpToolCallItem = typeof McpToolCallItem.Type
