/** `initialize` (per connection; the dispatcher tracks the connection's state). */
import { createRequire } from "node:module"
import { AppServer } from "@mcp-resources/protocol"

/** The server name of the `initialize` result. */
export const serverName = AppServer.serverName

/** This package's version. */
export const serverVersion: string = (createRequire(import.meta.url)("../../package.json") as { version: string })
  .version

/** The `initialize` result. */
export const initializeResult = () => ({
  serverInfo: { name: serverName, version: serverVersion },
  protocolVersion: AppServer.protocolVersion
})

export { InitializeParams } from "../internal/params.js"
