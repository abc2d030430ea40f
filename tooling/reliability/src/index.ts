/**
 * Test tooling of the reliability suite: figures and report, the app-server driver, misbehaving MCP servers.
 */
export * as AppServerProcess from "./AppServerProcess.js"
export * as Figures from "./Figures.js"
export * as Limits from "./Limits.js"
export * as Misbehave from "./Misbehave.js"
