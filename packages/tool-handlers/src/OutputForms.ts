/**
 * A tool's output in the input forms of the model APIs: the Responses API `function_call_output`
 * (images as `input_image`), an Anthropic Messages `tool_result` (image blocks), and a Chat
 * Completions tool message, which carries text only: each image becomes a placeholder naming its MIME
 * type, size and URI. Outputs without `contentItems` (the codex profile) are their text.
 */
import type { AppServer } from "@mcp-resources/protocol"
import { base64Size } from "./Content.js"

/** What the forms are built from: a tool output (`ToolHandlers.ToolOutput`) or a `tool/call` result. */
export interface OutputLike {
  readonly output: string
  readonly success: boolean
  readonly contentItems?: ReadonlyArray<AppServer.ContentItem>
}

/** A Responses API input text part. */
export interface ResponsesInputText {
  readonly type: "input_text"
  readonly text: string
}

/** A Responses API input image part: the image as a `data:` URL. */
export interface ResponsesInputImage {
  readonly type: "input_image"
  readonly image_url: string
  readonly detail: "auto"
}

/** A Responses API `function_call_output` input item. */
export interface ResponsesFunctionCallOutput {
  readonly type: "function_call_output"
  readonly call_id: string
  readonly output: string | Array<ResponsesInputText | ResponsesInputImage>
}

/** The image types Anthropic accepts in an image block. */
export type AnthropicImageType = "image/jpeg" | "image/png" | "image/gif" | "image/webp"

/** An Anthropic text block. */
export interface AnthropicTextBlock {
  readonly type: "text"
  readonly text: string
}

/** An Anthropic base64 image block. */
export interface AnthropicImageBlock {
  readonly type: "image"
  readonly source: { readonly type: "base64"; readonly media_type: AnthropicImageType; readonly data: string }
}

/** An Anthropic Messages `tool_result` content block. */
export interface AnthropicToolResult {
  readonly type: "tool_result"
  readonly tool_use_id: string
  readonly content: Array<AnthropicTextBlock | AnthropicImageBlock>
  readonly is_error?: boolean
}

/** A Chat Completions tool message. */
export interface ChatCompletionsToolMessage {
  readonly role: "tool"
  readonly tool_call_id: string
  readonly content: string
}

const items = (out: OutputLike): ReadonlyArray<AppServer.ContentItem> =>
  out.contentItems ?? [{ type: "text", text: out.output }]

const hasImages = (out: OutputLike): boolean => items(out).some((item) => item.type === "image")

const anthropicTypes: ReadonlyArray<string> = ["image/jpeg", "image/png", "image/gif", "image/webp"]

/** The text a text-only API gets for an image. */
export const imagePlaceholder = (image: AppServer.ContentItem & { readonly type: "image" }): string =>
  `[image ${image.mimeType}, ${base64Size(image.data)} bytes${image.uri === undefined ? "" : ` from ${image.uri}`}: not shown here, this API takes text only]`

/** The Responses API `function_call_output` of a call: a string without images, else parts. */
export const toResponses = (callId: string, out: OutputLike): ResponsesFunctionCallOutput => ({
  type: "function_call_output",
  call_id: callId,
  output: hasImages(out)
    ? items(out).map((item) =>
        item.type === "text"
          ? { type: "input_text", text: item.text }
          : { type: "input_image", image_url: `data:${item.mimeType};base64,${item.data}`, detail: "auto" }
      )
    : out.output
})

/** The Anthropic `tool_result` block of a call; `is_error` only when the call failed. */
export const toAnthropic = (toolUseId: string, out: OutputLike): AnthropicToolResult => ({
  type: "tool_result",
  tool_use_id: toolUseId,
  content: items(out).map((item): AnthropicTextBlock | AnthropicImageBlock =>
    item.type === "text"
      ? { type: "text", text: item.text }
      : anthropicTypes.includes(item.mimeType)
        ? {
            type: "image",
            source: { type: "base64", media_type: item.mimeType as AnthropicImageType, data: item.data }
          }
        : { type: "text", text: imagePlaceholder(item) }
  ),
  ...(out.success ? {} : { is_error: true })
})

/** The Chat Completions tool message of a call: the text, each image as a placeholder line. */
export const toChatCompletions = (toolCallId: string, out: OutputLike): ChatCompletionsToolMessage => ({
  role: "tool",
  tool_call_id: toolCallId,
  content: hasImages(out)
    ? items(out)
        .map((item) => (item.type === "text" ? item.text : imagePlaceholder(item)))
        .join("\n")
    : out.output
})
