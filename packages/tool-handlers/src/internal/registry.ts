/**
 * The MCP tools of a binding as the model knows them: every ready server's tools under their
 * assigned `mcp__…` names, and which of them the model may call.
 */
import type { Mcp } from "@mcp-resources/protocol"
import { AppPolicy } from "@mcp-resources/resource-client"
import { Effect } from "effect"
import * as McpToolNames from "../McpToolNames.js"
import type { ToolContext } from "./context.js"
import * as ToolMeta from "./toolMeta.js"

/**
 * Whether the model may call an MCP tool: apps-server tools pass the app policy (connector =
 * `_meta.connector_id`); others always. (Visibility is {@link ToolMeta.isModelVisible}'s.)
 */
export const isModelToolEnabled = (ctx: ToolContext, server: string, tool: Mcp.Tool): boolean => {
  if (server !== ctx.config.apps.serverName) return true
  const connector = ToolMeta.connectorId(tool)
  return connector === undefined || AppPolicy.isToolEnabled(ctx.config, connector, tool.name)
}

/**
 * The name registry of the binding's MCP tools: waits for starting servers to settle, then names
 * every tool of every ready server. A tool that still collides is dropped with a warning.
 */
export const toolRegistry: (ctx: ToolContext) => Effect.Effect<McpToolNames.Registry> = Effect.fn(
  "ToolHandlers.toolRegistry"
)(function* (ctx: ToolContext) {
  yield* ctx.set.awaitAllSettled
  const ready = ctx.set.servers().filter((status) => status.status === "ready")
  const catalog = yield* Effect.forEach(
    ready,
    ({ name }) =>
      ctx.set.listTools(name).pipe(
        Effect.catchAll((error) =>
          Effect.as(Effect.logWarning(`Failed to list tools for MCP server '${name}': ${error.message}`), [])
        ),
        Effect.map((tools) => ({ server: name, tools }))
      ),
    { concurrency: "unbounded" }
  )
  const registry = McpToolNames.assignNames(catalog)
  for (const { server, tool } of registry.dropped) {
    yield* Effect.logWarning(`Dropped MCP tool '${tool}' of server '${server}': its function name collides`)
  }
  return registry
})
