/** The MCP tool-call item of lifecycle notifications (app-server-protocol.md section 4). */
import { Schema } from "effect"
import { CallToolResult } from "./Mcp.js"
import { opt } from "./internal/schema.js"

/** `inProgress`, `completed` or `failed`. */
export const ItemStatus = Schema.Literal("inProgress", "completed", "failed")
/** `inProgress`, `completed` or `failed`. */
export type ItemStatus = typeof ItemStatus.Type

/** One content item of a body a read returned: its SHA-256 and size, whether it is text and whether its bytes were kept. */
export const ReadBody = Schema.Struct({
  digest: Schema.String.annotations({
    description: "SHA-256 of the whole body (a text's UTF-8, a blob's decoded bytes), lowercase hex."
  }),
  size: Schema.Number.annotations({ description: "The body's size in bytes." }),
  text: Schema.Boolean.annotations({ description: "The body is text (a diff can be made of it)." }),
  kept: Schema.Boolean.annotations({
    description: "Its bytes were kept in the body store when read (a later read can diff against it)."
  })
}).annotations({ identifier: "ReadBody" })
/** One content item of a body a read returned. */
export type ReadBody = typeof ReadBody.Type

/** What an extended `read_mcp_resource` read: the URI (a template's expanded one) and each content item's body. */
export const ResourceRead = Schema.Struct({
  uri: Schema.String,
  contents: Schema.Array(ReadBody)
}).annotations({ identifier: "ResourceRead" })
/** What an extended read read. */
export type ResourceRead = typeof ResourceRead.Type

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
  ),
  resourceRead: opt(
    ResourceRead.annotations({
      description:
        "Extended profile, a successful read_mcp_resource: the digests and sizes of the whole body the server returned (also when the model got a window); absent otherwise."
    })
  )
}).annotations({ identifier: "McpToolCallItem" })
/** The MCP tool-call item. */
export type McpToolCallItem = typeof McpToolCallItem.Type
