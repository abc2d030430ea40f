/** @mcp-resources/thread-store: thread records and compactions, and the bodies threads read, on memory, SQLite or PostgreSQL; the OAuth token vault on PostgreSQL. */
export * as BodyStore from "./BodyStore.js"
export * as InstanceFeed from "./InstanceFeed.js"
export * as ThreadFeed from "./ThreadFeed.js"
export * as ThreadStore from "./ThreadStore.js"
export * as TokenVault from "./TokenVault.js"
