/**
 * The model tools of a thread: the registration gate and listing (resource-tools.md sections 4 and
 * 11.1), and one `callTool` entry point. A call is routed once (internal/route.ts) under the
 * context's profile (Profile.ts), then runs plain or, with hooks or resource rules, on the policy
 * path (internal/policy.ts). docs/DEVELOPING.md maps the call file by file.
 */
import { Messages, type Mcp, ToolPayload } from "@mcp-resources/protocol"
import { type Context, Effect } from "effect"
import * as Content from "./Content.js"
import type { EmitError, LifecycleSink } from "./LifecycleSink.js"
import type * as McpToolNames from "./McpToolNames.js"
import * as Profile from "./Profile.js"
import type * as ToolContexts from "./internal/context.js"
import * as List from "./internal/list.js"
import * as Policy from "./internal/policy.js"
import * as Registry from "./internal/registry.js"
import * as Route from "./internal/route.js"
import * as Rules from "./internal/rules.js"
import * as ToolMeta from "./internal/toolMeta.js"

/** What a thread's tools run against (its fields: internal/context.ts). */
export type ToolContext = ToolContexts.ToolContext

/** A model's function call: its id, the function name and the raw argument text. */
export type ToolCall = ToolContexts.ToolCall

/** The bodies of a thread's reads, which a host gives as `ToolContext.bodies` (the extended read's `since`). */
export type Bodies = ToolContexts.Bodies

/** An earlier read of the thread (`Bodies.earlier`). */
export type EarlierRead = ToolContexts.EarlierRead

/** What the model gets back: the output text and whether the call succeeded. */
export type ToolOutput = ToolContexts.ToolOutput

/** The item `server` of a list call without a server, unless the host sets another. */
export const defaultAggregateServerLabel = List.defaultAggregateServerLabel

/** A result whose JSON text is over this many bytes is stored in its item with truncated content (codex profile). */
export const maxItemResultBytes = Content.maxItemResultBytes

/** The exported tool forms. */
export interface ExportForms {
  readonly responses: ToolPayload.ToolSpec
  readonly chatCompletions: ToolPayload.ChatCompletionsTool
  readonly anthropic: ToolPayload.AnthropicTool
}

/** Converts tool specs to the form of a model API: Responses, Chat Completions or Anthropic Messages. */
export const exportTools = <F extends keyof ExportForms>(
  specs: ReadonlyArray<ToolPayload.ToolSpec>,
  format: F
): ReadonlyArray<ExportForms[F]> =>
  specs.map((spec) => {
    switch (format) {
      case "chatCompletions":
        return ToolPayload.toChatCompletions(spec) as ExportForms[F]
      case "anthropic":
        return ToolPayload.toAnthropic(spec) as ExportForms[F]
      default:
        return spec as ExportForms[F]
    }
  })

/** Model-visible: `_meta.ui.visibility` is not an array, or is an array containing `"model"`. */
export const isModelVisible: (tool: Mcp.Tool) => boolean = ToolMeta.isModelVisible

/** `canAccess(server)`: the access gate of the three resource tools (section 6). */
export const canAccess: (ctx: ToolContext, server: string) => boolean = Rules.canAccess

/** The refusal of a server the access gate keeps from the resource tools. */
export const disabledMessage = (server: string): string => Messages.serverDisabledByOrchestrator(server)

/** Whether the model may call an MCP tool: apps-server tools pass the app policy (connector = `_meta.connector_id`); others always. */
export const isModelToolEnabled: (ctx: ToolContext, server: string, tool: Mcp.Tool) => boolean =
  Registry.isModelToolEnabled

/** The Responses API function form of an MCP tool under its assigned name. */
export const mcpToolSpec = (named: McpToolNames.NamedTool): ToolPayload.ToolSpec => ({
  type: "function",
  name: named.name,
  description: named.tool.description ?? "",
  strict: false,
  parameters: named.tool.inputSchema
})

/**
 * The name registry of the binding's MCP tools: waits for starting servers to settle, then names
 * every tool of every ready server. A tool that still collides is dropped with a warning.
 */
export const toolRegistry: (ctx: ToolContext) => Effect.Effect<McpToolNames.Registry> = Registry.toolRegistry

/**
 * The tools offered to the model: nothing when the binding has no enabled server; otherwise the
 * profile's resource tools, its completion tool when a ready, accessible server offers completions,
 * then every model-visible, enabled MCP tool of the ready servers.
 */
export const listTools: (ctx: ToolContext) => Effect.Effect<ReadonlyArray<ToolPayload.ToolSpec>> = Effect.fn(
  "ToolHandlers.listTools"
)(function* (ctx: ToolContext) {
  if (!ctx.set.hasServers()) return [] as ReadonlyArray<ToolPayload.ToolSpec>
  const profile = Profile.of(ctx.profile)
  const registry = yield* Registry.toolRegistry(ctx)
  const mcpTools = registry.tools
    .filter(
      (named) => ToolMeta.isModelVisible(named.tool) && Registry.isModelToolEnabled(ctx, named.server, named.tool)
    )
    .map(mcpToolSpec)
  const resourceTools = profile.resourceTools.map((tool) => tool.spec)
  const completion = profile.completion !== undefined && offersCompletions(ctx) ? [profile.completion.spec] : []
  return [...resourceTools, ...completion, ...mcpTools] as ReadonlyArray<ToolPayload.ToolSpec>
})

/** A ready, accessible server of the binding declares `completions` (evaluated after startup settled). */
const offersCompletions = (ctx: ToolContext): boolean =>
  ctx.set
    .servers()
    .some(
      (status) =>
        status.status === "ready" && canAccess(ctx, status.name) && ctx.set.supports(status.name, "completions")
    )

/**
 * Runs one function call of the model. Never fails: every failure is an output with `success:false`.
 * Argument errors and unknown names emit no items; everything else emits a started and a completed item.
 * The call is routed once; with hooks or resource rules a resource tool or MCP tool runs on the policy path.
 */
export const callTool = (ctx: ToolContext, call: ToolCall): Effect.Effect<ToolOutput, EmitError, LifecycleSink> =>
  Effect.contextWithEffect((context: Context.Context<LifecycleSink>) =>
    Effect.flatMap(Route.classify(ctx, Profile.of(ctx.profile), call), (route) => {
      // without hooks and rules: exactly the plain call
      const policy = Route.policyOf(ctx, route, context)
      return policy === undefined
        ? Route.run(ctx, call, route)
        : Policy.run(ctx, call, route, policy.hooks, policy.audit)
    })
  )
