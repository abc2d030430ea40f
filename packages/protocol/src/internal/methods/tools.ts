/** `tool/list` and `tool/call`. */
import { Schema } from "effect"
import { ToolSpec } from "../../ToolPayload.js"
import { opt } from "../schema.js"
import { ThreadIdParams } from "./threads.js"

/** `tool/list` params. */
export const ToolListParams = ThreadIdParams
/** `tool/list` result. */
export const ToolListResult = Schema.Struct({ tools: Schema.Array(ToolSpec) })

/** `tool/call` params; `arguments` is the model's raw JSON text. */
export const ToolCallParams = Schema.Struct({
  threadId: Schema.String,
  turnId: Schema.String,
  callId: Schema.String,
  name: Schema.String,
  arguments: Schema.String
})
/** A text part of a tool result as the model gets it. */
export const TextContentItem = Schema.Struct({ type: Schema.Literal("text"), text: Schema.String }).annotations({
  identifier: "TextContentItem"
})
/** An image part of a tool result: `data` is base64; `uri` names the resource it came from, when one did. */
export const ImageContentItem = Schema.Struct({
  type: Schema.Literal("image"),
  mimeType: Schema.String,
  data: Schema.String,
  uri: opt(Schema.String)
}).annotations({ identifier: "ImageContentItem" })
/** One part of a tool result in the extended profile. */
export const ContentItem = Schema.Union(TextContentItem, ImageContentItem).annotations({ identifier: "ContentItem" })
/** One part of a tool result in the extended profile. */
export type ContentItem = typeof ContentItem.Type

/** `tool/call` result; `contentItems` only in the extended tool profile (the output's parts, images as images). */
export const ToolCallResult = Schema.Struct({
  callId: Schema.String,
  output: Schema.String,
  success: Schema.Boolean,
  contentItems: opt(
    Schema.Array(ContentItem).annotations({
      description: "Extended profile only: the output text, then each image sent as an image (base64 data)."
    })
  )
})
