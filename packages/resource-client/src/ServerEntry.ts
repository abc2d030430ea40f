/** Server entries: what the runtime connects to (resource-tools.md section 1.1). */
import type { Transport } from "@modelcontextprotocol/client"
import type { Config } from "@mcp-resources/protocol"

/**
 * An in-memory server, only from code: `connect` returns the client side of a linked transport pair
 * whose other side is an MCP server running in this process. It is never written in a config file and
 * `mcpServer/list` never shows it.
 */
export interface MemoryTransport {
  readonly _tag: "memory"
  readonly connect: () => Promise<Transport>
}

/** stdio, streamable HTTP or in-memory. */
export type ServerTransport = Config.StdioTransport | Config.HttpTransport | MemoryTransport

/** One server entry (a config `[mcp_servers.NAME]` entry is one). */
export interface ServerEntry {
  readonly name: string
  readonly transport: ServerTransport
  readonly enabled: boolean
  readonly startupTimeoutSec: number
  readonly toolTimeoutSec: number
  readonly maxMessageBytes: number
  /** `protocol_version`: which protocol era to speak (absent = `auto`). */
  readonly protocolVersion?: Config.ProtocolVersionSetting
  /** `poll_changes_sec`: how often watched resources are read again on a server that does not push (0: never; absent: 60). */
  readonly pollChangesSec?: number
}

/** What a connection set is built from: the loaded config and the server entries (by default the config's). */
export interface Setup {
  readonly config: Config.Config
  readonly servers: ReadonlyArray<ServerEntry>
}

/** The setup of a loaded config: its own `[mcp_servers.*]` entries. */
export const fromConfig = (config: Config.Config): Setup => ({ config, servers: config.mcpServers })

/** An in-memory entry with the defaults of resource-tools.md 1.1. */
export const memory = (
  name: string,
  connect: () => Promise<Transport>,
  options: Partial<Omit<ServerEntry, "name" | "transport">> = {}
): ServerEntry => ({
  name,
  transport: { _tag: "memory", connect },
  enabled: options.enabled ?? true,
  startupTimeoutSec: options.startupTimeoutSec ?? 10,
  toolTimeoutSec: options.toolTimeoutSec ?? 300,
  maxMessageBytes: options.maxMessageBytes ?? 67108864,
  ...(options.protocolVersion === undefined ? {} : { protocolVersion: options.protocolVersion }),
  ...(options.pollChangesSec === undefined ? {} : { pollChangesSec: options.pollChangesSec })
})
