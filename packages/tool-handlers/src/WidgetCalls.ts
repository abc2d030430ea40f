/**
 * Tool calls a widget makes through its host (MCP Apps `tools/call`; `mcp/widget/callTool` in the
 * app-server, docs/widgets.md), under the host policy of the model's calls (docs/policy.md): the
 * `before` and `after` hooks of the fiber's {@link ToolHooks.ToolHooks} see the call with
 * `caller: "widget"` and the name the model knows the tool by, a redaction is applied to the whole
 * result (its `structuredContent` included), and the audit record says it was a widget's call. Its
 * items are emitted like a model call's, marked `initiator: "widget"`: the started one before the hooks.
 */
import type { Errors } from "@mcp-resources/protocol"
import { type Context, Effect, Option } from "effect"
import type { EmitError, LifecycleSink } from "./LifecycleSink.js"
import * as McpToolNames from "./McpToolNames.js"
import * as Policy from "./internal/policy.js"
import * as Route from "./internal/route.js"
import { type ToolContext, toolRegistry } from "./ToolHandlers.js"

/** One call a widget makes. */
export interface WidgetCall {
  /** The item id of this call. */
  readonly itemId: string
  /** The model's call whose widget makes it. */
  readonly originCallId: string
  readonly server: string
  /** The MCP tool's name. */
  readonly tool: string
  readonly arguments?: Readonly<Record<string, unknown>>
}

/** How a widget's call ended: the result the widget gets, the server's error, or the host policy's refusal. */
export type Outcome = Policy.WidgetOutcome<Errors.ResourceFailure>

/**
 * Calls the tool for the widget and emits its items. Without hooks and without resource rules it is
 * the plain call with its items; otherwise it runs on the policy path and is audited.
 */
export const call = (ctx: ToolContext, widgetCall: WidgetCall): Effect.Effect<Outcome, EmitError, LifecycleSink> =>
  Effect.contextWithEffect((context: Context.Context<LifecycleSink>) => {
    const policy = Route.hostPolicy(ctx, context)
    const request = (args: Readonly<Record<string, unknown>> | undefined) =>
      args === undefined
        ? ctx.set.callTool(widgetCall.server, widgetCall.tool)
        : ctx.set.callTool(widgetCall.server, widgetCall.tool, args)
    const named =
      policy !== undefined
        ? Effect.map(toolRegistry(ctx), (registry) =>
            Option.getOrElse(registry.nameOf(widgetCall.server, widgetCall.tool), () =>
              McpToolNames.sanitize(`mcp__${widgetCall.server}__${widgetCall.tool}`)
            )
          )
        : Effect.succeed("")
    return Effect.flatMap(named, (name) =>
      Policy.runWidgetCall(
        {
          itemId: widgetCall.itemId,
          originCallId: widgetCall.originCallId,
          server: widgetCall.server,
          tool: widgetCall.tool,
          name,
          arguments: widgetCall.arguments
        },
        policy?.hooks ?? {},
        policy?.audit ?? Option.none(),
        request
      )
    )
  })
