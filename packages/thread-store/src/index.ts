/** @mcp-resources/thread-store: thread records and compactions on memory, SQLite or PostgreSQL. */
export * as ThreadStore from "./ThreadStore.js"
