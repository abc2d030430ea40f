/**
 * One warning per cause on the CLI's standard error. A server that failed to start is warned about
 * when it fails; the all-servers list then reports it in its output (`failed: …`, `failedServers`), so
 * its repeat of the cause as a listing warning is dropped. A server that does not implement the
 * optional `resources/templates/list` has not failed: no warning.
 */
import { Messages } from "@mcp-resources/protocol"
import { OptionalTemplates } from "@mcp-resources/tool-handlers"

/** `{server, error}` of an all-servers listing warning (`Failed to list … for MCP server 'S': E`). */
const listingWarning = (
  message: string
): { kind: "resources" | "templates"; server: string; error: string } | undefined => {
  for (const kind of ["resources", "templates"] as const) {
    const [head = "", middle = ""] = Messages.aggregateLog[kind]("\u0000", "\u0000").split("\u0000")
    if (!message.startsWith(head)) continue
    const end = message.indexOf(middle, head.length)
    if (end < 0) continue
    return { kind, server: message.slice(head.length, end), error: message.slice(end + middle.length) }
  }
  return undefined
}

/** True for a log line that repeats a cause already warned about, or warns of no failure. */
export const isRepeat = (message: string): boolean => {
  const warning = listingWarning(message)
  if (warning === undefined) return false
  if (warning.error.startsWith(Messages.failedToGetClient(""))) return true
  return warning.kind === "templates" && OptionalTemplates.isUnimplemented(warning.server, warning.error)
}
