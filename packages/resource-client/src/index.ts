/** @mcp-resources/resource-client: MCP connections, connection generations, paginated and concurrent resource access. */
export * as AppPolicy from "./AppPolicy.js"
export * as McpTransport from "./McpTransport.js"
export * as OAuth from "./OAuth.js"
export * as Pagination from "./Pagination.js"
export * as ResourceClient from "./ResourceClient.js"
export * as ServerEntry from "./ServerEntry.js"
export * as ServerRequests from "./ServerRequests.js"
export * as TokenStore from "./TokenStore.js"
