/**
 * `mcp-resources audit THREAD`: a thread's record of what its model tool calls listed, read, were
 * denied and had changed by hooks (docs/policy.md). Read from the thread store (every record, also
 * those before a compaction); nothing secret is printed: no config values, no hook commands.
 */
import type { ThreadEvent, ToolCallItem, ToolHook } from "@mcp-resources/protocol"
import { ThreadStore } from "@mcp-resources/thread-store"
import { Effect, Option } from "effect"

/** One model tool call of the thread with its decision path (absent: no policy was configured). */
export interface AuditEntry {
  readonly turnId: string
  readonly callId: string
  readonly tool: string
  readonly server: string
  readonly status: ToolCallItem.McpToolCallItem["status"]
  readonly audit: ToolHook.ToolAudit | null
}

/** The calls of a thread's records, in order, each with its audit record when there is one. */
export const entries = (events: ReadonlyArray<ThreadEvent.ThreadEvent>): ReadonlyArray<AuditEntry> => {
  const out: Array<{ -readonly [K in keyof AuditEntry]: AuditEntry[K] }> = []
  const byCall = new Map<string, (typeof out)[number]>()
  for (const event of events) {
    if (event._tag === "itemCompleted") {
      const entry = {
        turnId: event.turnId,
        callId: event.item.id,
        tool: event.item.tool,
        server: event.item.server,
        status: event.item.status,
        audit: byCall.get(event.item.id)?.audit ?? null
      }
      const existing = byCall.get(event.item.id)
      if (existing !== undefined) Object.assign(existing, { ...entry, audit: existing.audit })
      else {
        out.push(entry)
        byCall.set(event.item.id, entry)
      }
    } else if (event._tag === "toolAudited") {
      const existing = byCall.get(event.audit.callId)
      if (existing !== undefined) existing.audit = event.audit
      else {
        const entry = {
          turnId: event.turnId,
          callId: event.audit.callId,
          tool: event.audit.tool,
          server: event.audit.server ?? "",
          status: event.audit.success ? ("completed" as const) : ("failed" as const),
          audit: event.audit
        }
        out.push(entry)
        byCall.set(event.audit.callId, entry)
      }
    }
    // rolled-back turns stay in the audit: what the model saw is still a fact
  }
  return out
}

const hookLine = (step: ToolHook.HookStep): string => {
  switch (step.decision) {
    case "deny":
    case "failed":
      return `${step.hook}: ${step.decision}: ${step.reason ?? ""}`
    case "rewrite":
      return `${step.hook}: rewrite: arguments ${JSON.stringify(step.arguments)}`
    case "redact":
      return `${step.hook}: redact: ${step.redactions ?? 0} ${step.redactions === 1 ? "string" : "strings"}`
    default:
      return `${step.hook}: ${step.decision}`
  }
}

/** The readable form: one block per call. */
export const readable = (threadId: string, list: ReadonlyArray<AuditEntry>): string => {
  const lines: Array<string> = [`thread ${threadId}: ${list.length} ${list.length === 1 ? "call" : "calls"}`]
  for (const entry of list) {
    lines.push(
      `${entry.turnId}  ${entry.callId}  ${entry.tool}  ${entry.server === "" ? "-" : entry.server}  ${entry.status}`
    )
    const audit = entry.audit
    if (audit === null) {
      lines.push("  no policy configured: no rules, no hooks")
      continue
    }
    if (audit.caller === "widget") lines.push(`  caller: the widget of call ${audit.originCallId ?? "-"}`)
    for (const uri of audit.listed) lines.push(`  listed ${uri}`)
    if (audit.hidden > 0) lines.push(`  hidden by rules: ${audit.hidden}`)
    for (const rule of audit.rules) {
      lines.push(
        `  read ${rule.uri}: ${rule.allowed ? "allowed" : "denied"}${
          rule.pattern !== undefined
            ? ` (${rule.pattern})`
            : rule.unjudgeable !== undefined
              ? ` (the resource rules cannot judge a URI with ${rule.unjudgeable})`
              : rule.allowed
                ? ""
                : " (no allow pattern matched)"
        }`
      )
    }
    for (const step of audit.before) lines.push(`  ${hookLine(step)}`)
    for (const step of audit.after) lines.push(`  ${hookLine(step)}`)
    lines.push(`  server request: ${audit.serverRequest ? "yes" : "no"}`)
  }
  return lines.join("\n")
}

/** A thread the store does not have. */
export class AuditThreadNotFound extends Error {}

/** The audit entries of one thread of the store. */
export const load = (threadId: string) =>
  Effect.gen(function* () {
    const store = yield* ThreadStore.ThreadStore
    const info = yield* store.get(threadId)
    if (Option.isNone(info)) return yield* Effect.fail(new AuditThreadNotFound(`thread not found: ${threadId}`))
    const records = yield* store.since(threadId, 0)
    return entries(records.map((record) => record.event))
  })
