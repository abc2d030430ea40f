/** @mcp-resources/app-server: the JSON-RPC app-server over stdio and WebSocket. */
export * as AppOptions from "./AppOptions.js"
export * as CliCommands from "./CliCommands.js"
export * as CommandLine from "./CommandLine.js"
export * as ConfigFile from "./ConfigFile.js"
export * as Connections from "./Connections.js"
export * as JsonRpcServer from "./JsonRpcServer.js"
export * as MainLayer from "./MainLayer.js"
export * as Method from "./Method.js"
export * as StdioServerTransport from "./StdioServerTransport.js"
export * as StopSignal from "./StopSignal.js"
/** @deprecated Renamed `StdioServerTransport` (resource-client has a stdio transport of its own, to MCP servers). */
export * as StdioTransport from "./StdioServerTransport.js"
/** @deprecated Renamed `StopSignal` (its tag is `StopSignal.StopSignal`; `Lifecycle.Lifecycle` still names it). */
export * as Lifecycle from "./StopSignal.js"
export * as Threads from "./Threads.js"
export * as WebSocketTransport from "./WebSocketTransport.js"
