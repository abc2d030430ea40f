/** The truncation policy of model-facing output (resource-tools.md section 10.1). */
import { Schema } from "effect"

/** `{mode: "bytes" | "tokens", limit}` with a non-negative integer limit. */
export const TruncationPolicy = Schema.Struct({
  mode: Schema.Literal("bytes", "tokens"),
  limit: Schema.Int.pipe(Schema.nonNegative())
}).annotations({ identifier: "TruncationPolicy" })
/** `{mode: "bytes" | "tokens", limit}` with a non-negative integer limit. */
export type TruncationPolicy = typeof TruncationPolicy.Type

/** The default policy: tokens, 10000. */
export const defaultPolicy: TruncationPolicy = { mode: "tokens", limit: 10000 }

/** The effective policy the tools apply: the same mode with limit `Math.ceil(limit * 1.2)`. */
export const effective = (policy: TruncationPolicy): TruncationPolicy => ({
  mode: policy.mode,
  limit: Math.ceil(policy.limit * 1.2)
})
