/**
 * The events a thread records, in recording order (resource-origins.md section 2, app-server-protocol.md
 * section 4). They are what `ThreadStore` persists and what the origin store replays.
 */
import { Schema } from "effect"
import { CompactionState } from "./OriginCheckpoint.js"
import { McpToolCallItem } from "./ToolCallItem.js"
import { ToolAudit } from "./ToolHook.js"
import { opt } from "./internal/schema.js"

/** `turn/start` recorded a turn. */
export const TurnStarted = Schema.TaggedStruct("turnStarted", { turnId: Schema.String })
/** A tool call's started item (kept for history; the origin store ignores it). */
export const ItemStarted = Schema.TaggedStruct("itemStarted", { turnId: Schema.String, item: McpToolCallItem })
/** A tool call's completed item. */
export const ItemCompleted = Schema.TaggedStruct("itemCompleted", { turnId: Schema.String, item: McpToolCallItem })
/** A host reported a call's end separately from its item (the app-server never records it). */
export const ToolCallEnded = Schema.TaggedStruct("toolCallEnded", {
  callId: Schema.String,
  server: Schema.String,
  tool: Schema.String,
  arguments: Schema.Unknown,
  connectorId: opt(Schema.String),
  linkId: opt(Schema.String),
  mcpAppResourceUri: opt(Schema.String),
  ok: Schema.Boolean,
  isError: opt(Schema.Boolean)
})
/** `thread/rollback` recorded a rollback. */
export const ThreadRolledBack = Schema.TaggedStruct("threadRolledBack", {
  numTurns: Schema.Int.pipe(Schema.nonNegative())
})
/** `thread/compact` recorded the origin checkpoint; the restore point on load. */
export const Compacted = Schema.TaggedStruct("compacted", { state: CompactionState })

/**
 * A model tool call's decision path (docs/policy.md): recorded after its completed item when resource
 * rules or hooks are configured. Stores written before it load unchanged; it sends no notification.
 */
export const ToolAudited = Schema.TaggedStruct("toolAudited", { turnId: Schema.String, audit: ToolAudit })

/**
 * The thread subscribed to a resource (extended profile): after `read_mcp_resource` read it in call
 * `readInCallId` of turn `turnId`, or by `mcp/resource/subscribe` (both null). A rollback of the turn
 * drops it; loading the thread subscribes again.
 */
export const ResourceSubscribed = Schema.TaggedStruct("resourceSubscribed", {
  turnId: Schema.NullOr(Schema.String),
  server: Schema.String,
  uri: Schema.String,
  readInCallId: Schema.NullOr(Schema.String)
})
/** The thread's subscription to a resource ended (`mcp/resource/unsubscribe`, or the oldest of too many). */
export const ResourceUnsubscribed = Schema.TaggedStruct("resourceUnsubscribed", {
  server: Schema.String,
  uri: Schema.String
})

/**
 * A pending change as stored (docs/templates-and-changes.md): the change object a thread's tracker
 * recorded (`ResourceChanges.Change`), kept as it is. The optional fields are those a change-aware
 * read adds; a record without them loads unchanged.
 */
export const StoredResourceChange = Schema.Struct({
  server: Schema.String,
  uri: Schema.String,
  readInCallId: Schema.NullOr(Schema.String),
  changedAt: Schema.String,
  // the bodies before and after (null: unknown); absent in records written before they existed
  sizeBefore: opt(Schema.NullOr(Schema.Number)),
  sizeAfter: opt(Schema.NullOr(Schema.Number)),
  digestBefore: opt(Schema.NullOr(Schema.String)),
  digestAfter: opt(Schema.NullOr(Schema.String)),
  diffAvailable: opt(Schema.Boolean)
})
/** A pending change as stored. */
export type StoredResourceChange = typeof StoredResourceChange.Type

/**
 * A subscribed resource of the thread changed and the change is pending (extended profile): recorded
 * once per resource between two hand-overs (the first update; later ones coalesce in memory), so that
 * a change not yet handed over survives a restart. Stores written before it load unchanged.
 */
export const ResourceChanged = Schema.TaggedStruct("resourceChanged", { change: StoredResourceChange })
/** `turn/start` handed the pending changes over (`resourceChanges`): every change recorded before it is done. */
export const ResourceChangesTaken = Schema.TaggedStruct("resourceChangesTaken", {})

/** Any thread event. */
export const ThreadEvent = Schema.Union(
  TurnStarted,
  ItemStarted,
  ItemCompleted,
  ToolCallEnded,
  ThreadRolledBack,
  Compacted,
  ToolAudited,
  ResourceSubscribed,
  ResourceUnsubscribed,
  ResourceChanged,
  ResourceChangesTaken
)
/** Any thread event. */
export type ThreadEvent = typeof ThreadEvent.Type
