/** The `thread/*` methods (start, resume, list, delete, rollback, compact) and `thread/rolledBack`. */
import { Schema } from "effect"
import { TruncationPolicy } from "../../Truncation.js"
import { opt } from "../schema.js"
import { NonNegativeInt } from "./common.js"

/** The per-thread config override of `thread/start`. */
export const ThreadConfig = Schema.Struct({
  orchestratorMcpEnabled: opt(Schema.Boolean),
  truncation: opt(Schema.Struct({ mode: TruncationPolicy.fields.mode, limit: NonNegativeInt })),
  toolProfile: opt(
    Schema.Literal("codex", "extended").annotations({
      description: "The thread's tool profile; absent: `[tools] profile` of the config (default codex)."
    })
  ),
  resources: opt(
    Schema.Struct({
      deny: opt(Schema.Array(Schema.String.pipe(Schema.minLength(1))))
    }).annotations({
      description:
        "Resource rules the thread adds to the config's (docs/policy.md): `deny` patterns apply to every server. A thread can only add rules, never remove them."
    })
  )
})
/** The per-thread config override of `thread/start`. */
export type ThreadConfig = typeof ThreadConfig.Type

/** `{id, ephemeral}` */
export const Thread = Schema.Struct({ id: Schema.String, ephemeral: Schema.Boolean })
/** `{thread: {id, ephemeral}}` */
export const ThreadResult = Schema.Struct({ thread: Thread })
/** `{threadId}`: the params of methods that only name a thread. */
export const ThreadIdParams = Schema.Struct({ threadId: Schema.String })
/** `{}`: the params or result of methods without any. */
export const EmptyObject = Schema.Struct({})

/** `thread/start` params. */
export const ThreadStartParams = Schema.Struct({ ephemeral: opt(Schema.Boolean), config: opt(ThreadConfig) })
/** `thread/start` result. */
export const ThreadStartResult = ThreadResult
/** `thread/resume` params. */
export const ThreadResumeParams = ThreadIdParams
/** `thread/resume` result. */
export const ThreadResumeResult = ThreadResult
/** `thread/list` params. */
export const ThreadListParams = EmptyObject
/** `thread/list` result: newest first; `createdAt` is ISO 8601 UTC. */
export const ThreadListResult = Schema.Struct({
  threads: Schema.Array(Schema.Struct({ id: Schema.String, ephemeral: Schema.Boolean, createdAt: Schema.String }))
})
/** `thread/delete` params. */
export const ThreadDeleteParams = ThreadIdParams
/** `thread/delete` result. */
export const ThreadDeleteResult = EmptyObject

/** `thread/rollback` params. */
export const ThreadRollbackParams = Schema.Struct({ threadId: Schema.String, numTurns: NonNegativeInt })
/** `thread/rollback` result. */
export const ThreadRollbackResult = Schema.Struct({ thread: Schema.Struct({ id: Schema.String }) })
/** `thread/compact` params. */
export const ThreadCompactParams = ThreadIdParams
/** `thread/compact` result. */
export const ThreadCompactResult = EmptyObject

/** `thread/rolledBack` notification params. */
export const ThreadRolledBackNotification = Schema.Struct({ threadId: Schema.String, numTurns: NonNegativeInt })
