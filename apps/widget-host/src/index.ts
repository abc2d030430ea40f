/** @mcp-resources/widget-host: a reference MCP Apps widget host page and the loopback server that serves it. */
export * as Csp from "./Csp.js"
export * as WidgetHost from "./WidgetHost.js"
