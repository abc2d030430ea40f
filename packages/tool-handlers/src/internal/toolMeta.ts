/** Reading a tool's `_meta`: visibility, connector and link, app resource (resource-tools.md 11.1, 11.3). */
import { type Mcp, Widget } from "@mcp-resources/protocol"
import { isRecord } from "@mcp-resources/protocol/Records"
import type { AppFields } from "./lifecycle.js"

const stringOrUndefined = (u: unknown): string | undefined => (typeof u === "string" ? u : undefined)

/** Model-visible: `_meta.ui.visibility` is not an array, or is an array containing `"model"`. */
export const isModelVisible = (tool: Mcp.Tool): boolean => {
  const ui = tool._meta?.ui
  const visibility = isRecord(ui) ? ui.visibility : undefined
  return !Array.isArray(visibility) || visibility.includes("model")
}

/** The tool's `_meta.connector_id` when it is a string. */
export const connectorId = (tool: Mcp.Tool): string | undefined => stringOrUndefined(tool._meta?.connector_id)

/** The item's optional app fields: connector and link only for apps-server tools, the app resource for any. */
export const appFields = (tool: Mcp.Tool, isAppsServer: boolean): AppFields => {
  const meta = tool._meta ?? {}
  const resourceUri = Widget.resourceUriOf(meta)
  const connector = isAppsServer ? stringOrUndefined(meta.connector_id) : undefined
  const link = isAppsServer ? stringOrUndefined(meta.link_id) : undefined
  return {
    ...(connector === undefined ? {} : { connectorId: connector }),
    ...(link === undefined ? {} : { linkId: link }),
    ...(resourceUri === undefined ? {} : { mcpAppResourceUri: resourceUri })
  }
}
