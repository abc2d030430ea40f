/**
 * The policy path of a tool call (docs/policy.md): the `before` hook, the call with the resource rules
 * and a trace, the `after` hook, and the audit record. Only calls of offered tools (the three resource
 * tools with a bound server, registered `mcp__…` tools) and the tool calls of widgets run through hooks.
 *
 * The hooks run inside the call's lifecycle ({@link Lifecycle.Gate}): the started item is out before the
 * `before` hook runs (so a host can let the next call of the thread go, and a cancelled call completes
 * as `cancelled`), and the completed item shows what the `after` hook left.
 */
import { type Mcp, Messages, type ToolHook } from "@mcp-resources/protocol"
import { Cause, Effect, Exit, Option } from "effect"
import { type EmitError, LifecycleSink } from "../LifecycleSink.js"
import * as ToolHooks from "../ToolHooks.js"
import type { ToolCall, ToolContext, ToolOutput } from "./context.js"
import * as Lifecycle from "./lifecycle.js"
import * as Route from "./route.js"
import * as Rules from "./rules.js"
import { isRecord as isObject } from "@mcp-resources/protocol/Records"

/** JSON text parsed for a hook: `null` when blank, the text itself when it is not JSON. */
export const parseLoose = (text: string): unknown => {
  if (text.trim() === "") return null
  try {
    return JSON.parse(text) as unknown
  } catch {
    return text
  }
}

/** The server the hook input names: an MCP tool's, a resource tool's `server` argument (none for an aggregate list). */
export const hookServer = (call: ToolCall, route: Route.Route): string | undefined => {
  if (route._tag === "mcp") return route.named.server
  const args = parseLoose(call.arguments)
  return isObject(args) && typeof args.server === "string" && args.server.trim() !== "" ? args.server.trim() : undefined
}

const causeText = (cause: Cause.Cause<ToolHooks.HookError>): string => {
  const failure = Cause.failureOption(cause)
  if (Option.isSome(failure)) return failure.value.message
  const defect = Cause.dieOption(cause)
  if (Option.isSome(defect)) return defect.value instanceof Error ? defect.value.message : String(defect.value)
  return "interrupted"
}

/** The reason of a code hook's deny that gave none. */
export const defaultDenyReason = "the before hook denied the call"

/** What the `before` hook decided. */
export type BeforeVerdict =
  | { readonly _tag: "go" }
  | { readonly _tag: "refuse"; readonly message: string }
  | { readonly _tag: "rewrite"; readonly arguments: Readonly<Record<string, unknown>> }

const go: BeforeVerdict = { _tag: "go" }

/** Runs the `before` hook (when any) and records its steps; the call's own interruption goes on. */
export const beforeVerdict = (
  hooks: ToolHooks.Service,
  call: ToolHooks.HookCall,
  steps: Array<ToolHook.HookStep>
): Effect.Effect<BeforeVerdict> => {
  const before = hooks.before
  if (before === undefined) return Effect.succeed(go)
  return Effect.flatMap(Effect.exit(Effect.suspend(() => before(call))), (decided): Effect.Effect<BeforeVerdict> => {
    if (Exit.isFailure(decided)) {
      if (Cause.isInterruptedOnly(decided.cause)) return Effect.interrupt
      const reason = causeText(decided.cause)
      steps.push({ hook: "before", decision: "failed", reason })
      return Effect.succeed({ _tag: "refuse", message: Messages.policy.beforeHookFailed(reason) })
    }
    const decision = decided.value
    steps.push(...(decision.steps ?? [stepOf(decision)]))
    if (decision.decision === "deny")
      return Effect.succeed({
        _tag: "refuse",
        message: Messages.policy.hookDenied(decision.reason ?? defaultDenyReason)
      })
    if (decision.decision === "rewrite") return Effect.succeed({ _tag: "rewrite", arguments: decision.arguments })
    return Effect.succeed(go)
  })
}

/** What the `after` hook decided. */
export type AfterVerdict =
  | { readonly _tag: "pass" }
  | { readonly _tag: "redact"; readonly strings: ReadonlyArray<string> }
  | { readonly _tag: "replace"; readonly output: string; readonly success: boolean }
  | { readonly _tag: "withhold"; readonly message: string }

const pass: AfterVerdict = { _tag: "pass" }

/** Runs the `after` hook (when any) on `output` and records its steps; the call's own interruption goes on. */
export const afterVerdict = (
  hooks: ToolHooks.Service,
  call: ToolHooks.HookCall,
  output: ToolHooks.HookOutput,
  steps: Array<ToolHook.HookStep>
): Effect.Effect<AfterVerdict> => {
  const after = hooks.after
  if (after === undefined) return Effect.succeed(pass)
  return Effect.flatMap(
    Effect.exit(Effect.suspend(() => after(call, output))),
    (decided): Effect.Effect<AfterVerdict> => {
      if (Exit.isFailure(decided)) {
        if (Cause.isInterruptedOnly(decided.cause)) return Effect.interrupt
        const reason = causeText(decided.cause)
        steps.push({ hook: "after", decision: "failed", reason })
        return Effect.succeed({ _tag: "withhold", message: Messages.policy.afterHookFailed(reason) })
      }
      const decision = decided.value
      switch (decision.decision) {
        case "redact": {
          const { count } = ToolHooks.redact(output.output, decision.redact)
          steps.push(...(decision.steps ?? [{ hook: "after", decision: "redact", redactions: count }]))
          return Effect.succeed(decision.redact.length === 0 ? pass : { _tag: "redact", strings: decision.redact })
        }
        case "replace":
          steps.push(...(decision.steps ?? [stepOf(decision)]))
          return Effect.succeed({
            _tag: "replace",
            output: decision.output,
            success: decision.success ?? output.success
          })
        default:
          steps.push(...(decision.steps ?? [stepOf(decision)]))
          return Effect.succeed(pass)
      }
    }
  )
}

/** What the `after` hook judges of an outcome: a windowed read's whole text, else the output. */
const hookOutput = (outcome: Lifecycle.Outcome): ToolHooks.HookOutput => ({
  output: outcome.windowed === undefined ? outcome.output : outcome.windowed.whole(),
  success: outcome.success
})

const withText = (items: Lifecycle.Outcome["contentItems"], text: string): Pick<Lifecycle.Outcome, "contentItems"> => {
  if (items === undefined) return {}
  return { contentItems: [{ type: "text", text }, ...items.filter((part) => part.type !== "text")] }
}

/**
 * The outcome after the `after` hook: redacted strings replaced everywhere it shows (the output, the
 * item's result with its `structuredContent`, a window cut again from the redacted text), a replaced
 * output, or the output withheld.
 */
export const applyAfter = (outcome: Lifecycle.Outcome, verdict: AfterVerdict): Lifecycle.Outcome => {
  switch (verdict._tag) {
    case "pass":
      return outcome
    case "redact": {
      if (outcome.windowed !== undefined) return outcome.windowed.cut(verdict.strings)
      const output = ToolHooks.redact(outcome.output, verdict.strings).text
      return {
        status: outcome.status,
        result: ToolHooks.redactValue(outcome.result, verdict.strings),
        error: ToolHooks.redactValue(outcome.error, verdict.strings),
        output,
        success: outcome.success,
        ...(outcome.contentItems === undefined
          ? {}
          : { contentItems: ToolHooks.redactValue(outcome.contentItems, verdict.strings) })
      }
    }
    case "replace": {
      const text = verdict.output
      const fields: Pick<Lifecycle.Outcome, "status" | "result" | "error"> = verdict.success
        ? { status: "completed", result: { content: [{ type: "text", text }], isError: false }, error: null }
        : outcome.result !== null && outcome.error === null
          ? { status: "failed", result: { content: [{ type: "text", text }], isError: true }, error: null }
          : { status: "failed", result: null, error: { message: text } }
      return { ...fields, output: text, success: verdict.success, ...withText(outcome.contentItems, text) }
    }
    case "withhold":
      return Lifecycle.failure(verdict.message)
  }
}

/** The audit record of a call (docs/policy.md). */
const auditRecord = (
  call: ToolHooks.HookCall,
  trace: Rules.Trace,
  before: ReadonlyArray<ToolHook.HookStep>,
  after: ReadonlyArray<ToolHook.HookStep>,
  success: boolean
): ToolHook.ToolAudit => ({
  callId: call.callId,
  tool: call.name,
  ...(call.server === undefined ? {} : { server: call.server }),
  ...(call.caller === "widget" ? { caller: "widget" as const } : {}),
  ...(call.originCallId === undefined ? {} : { originCallId: call.originCallId }),
  rules: trace.rules,
  hidden: trace.hidden,
  listed: trace.listed,
  before,
  after,
  serverRequest: trace.serverRequest,
  success
})

const recordAudit = (audit: Route.Audit, record: ToolHook.ToolAudit): Effect.Effect<void> =>
  Option.isNone(audit) ? Effect.void : audit.value.record(record)

const silent = LifecycleSink.of({ emit: () => Effect.void })

/**
 * Runs one call of an offered tool (a resource tool or a registered MCP tool) on the policy path.
 * The call runs on its route (route.ts): the route's tool checks the arguments (a call rejected
 * there makes no items and runs no hooks) and runs the lifecycle, inside which this path's gate runs
 * the hooks. A rewrite runs the same route again with the new arguments (its items unseen: the
 * call's items keep the model's arguments).
 */
export const run = (
  ctx: ToolContext,
  call: ToolCall,
  route: Route.Route,
  hooks: ToolHooks.Service,
  audit: Route.Audit
): Effect.Effect<ToolOutput, EmitError, LifecycleSink> =>
  Effect.suspend(() => {
    const trace = Rules.makeTrace()
    const traced: Rules.Traced = { ...ctx, trace }
    const server = hookServer(call, route)
    const hookCall: ToolHooks.HookCall = {
      callId: call.callId,
      name: call.name,
      ...(server === undefined ? {} : { server }),
      caller: "model",
      arguments: parseLoose(call.arguments)
    }
    const before: Array<ToolHook.HookStep> = []
    const after: Array<ToolHook.HookStep> = []
    const rewritten = (args: Readonly<Record<string, unknown>>): Effect.Effect<Lifecycle.Outcome, EmitError> =>
      Effect.suspend(() => {
        // the model's arguments were checked against the rules, but the call goes on with others
        trace.rules.length = 0
        let inner: Lifecycle.Outcome | undefined
        const capture = Lifecycle.Gate.of({
          around: (_, operation) =>
            Effect.tap(operation, (outcome) => {
              inner = outcome
            })
        })
        return Route.run(traced, { ...call, arguments: JSON.stringify(args) }, route).pipe(
          Effect.provideService(Lifecycle.Gate, capture),
          Effect.provideService(LifecycleSink, silent),
          // rejected for its new arguments: the call fails with that message
          Effect.map((output) => inner ?? Lifecycle.failure(output.output))
        )
      })
    const gate = Lifecycle.Gate.of({
      around: (_, operation) =>
        Effect.gen(function* () {
          const verdict = yield* beforeVerdict(hooks, hookCall, before)
          if (verdict._tag === "refuse") return Lifecycle.failure(verdict.message)
          const outcome = verdict._tag === "rewrite" ? yield* rewritten(verdict.arguments) : yield* operation
          if (hooks.after === undefined) return outcome
          const effective = verdict._tag === "rewrite" ? { ...hookCall, arguments: verdict.arguments } : hookCall
          return applyAfter(outcome, yield* afterVerdict(hooks, effective, hookOutput(outcome), after))
        })
    })
    return Route.run(traced, call, route).pipe(
      Effect.provideService(Lifecycle.Gate, gate),
      Effect.tap((output) => recordAudit(audit, auditRecord(hookCall, trace, before, after, output.success)))
    )
  })

/** A widget's call of one MCP tool (docs/widgets.md), as the host policy sees it. */
export interface WidgetCall {
  /** The item id of the call. */
  readonly itemId: string
  /** The model's call whose widget makes this call. */
  readonly originCallId: string
  readonly server: string
  /** The MCP tool's name. */
  readonly tool: string
  /** The name the model knows the tool by (what hooks match on). */
  readonly name: string
  readonly arguments: Readonly<Record<string, unknown>> | undefined
}

/** How a widget's call ended: the result the widget gets, or why it gets none. */
export type WidgetOutcome<E> =
  | { readonly _tag: "result"; readonly result: Mcp.CallToolResult }
  | { readonly _tag: "failed"; readonly error: E }
  | { readonly _tag: "refused"; readonly message: string }

/**
 * Runs a widget's tool call under the hooks, with its items (started before the `before` hook,
 * `initiator: "widget"`) and its audit record. The `after` hook judges the JSON text of the result;
 * a redaction is applied to every string of the result (its `structuredContent` stays), a replacement
 * becomes the result's only text.
 */
export const runWidgetCall = <E extends { readonly message: string }>(
  call: WidgetCall,
  hooks: ToolHooks.Service,
  audit: Route.Audit,
  request: (args: Readonly<Record<string, unknown>> | undefined) => Effect.Effect<Mcp.CallToolResult, E>
): Effect.Effect<WidgetOutcome<E>, EmitError, LifecycleSink> =>
  Effect.suspend(() => {
    const trace = Rules.makeTrace()
    const hookCall: ToolHooks.HookCall = {
      callId: call.itemId,
      name: call.name,
      server: call.server,
      caller: "widget",
      originCallId: call.originCallId,
      arguments: call.arguments ?? null
    }
    const before: Array<ToolHook.HookStep> = []
    const after: Array<ToolHook.HookStep> = []
    // the server's error, the outcome the item shows, and whether the after hook changed it
    let failed: E | undefined
    let final: Lifecycle.Outcome | undefined
    let changed = false
    const operation = (args: Readonly<Record<string, unknown>> | undefined): Effect.Effect<Lifecycle.Outcome> =>
      Effect.suspend(() => {
        trace.serverRequest = true
        return Effect.match(request(args), {
          onSuccess: (result): Lifecycle.Outcome => ({
            status: result.isError === true ? "failed" : "completed",
            result,
            error: null,
            output: JSON.stringify(result),
            success: result.isError !== true
          }),
          onFailure: (error) => {
            failed = error
            return Lifecycle.failure(error.message)
          }
        })
      })
    const gate = Lifecycle.Gate.of({
      around: (_, requested) =>
        Effect.gen(function* () {
          const verdict = yield* beforeVerdict(hooks, hookCall, before)
          if (verdict._tag === "refuse") {
            final = Lifecycle.failure(verdict.message)
            return final
          }
          const outcome = verdict._tag === "rewrite" ? yield* operation(verdict.arguments) : yield* requested
          const effective = verdict._tag === "rewrite" ? { ...hookCall, arguments: verdict.arguments } : hookCall
          final =
            hooks.after === undefined
              ? outcome
              : applyAfter(outcome, yield* afterVerdict(hooks, effective, hookOutput(outcome), after))
          changed = final.output !== outcome.output || final.success !== outcome.success
          return final
        })
    })
    const invocation: Lifecycle.Invocation = {
      callId: call.itemId,
      server: call.server,
      tool: call.tool,
      arguments: call.arguments ?? null,
      widget: { originCallId: call.originCallId }
    }
    return Lifecycle.run(invocation, operation(call.arguments)).pipe(
      Effect.provideService(Lifecycle.Gate, gate),
      Effect.tap((output) => recordAudit(audit, auditRecord(hookCall, trace, before, after, output.success))),
      Effect.map((output): WidgetOutcome<E> => {
        // the server's own error goes back as it was, unless the after hook changed the outcome
        if (failed !== undefined && !changed) return { _tag: "failed", error: failed }
        const result = final?.result ?? null
        return result === null
          ? { _tag: "refused", message: final?.error?.message ?? output.output }
          : { _tag: "result", result }
      })
    )
  })

const stepOf = (decision: ToolHook.BeforeToolDecision | ToolHook.AfterToolDecision): ToolHook.HookStep => {
  switch (decision.decision) {
    case "deny":
      return { hook: "hook", decision: "deny", reason: decision.reason ?? defaultDenyReason }
    case "rewrite":
      return { hook: "hook", decision: "rewrite", arguments: decision.arguments }
    case "redact":
      return { hook: "hook", decision: "redact", redactions: decision.redact.length }
    default:
      return { hook: "hook", decision: decision.decision }
  }
}
