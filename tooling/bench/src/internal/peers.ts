/**
 * The sides of the peer scenarios (10 to 12), every one over the same stdio fixture servers started
 * the same way (`node tooling/fixtures/dist/stdio.js` with the same spec): ours (`ResourceClient` +
 * `ToolHandlers`), LangChain's `MultiServerMCPClient`, the Vercel AI SDK's MCP client (one client per
 * server), the raw v2 SDK client (`Promise.all`) and a sequential host on the raw v2 client.
 */
import { createRequire } from "node:module"
import { type FixtureSpec, stdioCommand } from "@mcp-resources/fixtures"
import { Config, type Config as ConfigTypes } from "@mcp-resources/protocol"
import { Client } from "@modelcontextprotocol/client"
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio"
import { Either } from "effect"
import { makeStackOf, type Stack } from "./fixtures.js"

/** A named fixture spec: one stdio server of a scenario. */
export interface Server {
  readonly name: string
  readonly spec: FixtureSpec
}

/** The exact version of a package this bench depends on (read from its package.json). */
export const versionOf = (pkg: string): string => {
  const require = createRequire(import.meta.url)
  try {
    return (require(`${pkg}/package.json`) as { version: string }).version
  } catch {
    // packages whose exports map hides package.json: find it next to the resolved entry
    const entry = require.resolve(pkg)
    const root = entry.slice(0, entry.lastIndexOf(`/node_modules/${pkg}/`) + `/node_modules/${pkg}/`.length)
    return (require(`${root}package.json`) as { version: string }).version
  }
}

/** Every side's start-up timeout (the machine may be loaded: starting 32 node children takes a while). */
const startupTimeoutSec = 300

/** The config our side runs on: every server as a stdio entry, all started at once. */
export const configOf = (
  servers: ReadonlyArray<Server>,
  profile: "codex" | "extended" = "codex",
  cache = true
): ConfigTypes.Config => {
  const mcp_servers = Object.fromEntries(
    servers.map(({ name, spec }) => {
      const command = stdioCommand(spec)
      return [
        name,
        { command: command.command, args: command.args, startup_timeout_sec: startupTimeoutSec, tool_timeout_sec: 600 }
      ]
    })
  )
  const decoded = Config.decode(
    {
      mcp_servers,
      mcp: { startup_concurrency: Math.max(1, servers.length) },
      tools: { profile },
      cache: { enabled: cache }
    },
    "bench.toml"
  )
  if (Either.isLeft(decoded)) throw new Error(`bench config: ${decoded.left.message}`)
  return decoded.right
}

/** Ours: a `ResourceClient` over the stdio servers, every one ready. */
export const connectOurs = (
  servers: ReadonlyArray<Server>,
  profile: "codex" | "extended" = "codex",
  cache = true
): Promise<Stack> => {
  const config = configOf(servers, profile, cache)
  return makeStackOf(config.mcpServers, config)
}

/** Raw v2 SDK clients, one per server, connected with `Promise.all`. */
export const connectRawV2 = async (servers: ReadonlyArray<Server>): Promise<Map<string, Client>> => {
  const entries = await Promise.all(
    servers.map(async ({ name, spec }) => {
      const command = stdioCommand(spec)
      const client = new Client({ name: "raw-v2-host", version: "1.0.0" })
      await client.connect(
        new StdioClientTransport({ command: command.command, args: command.args, stderr: "ignore" }),
        { timeout: startupTimeoutSec * 1000 }
      )
      return [name, client] as const
    })
  )
  return new Map(entries)
}

/** Every page of `resources/list` of one raw v2 client; returns the number of resources. */
export const listAllV2 = async (client: Client): Promise<number> => {
  let count = 0
  let cursor: string | undefined
  do {
    const page = await client.listResources(cursor === undefined ? undefined : { cursor })
    count += page.resources.length
    cursor = page.nextCursor
  } while (cursor !== undefined)
  return count
}

/** The Vercel AI SDK's MCP client (`@ai-sdk/mcp`), the part of it the bench uses. */
export interface AiSdkClient {
  listResources(options?: { params?: { cursor?: string } }): Promise<{
    resources: Array<unknown>
    nextCursor?: string | undefined
  }>
  readResource(args: { uri: string }): Promise<{ contents: Array<Record<string, unknown>> }>
  close(): Promise<void>
}

/** One `@ai-sdk/mcp` client per server over its own stdio transport, created with `Promise.all`. */
export const connectAiSdk = async (servers: ReadonlyArray<Server>): Promise<Map<string, AiSdkClient>> => {
  const { createMCPClient } = await import("@ai-sdk/mcp")
  const { Experimental_StdioMCPTransport } = await import("@ai-sdk/mcp/mcp-stdio")
  const entries = await Promise.all(
    servers.map(async ({ name, spec }) => {
      const command = stdioCommand(spec)
      const client = await createMCPClient({
        transport: new Experimental_StdioMCPTransport({
          command: command.command,
          args: command.args,
          stderr: "ignore"
        })
      })
      return [name, client as unknown as AiSdkClient] as const
    })
  )
  return new Map(entries)
}

/** Every page of `resources/list` of one `@ai-sdk/mcp` client, walked as a host would. */
export const listAllAiSdk = async (client: AiSdkClient): Promise<number> => {
  let count = 0
  let cursor: string | undefined
  do {
    const page = await client.listResources(cursor === undefined ? undefined : { params: { cursor } })
    count += page.resources.length
    cursor = page.nextCursor
  } while (cursor !== undefined)
  return count
}

/** LangChain's `MultiServerMCPClient`, the part of it the bench uses. */
export interface LangChainClient {
  initializeConnections(): Promise<unknown>
  listResources(): Promise<Record<string, Array<unknown>>>
  readResource(serverName: string, uri: string): Promise<Array<Record<string, unknown>>>
  close(): Promise<void>
}

/** One `MultiServerMCPClient` over every server (stdio), connections initialised before timing. */
export const connectLangChain = async (servers: ReadonlyArray<Server>): Promise<LangChainClient> => {
  // loaded by a computed name: its type declarations do not pass this repository's strict lib check
  const specifier: string = "@langchain/mcp-adapters"
  const { MultiServerMCPClient } = (await import(specifier)) as {
    MultiServerMCPClient: new (config: Record<string, unknown>) => unknown
  }
  const mcpServers = Object.fromEntries(
    servers.map(({ name, spec }) => {
      const command = stdioCommand(spec)
      return [name, { transport: "stdio", command: command.command, args: command.args, stderr: "ignore" }]
    })
  )
  const client = new MultiServerMCPClient({ mcpServers, onConnectionError: "throw" }) as unknown as LangChainClient
  await client.initializeConnections()
  return client
}

/** The peers' packages and their exact versions, for the report. */
export const peerVersions = (): Record<string, string> => ({
  "@modelcontextprotocol/client": versionOf("@modelcontextprotocol/client"),
  "@langchain/mcp-adapters": versionOf("@langchain/mcp-adapters"),
  "@langchain/core": versionOf("@langchain/core"),
  "@ai-sdk/mcp": versionOf("@ai-sdk/mcp")
})

/** Runs `connect`; a peer that cannot load or run here is reported (not dropped) with the reason. */
export const tryPeer = async <A>(
  name: string,
  connect: () => Promise<A>,
  notes: Array<string>
): Promise<A | undefined> => {
  try {
    return await connect()
  } catch (error) {
    const reason = error instanceof Error ? error.message.split("\n")[0]! : String(error)
    notes.push(`${name} could not run on node ${process.version}: ${reason}`)
    return undefined
  }
}
