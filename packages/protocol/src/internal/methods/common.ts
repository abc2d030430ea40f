/** Schemas shared by several method groups and not part of the public surface. */
import { Schema } from "effect"

/** An integer >= 0 (named, so that a refused value says so). */
export const NonNegativeInt = Schema.Int.pipe(Schema.nonNegative()).annotations({ identifier: "integer >= 0" })
