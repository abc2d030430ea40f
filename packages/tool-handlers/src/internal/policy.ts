/**
 * The policy path of a model tool call (docs/policy.md): the `before` hook, the call with the
 * resource rules and a trace, the `after` hook, and the audit record. Only calls of offered tools
 * (the three resource tools with a bound server, registered `mcp__…` tools) run through hooks.
 */
import { Messages, type ToolCallItem, type ToolHook } from "@mcp-resources/protocol"
import { Cause, Context, Effect, Exit, Option } from "effect"
import { type LifecycleEvent, LifecycleSink } from "../LifecycleSink.js"
import type * as McpToolNames from "../McpToolNames.js"
import type { ToolCall, ToolContext, ToolOutput } from "../ToolHandlers.js"
import * as ToolHooks from "../ToolHooks.js"
import * as Lifecycle from "./lifecycle.js"
import * as Rules from "./rules.js"

/** What a call is about, once known to be a call of an offered tool. */
export interface Target {
  /** The item's `server`. */
  readonly server: string
  /** The item's `tool`. */
  readonly tool: string
  /** The server the hook input names (absent for an aggregate list). */
  readonly hookServer?: string
}

const parseLoose = (text: string): unknown => {
  if (text.trim() === "") return null
  try {
    return JSON.parse(text) as unknown
  } catch {
    return text
  }
}

const isObject = (u: unknown): u is Readonly<Record<string, unknown>> =>
  typeof u === "object" && u !== null && !Array.isArray(u)

/** The target of a resource tool call: its `server` argument, or the aggregate label. */
export const resourceTarget = (ctx: ToolContext, call: ToolCall, aggregateLabel: string): Target => {
  const args = parseLoose(call.arguments)
  const server =
    isObject(args) && typeof args.server === "string" && args.server.trim() !== "" ? args.server.trim() : undefined
  return server === undefined
    ? { server: call.name === "read_mcp_resource" ? "" : (ctx.aggregateServerLabel ?? aggregateLabel), tool: call.name }
    : { server, tool: call.name, hookServer: server }
}

/** The target of an `mcp__…` call. */
export const mcpTarget = (named: McpToolNames.NamedTool): Target => ({
  server: named.server,
  tool: named.tool.name,
  hookServer: named.server
})

const causeText = (cause: Cause.Cause<ToolHooks.HookError>): string => {
  const failure = Cause.failureOption(cause)
  if (Option.isSome(failure)) return failure.value.message
  const defect = Cause.dieOption(cause)
  if (Option.isSome(defect)) return defect.value instanceof Error ? defect.value.message : String(defect.value)
  return "interrupted"
}

/** The item of a call whose output a hook changed: its result (or error) carries the new output. */
const changedItem = (item: ToolCallItem.McpToolCallItem, output: ToolOutput): ToolCallItem.McpToolCallItem =>
  output.success
    ? {
        ...item,
        status: "completed",
        result: { content: [{ type: "text", text: output.output }], isError: false },
        error: null
      }
    : item.result !== null && item.error === null
      ? { ...item, status: "failed", result: { content: [{ type: "text", text: output.output }], isError: true } }
      : { ...item, status: "failed", result: null, error: { message: output.output } }

const withOutput = (output: ToolOutput, text: string, success: boolean): ToolOutput => {
  if (output.contentItems === undefined) return { output: text, success }
  const images = output.contentItems.filter((part) => part.type !== "text")
  return { output: text, success, contentItems: [{ type: "text", text }, ...images] }
}

/**
 * Runs one call of an offered tool on the policy path. `dispatch` is the plain call; it gets the
 * traced context and, after a rewrite, the rewritten arguments.
 */
export const run = (
  ctx: ToolContext,
  call: ToolCall,
  target: Target,
  hooks: ToolHooks.Service,
  audit: Option.Option<Context.Tag.Service<ToolHooks.ToolAudit>>,
  dispatch: (ctx: ToolContext, call: ToolCall) => Effect.Effect<ToolOutput, never, LifecycleSink>
): Effect.Effect<ToolOutput, never, LifecycleSink> =>
  Effect.gen(function* () {
    const sink = yield* LifecycleSink
    const trace = Rules.makeTrace()
    const modelArguments = parseLoose(call.arguments)
    const hookCall: ToolHooks.HookCall = {
      callId: call.callId,
      name: call.name,
      ...(target.hookServer === undefined ? {} : { server: target.hookServer }),
      arguments: modelArguments
    }
    const before: Array<ToolHook.HookStep> = []
    const after: Array<ToolHook.HookStep> = []
    const record = (output: ToolOutput) =>
      Option.match(audit, {
        onNone: () => Effect.void,
        onSome: (sinkOfAudit) =>
          sinkOfAudit.record({
            callId: call.callId,
            tool: call.name,
            ...(target.hookServer === undefined ? {} : { server: target.hookServer }),
            rules: trace.rules,
            hidden: trace.hidden,
            listed: trace.listed,
            before,
            after,
            serverRequest: trace.serverRequest,
            success: output.success
          })
      })
    const itemArguments = isObject(modelArguments) ? modelArguments : null

    // before
    let effectiveCall = call
    if (hooks.before !== undefined) {
      const decided = yield* Effect.exit(Effect.suspend(() => hooks.before!(hookCall)))
      let refusal: string | undefined
      if (Exit.isFailure(decided)) {
        const reason = causeText(decided.cause)
        before.push({ hook: "before", decision: "failed", reason })
        refusal = Messages.policy.beforeHookFailed(reason)
      } else {
        const decision = decided.value
        before.push(...(decision.steps ?? [stepOf(decision)]))
        if (decision.decision === "deny") refusal = Messages.policy.hookDenied(decision.reason)
        else if (decision.decision === "rewrite")
          effectiveCall = { ...call, arguments: JSON.stringify(decision.arguments) }
      }
      if (refusal !== undefined) {
        const message = refusal
        const output = yield* Lifecycle.runWith(
          { callId: call.callId, server: target.server, tool: target.tool, arguments: itemArguments },
          Effect.fail(message),
          (never: never) => never,
          Lifecycle.failure
        )
        yield* record(output)
        return output
      }
    }

    // the call: the item keeps the model's arguments; with after hooks the completed item waits for them
    const rewritten = effectiveCall !== call
    let held: LifecycleEvent | undefined
    const restore = (event: LifecycleEvent): LifecycleEvent =>
      rewritten ? { ...event, item: { ...event.item, arguments: itemArguments } } : event
    const wrapped = LifecycleSink.of({
      emit: (event) => {
        if (event.phase === "completed" && hooks.after !== undefined) {
          held = restore(event)
          return Effect.void
        }
        return sink.emit(restore(event))
      }
    })
    const flush = (item?: ToolCallItem.McpToolCallItem) =>
      Effect.suspend(() => {
        const event = held
        held = undefined
        return event === undefined ? Effect.void : sink.emit(item === undefined ? event : { ...event, item })
      })
    const traced: Rules.Traced = { ...ctx, trace }
    const output = yield* dispatch(traced, effectiveCall).pipe(
      Effect.provideService(LifecycleSink, wrapped),
      Effect.onExit((exit) => (Exit.isFailure(exit) ? Effect.uninterruptible(flush()) : Effect.void))
    )
    if (hooks.after === undefined) {
      yield* record(output)
      return output
    }

    // after
    const decided = yield* Effect.exit(
      Effect.suspend(() =>
        hooks.after!(
          { ...hookCall, arguments: parseLoose(effectiveCall.arguments) },
          { output: output.output, success: output.success }
        )
      )
    )
    let final: ToolOutput = output
    let withheld = false
    if (Exit.isFailure(decided)) {
      const reason = causeText(decided.cause)
      after.push({ hook: "after", decision: "failed", reason })
      final = { output: Messages.policy.afterHookFailed(reason), success: false }
      withheld = true
    } else {
      const decision = decided.value
      if (decision.decision === "redact") {
        const { text, count } = ToolHooks.redact(output.output, decision.redact)
        after.push(...(decision.steps ?? [{ hook: "after", decision: "redact", redactions: count }]))
        if (count > 0) final = withOutput(output, text, output.success)
      } else if (decision.decision === "replace") {
        after.push(...(decision.steps ?? [stepOf(decision)]))
        final = withOutput(output, decision.output, decision.success ?? output.success)
      } else {
        after.push(...(decision.steps ?? [stepOf(decision)]))
      }
    }
    const event = held as LifecycleEvent | undefined
    const item =
      final === output || event === undefined
        ? undefined
        : withheld
          ? { ...event.item, status: "failed" as const, result: null, error: { message: final.output } }
          : changedItem(event.item, final)
    yield* Effect.uninterruptible(flush(item))
    yield* record(final)
    return final
  })

const stepOf = (decision: ToolHook.BeforeToolDecision | ToolHook.AfterToolDecision): ToolHook.HookStep => {
  switch (decision.decision) {
    case "deny":
      return { hook: "hook", decision: "deny", reason: decision.reason }
    case "rewrite":
      return { hook: "hook", decision: "rewrite", arguments: decision.arguments }
    case "redact":
      return { hook: "hook", decision: "redact", redactions: decision.redact.length }
    default:
      return { hook: "hook", decision: decision.decision }
  }
}

/** The hooks and audit sink of the running fiber, when any. */
export const services = (
  context: Context.Context<never>
): { readonly hooks: ToolHooks.Service; readonly audit: Option.Option<Context.Tag.Service<ToolHooks.ToolAudit>> } => ({
  hooks: Option.getOrElse(Context.getOption(context, ToolHooks.ToolHooks), () => ToolHooks.none),
  audit: Context.getOption(context, ToolHooks.ToolAudit)
})

/** True when the hooks do something. */
export const hasHooks = (hooks: ToolHooks.Service): boolean => hooks.before !== undefined || hooks.after !== undefined
