/** `turn/start`, the resource changes it reports, and the turn and item notifications. */
import { Schema } from "effect"
import { McpToolCallItem } from "../../ToolCallItem.js"
import { opt } from "../schema.js"

/** `turn/start` params. */
export const TurnStartParams = Schema.Struct({ threadId: Schema.String, turnId: opt(Schema.String) })
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
  changedAt: Schema.String.annotations({ description: "When the latest update arrived (ISO 8601 UTC)." })
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
