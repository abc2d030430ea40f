/** @mcp-resources/resource-origins: the bounded resource-origin store and call-scoped widget reads. */
export * as CallScopedRead from "./CallScopedRead.js"
export * as OriginState from "./OriginState.js"
export * as OriginStore from "./OriginStore.js"
