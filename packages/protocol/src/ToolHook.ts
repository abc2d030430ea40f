/**
 * Tool hooks and the audit record (docs/policy.md): what a command hook reads on standard input, the
 * decision it prints on standard output, and what the host records of every model tool call's
 * decision path. The decisions' JSON Schemas are published with the app-server's.
 */
import { Schema } from "effect"
import { opt } from "./internal/schema.js"
import { record } from "./Records.js"

/** What a hook command reads on standard input (one JSON object, then end of input). */
export const HookInput = Schema.Struct({
  hook: Schema.Literal("before_tool", "after_tool"),
  callId: Schema.String,
  /** The function name the model called (`read_mcp_resource`, `mcp__server__tool`). */
  tool: Schema.String,
  /** The MCP server the call is about, when known (absent for a list of every server). */
  server: opt(Schema.String),
  /** Who made the call: the model (`tool/call`) or a widget (`mcp/widget/callTool`). */
  caller: Schema.Literal("model", "widget"),
  /** A widget's call: the model's call whose widget made it. */
  originCallId: opt(Schema.String),
  /** The parsed arguments (after earlier rewrites), `null` without any, or the raw text when not JSON. */
  arguments: Schema.Unknown,
  /** `after_tool` only: the model-facing output so far. */
  output: opt(Schema.Struct({ output: Schema.String, success: Schema.Boolean }))
}).annotations({ identifier: "HookInput", description: "What a hook command reads on standard input." })
/** What a hook command reads on standard input. */
export type HookInput = typeof HookInput.Type

/** `before_tool`: go on, refuse with a reason (the model's output), or go on with other arguments. */
export const BeforeToolDecision = Schema.Union(
  Schema.Struct({ decision: Schema.Literal("allow") }),
  Schema.Struct({ decision: Schema.Literal("deny"), reason: opt(Schema.String) }),
  Schema.Struct({
    decision: Schema.Literal("rewrite"),
    arguments: record(Schema.Unknown)
  })
).annotations({
  identifier: "BeforeToolDecision",
  description:
    "The decision a before_tool hook prints on standard output (empty output with exit status 0 is allow; exit status 2 is deny with standard error as the reason; a deny without a reason is given one naming the hook)."
})
/** A `before_tool` decision. */
export type BeforeToolDecision = typeof BeforeToolDecision.Type

/** `after_tool`: keep the output, replace each listed string by `[redacted]`, or replace the output. */
export const AfterToolDecision = Schema.Union(
  Schema.Struct({ decision: Schema.Literal("pass") }),
  Schema.Struct({ decision: Schema.Literal("redact"), redact: Schema.Array(Schema.String.pipe(Schema.minLength(1))) }),
  Schema.Struct({ decision: Schema.Literal("replace"), output: Schema.String, success: opt(Schema.Boolean) })
).annotations({
  identifier: "AfterToolDecision",
  description: "The decision an after_tool hook prints on standard output (empty output with exit status 0 is pass)."
})
/** An `after_tool` decision. */
export type AfterToolDecision = typeof AfterToolDecision.Type

/** The text a redacted string is replaced by. */
export const redactedText = "[redacted]"

/** One hook's part in a call's decision path. */
export const HookStep = Schema.Struct({
  /** Which hook: `before_tool[0]`, `after_tool[1]`, or the name a code hook gives. */
  hook: Schema.String,
  decision: Schema.Literal("allow", "deny", "rewrite", "pass", "redact", "replace", "failed"),
  /** A deny's reason, or why the hook failed. */
  reason: opt(Schema.String),
  /** A rewrite: the arguments the call went on with. */
  arguments: opt(Schema.Unknown),
  /** A redact: how many strings were redacted (never the strings). */
  redactions: opt(Schema.Int.pipe(Schema.nonNegative()))
})
/** One hook's part in a call's decision path. */
export type HookStep = typeof HookStep.Type

/** One resource rule decision of a call. */
export const RuleStep = Schema.Struct({
  uri: Schema.String,
  allowed: Schema.Boolean,
  /** The pattern that decided (absent: no allow pattern matched, or the URI was not judged). */
  pattern: opt(Schema.String),
  /** A URI refused unjudged: what in it the rules cannot judge (an encoded `/`, an empty segment …). */
  unjudgeable: opt(Schema.String)
})

/** The decision path of one model tool call: rules, hooks, and whether a server request was made. */
export const ToolAudit = Schema.Struct({
  callId: Schema.String,
  /** The function name the model called (for a widget's call: the name the model knows the tool by). */
  tool: Schema.String,
  server: opt(Schema.String),
  /** `widget` for a call a widget made (its `callId` is the item's id); absent for the model's calls. */
  caller: opt(Schema.Literal("widget")),
  /** A widget's call: the model's call whose widget made it. */
  originCallId: opt(Schema.String),
  /** Read decisions of the resource rules. */
  rules: Schema.Array(RuleStep),
  /** Listed entries the rules hid. */
  hidden: Schema.Int.pipe(Schema.nonNegative()),
  /** URIs (or URI templates) the model was shown by a list. */
  listed: Schema.Array(Schema.String),
  before: Schema.Array(HookStep),
  after: Schema.Array(HookStep),
  /** True when a request went to an MCP server. */
  serverRequest: Schema.Boolean,
  /** The model-facing result. */
  success: Schema.Boolean
}).annotations({ identifier: "ToolAudit" })
/** The decision path of one model tool call. */
export type ToolAudit = typeof ToolAudit.Type
