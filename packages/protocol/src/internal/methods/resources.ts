/** The `mcp/resource/*` methods (read, subscribe, unsubscribe, complete) and `mcp/resource/changed`. */
import { Schema } from "effect"
import { ResourceContents } from "../../Mcp.js"
import { record } from "../../Records.js"
import { opt } from "../schema.js"
import { EmptyObject } from "./threads.js"
import { changeBodies, ResourceChange } from "./turns.js"

/** `mcp/resource/read` (alias `mcpServer/resource/read`) params. */
export const McpResourceReadParams = Schema.Struct({
  threadId: opt(Schema.NullOr(Schema.String)),
  originCallId: opt(Schema.NullOr(Schema.String)),
  server: Schema.String,
  uri: Schema.String,
  connectorId: opt(Schema.NullOr(Schema.String))
})
/** `mcp/resource/read` result. */
export const McpResourceReadResult = Schema.Struct({
  contents: Schema.Array(ResourceContents),
  originCallId: Schema.NullOr(Schema.String)
})

/** `mcp/resource/subscribe` and `mcp/resource/unsubscribe` params: one resource of a server, for a thread. */
export const McpResourceSubscribeParams = Schema.Struct({
  threadId: Schema.String.annotations({ description: "A thread on the extended tool profile." }),
  server: Schema.String,
  uri: Schema.String
})
/** `mcp/resource/subscribe` result: whether the server took the subscription. */
export const McpResourceSubscribeResult = Schema.Struct({
  subscribed: Schema.Boolean.annotations({
    description:
      "True: the thread is subscribed and its changes come as mcp/resource/changed and in turn/start; false: the server does not support resource subscriptions (nothing is subscribed)."
  })
})
/** `mcp/resource/unsubscribe` params. */
export const McpResourceUnsubscribeParams = McpResourceSubscribeParams
/** `mcp/resource/unsubscribe` result. */
export const McpResourceUnsubscribeResult = EmptyObject
/** `mcp/resource/changed` notification params: a resource a thread is subscribed to changed. */
export const McpResourceChangedNotification = Schema.Struct({
  threadId: Schema.String,
  server: Schema.String,
  uri: Schema.String,
  readInCallId: ResourceChange.fields.readInCallId,
  changedAt: ResourceChange.fields.changedAt,
  ...changeBodies
})

/** `mcp/resource/complete` params: one variable of a listed resource template (extended profile's completion, for UIs). */
export const McpResourceCompleteParams = Schema.Struct({
  threadId: opt(
    Schema.NullOr(Schema.String).annotations({
      description: "Complete on this thread's binding; absent or null: the latest connection set."
    })
  ),
  server: Schema.String,
  uriTemplate: Schema.String.annotations({ description: "A template exactly as the server lists it." }),
  argument: Schema.String.annotations({ description: "The template variable to complete." }),
  value: Schema.String.annotations({ description: "What is typed so far (may be empty)." }),
  context: opt(
    record(Schema.String).annotations({
      description: "Values of the template's other variables, sent as `context.arguments`."
    })
  )
})
/** `mcp/resource/complete` result: the server's candidates. */
export const McpResourceCompleteResult = Schema.Struct({
  values: Schema.Array(Schema.String),
  total: opt(Schema.Number.annotations({ description: "Candidates in all, when the server says." })),
  hasMore: Schema.Boolean
})
