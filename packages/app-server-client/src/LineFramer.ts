/**
 * The line framing of JSON-RPC over a byte stream: a streaming `\n` splitter with a byte cap
 * (`LineSplitter`) and a write batcher that joins every message of one event-loop turn into one write
 * (`WriteBatcher`). Its home is `@mcp-resources/protocol`'s `LineFramer` (part of the wire, which the
 * app-server, this client and the bench share); this module re-exports it for the client's users.
 */
export { type Frame, LineSplitter, WriteBatcher } from "@mcp-resources/protocol/LineFramer"
