/** @mcp-resources/app-server-client: a typed client of the mcp-resources app-server over stdio or WebSocket. */
export * as AppServerClient from "./AppServerClient.js"
export * as Errors from "./Errors.js"
export * as LineFramer from "./LineFramer.js"
export * as PromiseClient from "./PromiseClient.js"
export * as Transport from "./Transport.js"
export * as BrowserTransport from "./BrowserTransport.js"
