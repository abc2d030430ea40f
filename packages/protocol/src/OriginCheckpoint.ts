/**
 * The origin checkpoint as stored in compaction records (resource-origins.md section 5): snake_case,
 * `turn_id`, `link_id` and `current_turn_id` omitted when absent, `ambiguous_account` written only
 * when true. This is the wire form; the state machine lives in `@mcp-resources/resource-origins`.
 */
import { Schema } from "effect"
import { opt } from "./internal/schema.js"

/** One remembered origin in a checkpoint. */
export const CheckpointOrigin = Schema.Struct({
  call_id: Schema.String,
  turn_id: opt(Schema.String),
  tool: Schema.String,
  connector_id: Schema.String,
  link_id: opt(Schema.String),
  uri: Schema.String,
  ambiguous_account: opt(Schema.Boolean)
}).annotations({ identifier: "CheckpointOrigin" })
/** One remembered origin in a checkpoint. */
export type CheckpointOrigin = typeof CheckpointOrigin.Type

/** The checkpoint object, keys in this order. */
export const OriginCheckpoint = Schema.Struct({
  origins: Schema.Array(CheckpointOrigin),
  turns: Schema.Array(Schema.String),
  current_turn_id: opt(Schema.String)
}).annotations({ identifier: "OriginCheckpoint" })
/** The checkpoint object, keys in this order. */
export type OriginCheckpoint = typeof OriginCheckpoint.Type

/** The body of a `compacted` record: `{"mcp_resource_origins": <checkpoint>}`, the key omitted when there is none. */
export const CompactionState = Schema.Struct({
  mcp_resource_origins: opt(Schema.Unknown)
}).annotations({ identifier: "CompactionState" })
/** The body of a `compacted` record. The checkpoint is kept undecoded: restore decodes it and discards a bad one. */
export type CompactionState = typeof CompactionState.Type
