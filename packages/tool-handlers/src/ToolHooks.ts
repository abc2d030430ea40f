/**
 * Host hooks around every model tool call and every call a widget makes (docs/policy.md):
 * `before(call)` may allow, deny with a reason (the model's output; the started and a failed completed
 * item are still recorded) or rewrite the arguments (the item keeps the model's); `after(call, output)`
 * may pass, redact or replace the output. A failing `before` refuses the call; a failing `after`
 * withholds the output. The default is no hooks: without this service (or with {@link layerNone})
 * `callTool` runs exactly as without policy.
 *
 * {@link ToolAuditLog} receives every call's decision path when the policy path runs (rules or hooks).
 */
import { ToolHook } from "@mcp-resources/protocol"
import { Context, Data, type Effect, Layer } from "effect"

/** The call a hook sees. */
export interface HookCall {
  readonly callId: string
  /** The function name the model called (for a widget's call: the name the model knows the tool by). */
  readonly name: string
  /** The server the call is about, when known. */
  readonly server?: string
  /** Who made the call: the model, or a widget (through its host, `mcp/widget/callTool`). */
  readonly caller: "model" | "widget"
  /** A widget's call: the model's call whose widget made it. */
  readonly originCallId?: string
  /** Parsed arguments (object or `null`), or the raw text when it is not JSON. */
  readonly arguments: unknown
}

/** What the model would get: `after` hooks see and change it. */
export interface HookOutput {
  readonly output: string
  readonly success: boolean
}

/** A hook that could not decide (crashed, timed out, printed no valid decision). */
export class HookError extends Data.TaggedError("HookError")<{ readonly message: string }> {}

/** A decision, with the steps of the hooks that made it (for the audit; a single code hook may omit it). */
export type Decided<D> = D & { readonly steps?: ReadonlyArray<ToolHook.HookStep> }

/** The hooks. Either may be absent. */
export interface Service {
  readonly before?: (call: HookCall) => Effect.Effect<Decided<ToolHook.BeforeToolDecision>, HookError>
  readonly after?: (call: HookCall, output: HookOutput) => Effect.Effect<Decided<ToolHook.AfterToolDecision>, HookError>
}

/** The hooks around every model tool call. */
export class ToolHooks extends Context.Tag("@mcp-resources/tool-handlers/ToolHooks")<ToolHooks, Service>() {}

/** No hooks. */
export const none: Service = {}

/** The default layer: no hooks. */
export const layerNone: Layer.Layer<ToolHooks> = Layer.succeed(ToolHooks, none)

/** Hooks given in code. */
export const layer = (service: Service): Layer.Layer<ToolHooks> => Layer.succeed(ToolHooks, service)

/**
 * Receives the decision path of every call run on the policy path (rules or hooks configured), as a
 * `ToolHook.ToolAudit` record (the protocol's schema).
 */
export class ToolAuditLog extends Context.Tag("@mcp-resources/tool-handlers/ToolAuditLog")<
  ToolAuditLog,
  { readonly record: (audit: ToolHook.ToolAudit) => Effect.Effect<void> }
>() {}

/**
 * Every string of a JSON value (a tool result with its `structuredContent`, an item) with the strings
 * redacted, keys as they are; the value itself when nothing changed.
 */
export const redactValue = <A>(value: A, strings: ReadonlyArray<string>): A => {
  const walk = (u: unknown): unknown => {
    if (typeof u === "string") return redact(u, strings).text
    if (Array.isArray(u)) {
      let changed = false
      const out = u.map((item) => {
        const next = walk(item)
        if (next !== item) changed = true
        return next
      })
      return changed ? out : u
    }
    if (typeof u === "object" && u !== null) {
      let changed = false
      const entries = Object.entries(u).map(([key, item]) => {
        const next = walk(item)
        if (next !== item) changed = true
        return [key, next] as const
      })
      // fromEntries defines own data properties: a `__proto__` key stays a key
      return changed ? Object.fromEntries(entries) : u
    }
    return u
  }
  return walk(value) as A
}

/** Replaces every occurrence of each string by `[redacted]`; also says how many were replaced. */
export const redact = (
  text: string,
  strings: ReadonlyArray<string>
): { readonly text: string; readonly count: number } => {
  let count = 0
  let out = text
  for (const secret of strings) {
    if (secret === "") continue
    const parts = out.split(secret)
    count += parts.length - 1
    out = parts.join(ToolHook.redactedText)
  }
  return { text: out, count }
}
