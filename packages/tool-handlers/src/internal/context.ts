/**
 * What every module of a tool call shares: the thread's tool context, the model's call and what it
 * gets back, and the shape of a tool profile (its values are in Profile.ts). Nothing here runs.
 */
import type { AppServer, Config, Mcp, ToolPayload, Truncation } from "@mcp-resources/protocol"
import type { ResourceClient } from "@mcp-resources/resource-client"
import type { Effect } from "effect"
import type { EmitError, LifecycleSink } from "../LifecycleSink.js"
import type * as ResourceChanges from "../ResourceChanges.js"
import type { Outcome } from "./lifecycle.js"

/** What a thread's tools run against. */
export interface ToolContext {
  /** The thread's binding: the latest set at its most recent `turn/start`. */
  readonly set: ResourceClient.ConnectionSet
  /** The latest loaded config (apps server name, app policy). */
  readonly config: Config.Config
  /** The access gate: when false, the apps server is refused by the three resource tools. */
  readonly orchestratorMcpEnabled: boolean
  /** The configured policy; the effective limit (×1.2) is applied inside. */
  readonly truncation: Truncation.TruncationPolicy
  /** The item `server` of a list call without a server (default `codex`). */
  readonly aggregateServerLabel?: string
  /**
   * The tool profile (default `codex`): a name of the config (`codex`, `extended`) or a profile value
   * of the host's own (Profile.ts). It is resolved once per listing and per call.
   */
  readonly profile?: Config.ToolProfile | Profile
  /** Deny patterns the thread adds to the config's resource rules (docs/policy.md); they never remove one. */
  readonly resourceDeny?: ReadonlyArray<string>
  /**
   * Told of every successful `read_mcp_resource` of a profile that watches reads (the extended one):
   * the URI read, a template's expanded one, and the call id, e.g. a {@link ResourceChanges.Tracker}
   * that subscribes the thread to it. The codex profile never calls it.
   */
  readonly resourceChanges?: ResourceChanges.ReadWatch
}

/** A model's function call: its id, the function name and the raw argument text. */
export interface ToolCall {
  readonly callId: string
  readonly name: string
  readonly arguments: string
}

/** What the model gets back: the output text and whether the call succeeded. */
export interface ToolOutput {
  readonly output: string
  readonly success: boolean
  /** Extended profile only: the output text, then each image sent as an image. */
  readonly contentItems?: ReadonlyArray<AppServer.ContentItem>
}

/** Runs one call of a profile's tool (arguments, lifecycle items, rendering). Never fails. */
export type RunTool = (ctx: ToolContext, call: ToolCall) => Effect.Effect<ToolOutput, EmitError, LifecycleSink>

/** A tool a profile offers: the spec the model sees and what runs a call of it. */
export interface ProfileTool {
  readonly spec: ToolPayload.ToolSpec
  readonly run: RunTool
}

/** How a profile shows the results of MCP tools and the failures of its tools. */
export interface Renderers {
  /** The outcome of an MCP tool's result. */
  readonly toolResult: (ctx: ToolContext, server: string, result: Mcp.CallToolResult) => Outcome
  /** The outcome of a failure with this model-facing message. */
  readonly failure: (message: string) => Outcome
}

/** A tool profile: its resource tools, its completion tool, and its renderers (Profile.ts). */
export interface Profile {
  /** The profile's name (in spans, logs and tests). */
  readonly name: string
  /** The resource tools, in the order they are offered (first in every listing of a bound thread). */
  readonly resourceTools: ReadonlyArray<ProfileTool>
  /** Offered right after them when a ready, accessible server of the binding declares `completions`. */
  readonly completion?: ProfileTool
  readonly render: Renderers
  /**
   * Whether a thread on this profile follows the resources its reads returned (a host subscribes it
   * and hands the changes over at the next turn); a profile that does not ignores `resourceChanges`.
   */
  readonly followsReads: boolean
}

/** `canAccess(server)`: the access gate of the resource tools (section 6). */
export const canAccess = (ctx: ToolContext, server: string): boolean =>
  ctx.orchestratorMcpEnabled || server !== ctx.config.apps.serverName
