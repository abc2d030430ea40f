/** Tool-call items the app-server completes itself (a call interrupted by the end of its process, or whose result was lost). */
import type { ToolCallItem } from "@mcp-resources/protocol"

/** The message of a started item that can no longer finish (its process ended or lost it). */
export const interruptedMessage = "interrupted"

/** The message of a call whose result ran but could not be stored. */
export const resultNotStoredMessage = (cause: string): string => `the result could not be stored: ${cause}`

/** The failed completion of a started item, with `message` and the time it ran (null when unknown). */
export const failedItem = (
  started: ToolCallItem.McpToolCallItem,
  message: string,
  durationMs: number | null
): ToolCallItem.McpToolCallItem => {
  const { connectorId, linkId, mcpAppResourceUri, ...base } = started
  return {
    ...base,
    status: "failed",
    result: null,
    error: { message },
    durationMs,
    ...(connectorId !== undefined ? { connectorId } : {}),
    ...(linkId !== undefined ? { linkId } : {}),
    ...(mcpAppResourceUri !== undefined ? { mcpAppResourceUri } : {})
  }
}
