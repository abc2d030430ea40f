/**
 * The app policy (resource-origins.md section 8): an apps-server tool is disabled when config
 * `[apps.connectors.C] enabled = false` or `[apps.connectors.C.tools.N] enabled = false`; unset means enabled.
 * Both tool-handlers (listing and calling apps tools) and resource-origins (check 9) apply it.
 */
import type { Config } from "@mcp-resources/protocol"

/** True unless the connector or the tool is disabled by config. */
export const isToolEnabled = (config: Config.Config, connectorId: string, tool: string): boolean => {
  const connectors = config.apps.connectors
  const connector = Object.hasOwn(connectors, connectorId) ? connectors[connectorId] : undefined
  if (connector === undefined) return true
  if (connector.enabled === false) return false
  const entry = Object.hasOwn(connector.tools, tool) ? connector.tools[tool] : undefined
  return entry?.enabled !== false
}
