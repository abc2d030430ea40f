/** `turn/start`, the resource changes it reports, and the turn and item notifications. */
import { Schema } from "effect"
import { McpToolCallItem } from "../../ToolCallItem.js"
import { opt } from "../schema.js"

/** `turn/start` params. */
export const TurnStartParams = Schema.Struct({ threadId: Schema.String, turnId: opt(Schema.String) })
const sizeOrNull = (description: string) => opt(Schema.NullOr(Schema.Number).annotations({ description }))
const digestOrNull = (description: string) => opt(Schema.NullOr(Schema.String).annotations({ description }))

/**
 * What a change knows of the bodies before and after (extended profile; a single-content body only):
 * null where unknown, for example the new body of a pushed change, which nobody fetched.
 */
export const changeBodies = {
  sizeBefore: sizeOrNull("Bytes of the body the thread last read (its one content item); null when unknown."),
  sizeAfter: sizeOrNull(
    "Bytes of the new body when it was fetched (a polled change); null for a pushed change, whose new body nobody fetched."
  ),
  digestBefore: digestOrNull("SHA-256 (hex) of the body the thread last read; null when unknown."),
  digestAfter: digestOrNull("SHA-256 (hex) of the new body when it was fetched; null for a pushed change."),
  diffAvailable: opt(
    Schema.Boolean.annotations({
      description:
        'True when the body the thread last read is text and was kept: read_mcp_resource with since "last" can answer with a diff.'
    })
  )
}

/**
 * A resource of the thread that changed since the previous `turn/start` (several updates of one
 * resource are one change; `changedAt` is the time of the latest, ISO 8601 UTC).
 */
export const ResourceChange = Schema.Struct({
  server: Schema.String,
  uri: Schema.String,
  readInCallId: Schema.NullOr(Schema.String).annotations({
    description:
      "The call id of the read_mcp_resource call that last read it; null for a subscription made with mcp/resource/subscribe."
  }),
  changedAt: Schema.String.annotations({ description: "When the latest update arrived (ISO 8601 UTC)." }),
  ...changeBodies
}).annotations({ identifier: "ResourceChange" })
/** A resource of the thread that changed since the previous `turn/start`. */
export type ResourceChange = typeof ResourceChange.Type

/** `turn/start` result. */
export const TurnStartResult = Schema.Struct({
  turn: Schema.Struct({ id: Schema.String }),
  resourceChanges: opt(
    Schema.Array(ResourceChange).annotations({
      description:
        "Extended-profile threads only (absent on codex threads): the subscribed resources that changed since the previous turn/start, one entry per resource, oldest change first."
    })
  )
})

/** `turn/started` notification params. */
export const TurnStartedNotification = Schema.Struct({ threadId: Schema.String, turnId: Schema.String })
/** `item/started` and `item/completed` notification params. */
export const ItemNotification = Schema.Struct({ threadId: Schema.String, turnId: Schema.String, item: McpToolCallItem })
