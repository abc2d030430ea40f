/**
 * The route of one call, decided once: a resource tool of the profile, its completion tool, a
 * registered MCP tool, or unsupported; and whether it runs plain or on the policy path (policy.ts):
 * the host policy in force ({@link hostPolicy}: the fiber's hooks and audit sink, the resource rules).
 * The plain path runs the route; the policy path runs the same route inside its hooks.
 */
import { Messages } from "@mcp-resources/protocol"
import { Context, Effect, Option } from "effect"
import type { EmitError, LifecycleSink } from "../LifecycleSink.js"
import type * as McpToolNames from "../McpToolNames.js"
import type * as Content from "../Content.js"
import * as ToolHooks from "../ToolHooks.js"
import type { Profile, RunTool, ToolCall, ToolContext, ToolOutput } from "./context.js"
import { callMcpTool } from "./mcpCall.js"
import { isModelToolEnabled, toolRegistry } from "./registry.js"
import * as Rules from "./rules.js"

/** Where a call goes. */
export type Route =
  /** One of the profile's resource tools (the thread has a bound server). */
  | { readonly _tag: "resource"; readonly run: RunTool }
  /** The profile's completion tool (no hooks: it is not on the policy path). */
  | { readonly _tag: "completion"; readonly run: RunTool }
  /** A registered, enabled `mcp__…` tool, its result shown by the profile's content pipeline entry. */
  | { readonly _tag: "mcp"; readonly named: McpToolNames.NamedTool; readonly content: Content.Pipeline }
  /** Anything else: refused without items. */
  | { readonly _tag: "unsupported" }

const unsupported: Route = { _tag: "unsupported" }

/** The route of a call under a profile; only an `mcp__…` name looks at the tool registry. */
export const classify = (ctx: ToolContext, profile: Profile, call: ToolCall): Effect.Effect<Route> => {
  const name = call.name
  const resource = profile.resourceTools.find((tool) => tool.spec.name === name)
  if (resource !== undefined) {
    return Effect.succeed(ctx.set.hasServers() ? { _tag: "resource", run: resource.run } : unsupported)
  }
  const completion = profile.completion
  if (completion !== undefined && completion.spec.name === name && ctx.set.hasServers()) {
    return Effect.succeed({ _tag: "completion", run: completion.run })
  }
  if (!name.startsWith("mcp__")) return Effect.succeed(unsupported)
  return Effect.map(toolRegistry(ctx), (registry): Route => {
    const named = Option.filter(registry.lookup(name), (named) => isModelToolEnabled(ctx, named.server, named.tool))
    return Option.isNone(named) ? unsupported : { _tag: "mcp", named: named.value, content: profile.content }
  })
}

/** Runs a call on its route: no hooks, no audit (the resource rules apply when configured). */
export const run = (
  ctx: ToolContext,
  call: ToolCall,
  route: Route
): Effect.Effect<ToolOutput, EmitError, LifecycleSink> => {
  switch (route._tag) {
    case "resource":
    case "completion":
      return route.run(ctx, call)
    case "mcp":
      return callMcpTool(ctx, call, route.named, route.content)
    case "unsupported":
      return Effect.succeed({ output: Messages.unsupportedCall(call.name), success: false })
  }
}

/** The audit sink of the running fiber, when any. */
export type Audit = Option.Option<Context.Tag.Service<ToolHooks.ToolAuditLog>>

/** What a call on the policy path runs under: the hooks and the audit sink of the running fiber. */
export interface HostPolicy {
  readonly hooks: ToolHooks.Service
  readonly audit: Audit
}

/**
 * The host policy a call runs under, or undefined when it runs plain: neither hooks (in `context`)
 * nor resource rules (for the context's principal) are in force.
 */
export const hostPolicy = (ctx: ToolContext, context: Context.Context<never>): HostPolicy | undefined => {
  const hooks = Option.getOrElse(Context.getOption(context, ToolHooks.ToolHooks), () => ToolHooks.none)
  if (hooks.before === undefined && hooks.after === undefined && !Rules.active(ctx)) return undefined
  return { hooks, audit: Context.getOption(context, ToolHooks.ToolAuditLog) }
}

/** The host policy of a call on `route`: a completion or an unsupported name always runs plain. */
export const policyOf = (ctx: ToolContext, route: Route, context: Context.Context<never>): HostPolicy | undefined =>
  route._tag === "completion" || route._tag === "unsupported" ? undefined : hostPolicy(ctx, context)
