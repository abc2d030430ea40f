/** Rendering of the codex profile: list and read payloads as one truncated JSON text, MCP results as their JSON. */
import type { Mcp } from "@mcp-resources/protocol"
import { byteLength } from "@mcp-resources/protocol/Utf8"
import * as Truncation from "../../Truncation.js"
import type { ToolContext } from "../context.js"
import type * as Lifecycle from "../lifecycle.js"

/** A result whose JSON text is over this many bytes is stored in its item with truncated content. */
export const maxItemResultBytes = 1048576

/** The outcome of a resource tool whose payload is the concatenation of `pieces` (one JSON text). */
export const succeeded = (ctx: ToolContext, pieces: ReadonlyArray<string>): Lifecycle.Outcome => {
  const output = Truncation.truncatePiecesOutput(pieces, ctx.truncation)
  return {
    status: "completed",
    result: { content: [{ type: "text", text: output }], isError: false },
    error: null,
    output,
    success: true
  }
}

/** The outcome of an MCP tool's result: its JSON text, truncated; a large result is stored with that text. */
export const toolResultOutcome = (ctx: ToolContext, _server: string, result: Mcp.CallToolResult): Lifecycle.Outcome => {
  const json = JSON.stringify(result)
  const output = Truncation.truncateOutput(json, ctx.truncation)
  const isError = result.isError === true
  const stored =
    byteLength(json) > maxItemResultBytes ? { ...result, content: [{ type: "text", text: output }] } : result
  return { status: isError ? "failed" : "completed", result: stored, error: null, output, success: !isError }
}
