/**
 * What the CLI's commands share: the config they load, the data dir they use, and the connection set
 * they start (only the named server when a command names one that is configured).
 */
import type { Config as ProtocolConfig } from "@mcp-resources/protocol"
import { McpTransport, ResourceClient, type ServerEntry } from "@mcp-resources/resource-client"
import { Effect, Layer } from "effect"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"
import * as ConfigFile from "../ConfigFile.js"
import * as TokenStorage from "../TokenStorage.js"

/** `--config`, else `./mcp-resources.toml` when it exists, else the empty config. */
export const loadConfig = (configPath: string | undefined) =>
  Effect.map(ConfigFile.locate(configPath, process.cwd()), (located) => located.config)

/** `--data-dir`, else `$MCP_RESOURCES_HOME`, else `~/.mcp-resources` (as the app-server). */
export const dataDirOf = (dataDir: string | undefined): string => {
  if (dataDir !== undefined) return NodePath.resolve(dataDir)
  const home = process.env.MCP_RESOURCES_HOME
  return home !== undefined && home !== "" ? NodePath.resolve(home) : NodePath.join(NodeOs.homedir(), ".mcp-resources")
}

/**
 * The servers to start: only `server` when it is an enabled configured server (the others are never
 * started), else all of them (so that an unknown name gets the same answer as for the model: nothing
 * is waited for, the operation refuses the name at once).
 */
export const setupFor = (config: ProtocolConfig.Config, server: string | undefined): ServerEntry.Setup => {
  const named = config.mcpServers.find((entry) => entry.name === server && entry.enabled)
  return { config, servers: named === undefined ? config.mcpServers : [named] }
}

/** The OAuth tokens of a command: where the app-server of this config keeps them (TokenStorage.ts). */
export const tokenStoreLayer = (config: ProtocolConfig.Config, dataDir: string | undefined) =>
  TokenStorage.layer({
    driver: config.persistence.driver,
    url: config.persistence.url,
    dataDir: dataDirOf(dataDir)
  })

/** The resource client of a command: its servers, the MCP transports, the OAuth tokens of its config. */
export const clientLayer = (setup: ServerEntry.Setup, dataDir: string | undefined) =>
  ResourceClient.layerWith(setup).pipe(
    Layer.provide(McpTransport.layer),
    Layer.provide(tokenStoreLayer(setup.config, dataDir))
  )
