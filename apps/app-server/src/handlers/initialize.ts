/** `initialize` (per connection; the dispatcher tracks the connection's state). */
import { createRequire } from "node:module"
import { AppServer } from "@mcp-resources/protocol"

/** The server name of the `initialize` result. */
export const serverName = AppServer.serverName

/** This package's version. */
export const serverVersion: string = (createRequire(import.meta.url)("../../package.json") as { version: string })
  .version

/**
 * The `initialize` result. The server's `capabilities` are added exactly when the client declared its
 * own (even `{}`), so that a client of protocol version 1 sees the version-1 result unchanged.
 */
export const initializeResult = (params: AppServer.Params<"initialize">): AppServer.Result<"initialize"> => ({
  serverInfo: { name: serverName, version: serverVersion },
  protocolVersion: AppServer.protocolVersion,
  ...(params.capabilities !== undefined ? { capabilities: AppServer.serverCapabilities } : {})
})
