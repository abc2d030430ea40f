/** The `mcp/widget/*` methods. */
import { Schema } from "effect"
import { CallToolResult, JsonObject, ResourceContents } from "../../Mcp.js"
import { WidgetUiMeta } from "../../Widget.js"
import { opt } from "../schema.js"
import { ThreadIdParams } from "./threads.js"

/** `mcp/widget/list` params. */
export const WidgetListParams = ThreadIdParams
/** One widget of `mcp/widget/list`: a completed MCP tool call whose tool names a `ui://` resource. */
export const WidgetEntry = Schema.Struct({
  callId: Schema.String,
  turnId: Schema.String,
  server: Schema.String,
  tool: Schema.String,
  uri: Schema.String
}).annotations({ identifier: "WidgetEntry" })
/** `mcp/widget/list` result: the thread's widgets in completion order. */
export const WidgetListResult = Schema.Struct({ widgets: Schema.Array(WidgetEntry) })
/** `mcp/widget/tools` params: the thread whose binding's widget tools to list. */
export const WidgetToolsParams = ThreadIdParams
/** One widget tool of `mcp/widget/tools`: a model-visible, enabled MCP tool that names a `ui://` resource. */
export const WidgetTool = Schema.Struct({
  server: Schema.String,
  tool: Schema.String.annotations({ description: "The raw MCP tool name of the server." }),
  callName: Schema.String.annotations({
    description: "The tool's function name in tool/list (mcp__{server}__{tool}): the name tool/call takes."
  }),
  title: opt(Schema.String),
  description: opt(Schema.String),
  inputSchema: JsonObject.annotations({ description: "The tool's JSON Schema for its arguments, as listed." }),
  resourceUri: Schema.String.annotations({ description: "The ui:// resource the tool names (its widget)." })
}).annotations({ identifier: "WidgetTool" })
/** `mcp/widget/tools` result: the widget tools of the thread's ready servers, servers in bytewise order. */
export const WidgetToolsResult = Schema.Struct({ tools: Schema.Array(WidgetTool) })
/** `mcp/widget/read` params: the thread and the completed MCP tool call whose widget to read. */
export const WidgetReadParams = Schema.Struct({ threadId: Schema.String, callId: Schema.String })
/**
 * `mcp/widget/read` result: the call's UI resource (its HTML), the UI metadata of the list entry and
 * the content item (the content item wins), and the call's input and result for the view.
 */
export const WidgetReadResult = Schema.Struct({
  server: Schema.String,
  callId: Schema.String,
  tool: Schema.String,
  uri: Schema.String,
  mimeType: Schema.String,
  html: Schema.String,
  ui: WidgetUiMeta,
  toolInput: Schema.Unknown.annotations({ description: "The call's arguments (a JSON object, or null)." }),
  toolResult: CallToolResult
})
/** `mcp/widget/callTool` params: a widget's tool call on behalf of its originating call `callId`. */
export const WidgetCallToolParams = Schema.Struct({
  threadId: Schema.String,
  callId: Schema.String,
  name: Schema.String.annotations({ description: "The raw MCP tool name of the call's server." }),
  arguments: opt(JsonObject)
})
/** `mcp/widget/callTool` result: the MCP result and the id of the widget-initiated item that records it. */
export const WidgetCallToolResult = Schema.Struct({ itemId: Schema.String, result: CallToolResult })
/** `mcp/widget/readResource` params: a widget's read of a `ui://` resource of its call's server. */
export const WidgetReadResourceParams = Schema.Struct({
  threadId: Schema.String,
  callId: Schema.String,
  uri: Schema.String
})
/** `mcp/widget/readResource` result. */
export const WidgetReadResourceResult = Schema.Struct({ contents: Schema.Array(ResourceContents) })
