/** @mcp-resources/tool-handlers: the model's resource tools, MCP tool calls, lifecycle items and truncation. */
export * as Arguments from "./Arguments.js"
export * as ContentPolicy from "./ContentPolicy.js"
export * as Extended from "./Extended.js"
export * as LifecycleSink from "./LifecycleSink.js"
export * as McpToolNames from "./McpToolNames.js"
export * as ToolHandlers from "./ToolHandlers.js"
export * as ToolSpecs from "./ToolSpecs.js"
export * as Truncation from "./Truncation.js"
