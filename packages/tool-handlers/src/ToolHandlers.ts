/**
 * The model tools of a thread: the registration gate and listing (resource-tools.md sections 4 and
 * 11.1), and one `callTool` entry point that dispatches the three resource tools and `mcp__…` tools
 * with argument handling, the access gate, lifecycle items and truncation (sections 5 to 11).
 */
import {
  type AppServer,
  type Config,
  Messages,
  type Mcp,
  ToolPayload,
  type Truncation as ProtocolTruncation
} from "@mcp-resources/protocol"
import { AppPolicy, type ResourceClient } from "@mcp-resources/resource-client"
import { type Context, Effect, Either, Option } from "effect"
import * as Arguments from "./Arguments.js"
import * as Extended from "./Extended.js"
import type { LifecycleSink } from "./LifecycleSink.js"
import * as McpToolNames from "./McpToolNames.js"
import * as OptionalTemplates from "./OptionalTemplates.js"
import * as Lifecycle from "./internal/lifecycle.js"
import * as Payloads from "./internal/payloads.js"
import * as Policy from "./internal/policy.js"
import * as Rules from "./internal/rules.js"
import * as ToolMeta from "./internal/toolMeta.js"
import type * as ResourceChanges from "./ResourceChanges.js"
import * as ToolSpecs from "./ToolSpecs.js"
import * as Truncation from "./Truncation.js"

/** What a thread's tools run against. */
export interface ToolContext {
  /** The thread's binding: the latest set at its most recent `turn/start`. */
  readonly set: ResourceClient.ConnectionSet
  /** The latest loaded config (apps server name, app policy). */
  readonly config: Config.Config
  /** The access gate: when false, the apps server is refused by the three resource tools. */
  readonly orchestratorMcpEnabled: boolean
  /** The configured policy; the effective limit (×1.2) is applied inside. */
  readonly truncation: ProtocolTruncation.TruncationPolicy
  /** The item `server` of a list call without a server (default `codex`). */
  readonly aggregateServerLabel?: string
  /** The tool profile (default `codex`): `extended` gives the specs and outputs of {@link Extended}. */
  readonly profile?: Config.ToolProfile
  /** Deny patterns the thread adds to the config's resource rules (docs/policy.md); they never remove one. */
  readonly resourceDeny?: ReadonlyArray<string>
  /**
   * Extended profile: told of every successful `read_mcp_resource` (the URI read, a template's expanded
   * one, and the call id), e.g. a {@link ResourceChanges.Tracker} that subscribes the thread to it.
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

const isExtended = (ctx: ToolContext): boolean => ctx.profile === "extended"

/** The item `server` of a list call without a server, unless the host sets another. */
export const defaultAggregateServerLabel = "codex"

/** A result whose JSON text is over this many bytes is stored in its item with truncated content. */
export const maxItemResultBytes = 1048576

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
export const canAccess = (ctx: ToolContext, server: string): boolean =>
  ctx.orchestratorMcpEnabled || server !== ctx.config.apps.serverName

/** The refusal of a server the access gate keeps from the resource tools. */
export const disabledMessage = (server: string): string => Messages.serverDisabledByOrchestrator(server)

/** Enabled: apps-server tools pass the app policy (connector = `_meta.connector_id`); others always. */
export const isToolEnabled = (ctx: ToolContext, server: string, tool: Mcp.Tool): boolean => {
  if (server !== ctx.config.apps.serverName) return true
  const connector = ToolMeta.connectorId(tool)
  return connector === undefined || AppPolicy.isToolEnabled(ctx.config, connector, tool.name)
}

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

/**
 * The tools offered to the model: nothing when the binding has no enabled server; otherwise the three
 * resource tools, then every model-visible, enabled MCP tool of the ready servers.
 */
export const listTools: (ctx: ToolContext) => Effect.Effect<ReadonlyArray<ToolPayload.ToolSpec>> = Effect.fn(
  "ToolHandlers.listTools"
)(function* (ctx: ToolContext) {
  if (!ctx.set.hasServers()) return [] as ReadonlyArray<ToolPayload.ToolSpec>
  const registry = yield* toolRegistry(ctx)
  const mcpTools = registry.tools
    .filter((named) => ToolMeta.isModelVisible(named.tool) && isToolEnabled(ctx, named.server, named.tool))
    .map(mcpToolSpec)
  const resourceTools = isExtended(ctx) ? Extended.resourceToolSpecs : ToolSpecs.resourceToolSpecs
  // extended: the completion tool right after them, when a ready server of the binding offers completions
  const completion = isExtended(ctx) && offersCompletions(ctx) ? [Extended.completeMcpResourceArgument] : []
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

const rejected = (message: string): ToolOutput => ({ output: message, success: false })

/** The outcome of a resource tool whose payload is the concatenation of `pieces` (one JSON text). */
const succeeded = (ctx: ToolContext, pieces: ReadonlyArray<string>): Lifecycle.Outcome => {
  const output = Truncation.truncatePiecesOutput(pieces, ctx.truncation)
  return {
    status: "completed",
    result: { content: [{ type: "text", text: output }], isError: false },
    error: null,
    output,
    success: true
  }
}

type ListKind = "resources" | "templates"

const listOperation = (
  ctx: ToolContext,
  kind: ListKind,
  args: Arguments.ListArguments
): Effect.Effect<ReadonlyArray<string>, string> => {
  const { server, cursor } = args
  // without rules and without the policy path: exactly the plain operation
  const policed = Rules.traceOf(ctx) !== undefined || Rules.active(ctx)
  const hiddenCount = (json: string, hidden: number) => (isExtended(ctx) ? Rules.withHiddenCount(json, hidden) : json)
  if (server === undefined) {
    if (cursor !== undefined) return Effect.fail(Messages.args.cursorWithoutServer)
    const include = (name: string) => canAccess(ctx, name)
    if (policed) {
      return Rules.requested(
        ctx,
        kind === "resources"
          ? Effect.map(ctx.set.listAllResources(include), (result) => {
              const filtered = Rules.filterAggregate(ctx, result, (r) => r.uri, Rules.resourceListed)
              return [hiddenCount(Payloads.aggregateResources(filtered.result), filtered.hidden)]
            })
          : Effect.map(allTemplates(ctx, include), (result) => {
              const filtered = Rules.filterAggregate(ctx, result, (t) => t.uriTemplate, Rules.templateListed)
              return [hiddenCount(Payloads.aggregateResourceTemplates(filtered.result), filtered.hidden)]
            })
      )
    }
    return kind === "resources"
      ? Effect.map(ctx.set.listAllResources(include), (result) => [Payloads.aggregateResources(result)])
      : Effect.map(allTemplates(ctx, include), (result) => [Payloads.aggregateResourceTemplates(result)])
  }
  if (!canAccess(ctx, server)) return Effect.fail(Messages.serverDisabledByOrchestrator(server))
  if (kind === "resources") {
    const page = cursor === undefined ? ctx.set.listResources(server) : ctx.set.listResources(server, cursor)
    return Rules.requested(ctx, page).pipe(
      Effect.map((result) => {
        if (!policed) return [Payloads.singleServerResources(server, result)]
        const filtered = Rules.filterResources(ctx, server, result)
        return [hiddenCount(Payloads.singleServerResources(server, filtered.page), filtered.hidden)]
      }),
      Effect.mapError((error) => Messages.toolFailure.list(error.message))
    )
  }
  const requested =
    cursor === undefined ? ctx.set.listResourceTemplates(server) : ctx.set.listResourceTemplates(server, cursor)
  // extended: a server without the optional method lists no templates (codex: its failure, as ever)
  const page = isExtended(ctx) ? OptionalTemplates.emptyWhenUnimplemented(server, requested) : requested
  return Rules.requested(ctx, page).pipe(
    Effect.map((result) => {
      if (!policed) return [Payloads.singleServerResourceTemplates(server, result)]
      const filtered = Rules.filterTemplates(ctx, server, result)
      return [hiddenCount(Payloads.singleServerResourceTemplates(server, filtered.page), filtered.hidden)]
    }),
    Effect.mapError((error) => Messages.toolFailure.templates(error.message))
  )
}

/** Every server's templates; in the extended profile a server without the optional method is no failure. */
const allTemplates = (ctx: ToolContext, include: (server: string) => boolean) =>
  isExtended(ctx)
    ? Effect.map(ctx.set.listAllResourceTemplates(include), OptionalTemplates.dropUnimplemented)
    : ctx.set.listAllResourceTemplates(include)

const runResourceTool = (
  ctx: ToolContext,
  call: ToolCall,
  server: string,
  args: Arguments.JsonObject | null,
  operation: Effect.Effect<ReadonlyArray<string>, string>
) =>
  Lifecycle.runWith(
    { callId: call.callId, server, tool: call.name, arguments: args },
    operation,
    isExtended(ctx) ? (pieces) => Extended.listOutcome(ctx, pieces) : (pieces) => succeeded(ctx, pieces),
    isExtended(ctx) ? Extended.failureOutcome : Lifecycle.failure
  )

const callReadTool = (ctx: ToolContext, call: ToolCall) => {
  if (isExtended(ctx)) return Extended.callReadTool(ctx, call, (server) => canAccess(ctx, server))
  const parsed = Arguments.parseReadArguments(call.arguments)
  if (Either.isLeft(parsed)) return Effect.succeed(rejected(parsed.left.message))
  const { server, uri, raw } = parsed.right
  const invocation = { callId: call.callId, server, tool: call.name, arguments: raw }
  if (!canAccess(ctx, server)) {
    return Lifecycle.runWith(
      invocation,
      Effect.fail(Messages.serverDisabledByOrchestrator(server)),
      absurd,
      Lifecycle.failure
    )
  }
  const refused = Rules.refusedRead(ctx, server, uri)
  if (refused !== undefined) return Lifecycle.runWith(invocation, Effect.fail(refused), absurd, Lifecycle.failure)
  // one match turns the read into the outcome (no map, mapError, catchAll steps)
  return Lifecycle.runWith(
    invocation,
    Rules.requested(ctx, ctx.set.readResource(server, uri)),
    (result) => succeeded(ctx, Payloads.readPieces(server, uri, result)),
    (error) => Lifecycle.failure(Messages.toolFailure.read(error.message))
  )
}

const absurd = (never: never): Lifecycle.Outcome => never

const callListTool = (ctx: ToolContext, call: ToolCall, kind: ListKind) => {
  const parsed = Arguments.parseListArguments(call.arguments)
  if (Either.isLeft(parsed)) return Effect.succeed(rejected(parsed.left.message))
  const args = parsed.right
  const server = args.server ?? ctx.aggregateServerLabel ?? defaultAggregateServerLabel
  return runResourceTool(ctx, call, server, args.raw, listOperation(ctx, kind, args))
}

const callMcpTool = (ctx: ToolContext, call: ToolCall, named: McpToolNames.NamedTool) => {
  const parsed = Arguments.parseRaw(call.arguments)
  if (Either.isLeft(parsed)) return Effect.succeed(rejected(parsed.left.message))
  const args = parsed.right
  const { server, tool } = named
  const request = Rules.requested(
    ctx,
    args === null ? ctx.set.callTool(server, tool.name) : ctx.set.callTool(server, tool.name, args)
  )
  const extended = isExtended(ctx)
  const operation = request.pipe(
    Effect.map((result): Lifecycle.Outcome => {
      if (extended) return Extended.toolResultOutcome(ctx, server, result)
      const json = JSON.stringify(result)
      const output = Truncation.truncateOutput(json, ctx.truncation)
      const isError = result.isError === true
      const stored =
        Truncation.byteLength(json) > maxItemResultBytes
          ? { ...result, content: [{ type: "text", text: output }] }
          : result
      return { status: isError ? "failed" : "completed", result: stored, error: null, output, success: !isError }
    }),
    Effect.catchAll((error) =>
      Effect.succeed(
        extended
          ? Extended.failureOutcome(Messages.toolFailure.call(error.message))
          : Lifecycle.failure(Messages.toolFailure.call(error.message))
      )
    )
  )
  return Lifecycle.run(
    {
      callId: call.callId,
      server,
      tool: tool.name,
      arguments: args,
      app: ToolMeta.appFields(tool, server === ctx.config.apps.serverName)
    },
    operation
  )
}

/**
 * Runs one function call of the model. Never fails: every failure is an output with `success:false`.
 * Argument errors and unknown names emit no items; everything else emits a started and a completed item.
 */
export const callTool = (ctx: ToolContext, call: ToolCall): Effect.Effect<ToolOutput, never, LifecycleSink> =>
  Effect.contextWithEffect((context: Context.Context<LifecycleSink>) => {
    const { hooks, audit } = Policy.services(context)
    // without hooks and rules: exactly the plain call
    if (!Policy.hasHooks(hooks) && !Rules.active(ctx)) return dispatch(ctx, call)
    if (ToolSpecs.resourceToolNames.includes(call.name)) {
      if (!ctx.set.hasServers()) return dispatch(ctx, call)
      const target = Policy.resourceTarget(call)
      return Policy.run(ctx, call, target, hooks, audit, dispatch)
    }
    if (!call.name.startsWith("mcp__")) return dispatch(ctx, call)
    return Effect.flatMap(toolRegistry(ctx), (registry) => {
      const named = Option.filter(registry.lookup(call.name), (named) => isToolEnabled(ctx, named.server, named.tool))
      return Option.isNone(named)
        ? dispatch(ctx, call)
        : Policy.run(ctx, call, Policy.mcpTarget(named.value), hooks, audit, dispatch)
    })
  })

/** The plain call: no hooks, no audit (the resource rules apply when configured). */
const dispatch = (ctx: ToolContext, call: ToolCall): Effect.Effect<ToolOutput, never, LifecycleSink> =>
  // no span and no generator: this is the per-call path of every tool
  Effect.suspend(() => {
    if (ToolSpecs.resourceToolNames.includes(call.name)) {
      if (!ctx.set.hasServers()) return Effect.succeed(rejected(Messages.unsupportedCall(call.name)))
      switch (call.name) {
        case ToolSpecs.listMcpResources.name:
          return callListTool(ctx, call, "resources")
        case ToolSpecs.listMcpResourceTemplates.name:
          return callListTool(ctx, call, "templates")
        default:
          return callReadTool(ctx, call)
      }
    }
    const unsupported = rejected(Messages.unsupportedCall(call.name))
    if (call.name === Extended.completeMcpResourceArgument.name && isExtended(ctx) && ctx.set.hasServers()) {
      return Extended.callCompleteTool(ctx, call, (server) => canAccess(ctx, server))
    }
    if (!call.name.startsWith("mcp__")) return Effect.succeed(unsupported)
    return Effect.flatMap(toolRegistry(ctx), (registry) => {
      const named = Option.filter(registry.lookup(call.name), (named) => isToolEnabled(ctx, named.server, named.tool))
      return Option.isNone(named) ? Effect.succeed(unsupported) : callMcpTool(ctx, call, named.value)
    })
  })
