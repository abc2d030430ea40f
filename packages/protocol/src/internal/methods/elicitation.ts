/** `mcpServer/elicitation/request`, the one server-to-client request. */
import { Schema } from "effect"
import { record } from "../../Records.js"
import { opt } from "../schema.js"

/** A primitive value of an accepted elicitation's `content` (MCP: string, number, boolean or string[]). */
const ElicitationValue = Schema.Union(Schema.String, Schema.Number, Schema.Boolean, Schema.Array(Schema.String))

/**
 * `mcpServer/elicitation/request` params (server to client): an MCP server of the thread asks the
 * user; `params` is the server's `elicitation/create` params as sent (`mode` form or url).
 */
export const ElicitationRequestParams = Schema.Struct({
  threadId: Schema.String,
  server: Schema.String.annotations({ description: "The MCP server's name in the config." }),
  params: record(Schema.Unknown).annotations({
    description:
      "The server's elicitation/create params as sent: {mode?: form, message, requestedSchema} or {mode: url, message, url, elicitationId}."
  }),
  turnId: opt(Schema.String.annotations({ description: "The turn of the call the request came during, when known." })),
  callId: opt(Schema.String.annotations({ description: "The call the request came during, when known." }))
}).annotations({ identifier: "ElicitationRequestParams" })

/** `mcpServer/elicitation/request` result: the user's answer, sent back to the MCP server. */
export const ElicitationRequestResult = Schema.Union(
  Schema.Struct({
    action: Schema.Literal("accept"),
    content: opt(
      record(ElicitationValue).annotations({
        description: "The form's values (form mode); absent in URL mode."
      })
    )
  }),
  Schema.Struct({ action: Schema.Literal("decline") }),
  Schema.Struct({ action: Schema.Literal("cancel") })
).annotations({ identifier: "ElicitationRequestResult" })
