/**
 * The exact strings of skills.md. They are API: tests and the app-server compare them byte for byte.
 */

/** `` orchestrator skills are disabled by `orchestrator.skills.enabled` `` */
export const disabled = "orchestrator skills are disabled by `orchestrator.skills.enabled`"

/** `failed to list orchestrator skill resources: {chain}` */
export const listFailed = (chain: string): string => `failed to list orchestrator skill resources: ${chain}`

/** The context prepended to a failed page's chain. */
export const listFailedContext = "failed to list orchestrator skill resources"

/** `orchestrator skill discovery timed out after 10s` */
export const discoveryTimedOut = "orchestrator skill discovery timed out after 10s"

/** `Orchestrator skill discovery stopped after {n} resource page(s): {message}` */
export const discoveryStopped = (pages: number, message: string): string =>
  `Orchestrator skill discovery stopped after ${pages} resource ${pages === 1 ? "page" : "pages"}: ${message}`

/** `Orchestrator skill resource pagination returned a duplicate cursor.` */
export const duplicateCursor = "Orchestrator skill resource pagination returned a duplicate cursor."

/** `Orchestrator skill discovery was truncated at 100 visible skills, 1000 hidden skills, or 10 resource pages.` */
export const truncated =
  "Orchestrator skill discovery was truncated at 100 visible skills, 1000 hidden skills, or 10 resource pages."

/** `Skipped {n} malformed orchestrator skill resources.` */
export const skipped = (count: number): string => `Skipped ${count} malformed orchestrator skill resources.`

/** `orchestrator skill resource does not match its package` */
export const resourceMismatch = "orchestrator skill resource does not match its package"

/** `session MCP resource client is not configured` */
export const clientNotConfigured = "session MCP resource client is not configured"

/** `orchestrator skill read timed out after 10s` */
export const readTimedOut = "orchestrator skill read timed out after 10s"

/** The context of a failed read: `failed to read orchestrator skill resource {resource}`. */
export const readFailedContext = (resource: string): string => `failed to read orchestrator skill resource ${resource}`

/** `orchestrator skill resource {resource} did not return matching text contents` */
export const noMatchingText = (resource: string): string =>
  `orchestrator skill resource ${resource} did not return matching text contents`

/** `orchestrator skill resource {resource} exceeds the 1048576-byte read limit` */
export const readTooLarge = (resource: string): string =>
  `orchestrator skill resource ${resource} exceeds the 1048576-byte read limit`
