/**
 * A module resolve hook (registered by `sdkLoading.mjs`): appends every resolved URL of the MCP
 * client SDK or of zod to the log file it was given, so that the test sees when they are loaded.
 */
import { appendFileSync } from "node:fs"

let log

export const initialize = (data) => {
  log = data.log
}

export const resolve = async (specifier, context, next) => {
  const resolved = await next(specifier, context)
  if (/[\\/]node_modules[\\/](@modelcontextprotocol[\\/]client|zod)[\\/]/.test(resolved.url)) {
    appendFileSync(log, `${resolved.url}\n`)
  }
  return resolved
}
