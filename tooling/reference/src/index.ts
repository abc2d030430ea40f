/** @mcp-resources/reference: the generated parts of the reference docs and the app-server's JSON Schemas. */
export * as Blocks from "./Blocks.js"
export * as ConfigKeys from "./ConfigKeys.js"
export * as Generated from "./Generated.js"
export * as JsonSchemas from "./JsonSchemas.js"
export * as Markdown from "./Markdown.js"
export * as Messages from "./Messages.js"
export * as Reference from "./Reference.js"
export * as Links from "./Links.js"
