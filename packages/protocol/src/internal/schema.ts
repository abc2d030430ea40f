/** Schema helpers shared by the protocol modules. */
import { Schema } from "effect"

/** An optional field where absence and `undefined` differ (`exactOptionalPropertyTypes`): absent stays absent. */
export const opt = <S extends Schema.Schema.All>(schema: S) => Schema.optionalWith(schema, { exact: true })
