/** Event builders for the origin-store cases (acceptance-examples.md section 9 defaults). */
import type { ThreadEvent, ToolCallItem } from "@mcp-resources/protocol"

/** The apps server of every case. */
export const apps = "codex_apps"
/** The state-machine options of every case. */
export const options = { appsServerName: apps }

/** `turnStarted`. */
export const turn = (turnId: string): ThreadEvent.ThreadEvent => ({ _tag: "turnStarted", turnId })

/** `threadRolledBack`. */
export const rollback = (numTurns: number): ThreadEvent.ThreadEvent => ({ _tag: "threadRolledBack", numTurns })

/** `compacted`, with or without a checkpoint. */
export const compacted = (checkpoint?: unknown): ThreadEvent.ThreadEvent => ({
  _tag: "compacted",
  state: checkpoint === undefined ? {} : { mcp_resource_origins: checkpoint }
})

/** Overrides of an item; `undefined` removes the default. */
export interface ItemOverrides {
  readonly turnId?: string
  readonly server?: string
  readonly tool?: string
  readonly arguments?: unknown
  readonly status?: ToolCallItem.ItemStatus
  readonly connectorId?: string | undefined
  readonly linkId?: string | undefined
  readonly uri?: string | undefined
}

const pick = <K extends keyof ItemOverrides>(o: ItemOverrides, key: K, fallback: ItemOverrides[K]) =>
  Object.hasOwn(o, key) ? o[key] : fallback

/** An `itemCompleted` event: apps server, connector `k`, no link, uri `ui://w`, tool `t`, turn `t1`. */
export const item = (callId: string, o: ItemOverrides = {}): ThreadEvent.ThreadEvent => {
  const connectorId = pick(o, "connectorId", "k")
  const linkId = pick(o, "linkId", undefined)
  const uri = pick(o, "uri", "ui://w")
  const status = o.status ?? "completed"
  return {
    _tag: "itemCompleted",
    turnId: o.turnId ?? "t1",
    item: {
      type: "mcpToolCall",
      id: callId,
      server: o.server ?? apps,
      tool: o.tool ?? "t",
      arguments: pick(o, "arguments", null),
      status,
      result: status === "completed" ? { content: [] } : null,
      error: status === "failed" ? { message: "failed" } : null,
      durationMs: 1,
      ...(connectorId !== undefined ? { connectorId } : {}),
      ...(linkId !== undefined ? { linkId } : {}),
      ...(uri !== undefined ? { mcpAppResourceUri: uri } : {})
    }
  }
}

/** A `toolCallEnded` event for the apps server, connector `k`, uri `ui://w`, tool `t`. */
export const ended = (
  callId: string,
  o: { readonly ok?: boolean; readonly isError?: boolean; readonly linkId?: string } = {}
): ThreadEvent.ThreadEvent => ({
  _tag: "toolCallEnded",
  callId,
  server: apps,
  tool: "t",
  arguments: null,
  connectorId: "k",
  ...(o.linkId !== undefined ? { linkId: o.linkId } : {}),
  mcpAppResourceUri: "ui://w",
  ok: o.ok ?? true,
  ...(o.isError !== undefined ? { isError: o.isError } : {})
})
