/**
 * The output forms of the model APIs, checked at run time and against the official `openai` and
 * `@anthropic-ai/sdk` TypeScript types (`tsc -p tsconfig.test.json` fails when a form does not fit).
 */
import type Anthropic from "@anthropic-ai/sdk"
import { assert, describe, it } from "@effect/vitest"
import type OpenAI from "openai"
import { OutputForms, ToolHandlers, ToolSpecs } from "../src/index.js"

const png = "iVBORw0KGgo="
const withImage: ToolHandlers.ToolOutput = {
  output: "[contents[0] f://p.png (image/png): image image/png, 8 bytes: sent as image part 1]",
  success: true,
  contentItems: [
    { type: "text", text: "[contents[0] f://p.png (image/png): image image/png, 8 bytes: sent as image part 1]" },
    { type: "image", mimeType: "image/png", data: png, uri: "f://p.png" }
  ]
}
const plain: ToolHandlers.ToolOutput = { output: '{"server":"srv"}', success: false }

describe("output forms", () => {
  it("Responses function_call_output: input_text and input_image parts; a string without images", () => {
    const form: OpenAI.Responses.ResponseInputItem.FunctionCallOutput = OutputForms.toResponses("call_1", withImage)
    assert.deepStrictEqual(form, {
      type: "function_call_output",
      call_id: "call_1",
      output: [
        { type: "input_text", text: withImage.output },
        { type: "input_image", image_url: `data:image/png;base64,${png}`, detail: "auto" }
      ]
    })
    const text: OpenAI.Responses.ResponseInputItem = OutputForms.toResponses("call_2", plain)
    assert.deepStrictEqual(text, { type: "function_call_output", call_id: "call_2", output: plain.output })
  })

  it("Anthropic tool_result: image blocks; is_error only on failure", () => {
    const form: Anthropic.ToolResultBlockParam = OutputForms.toAnthropic("toolu_1", withImage)
    assert.deepStrictEqual(form, {
      type: "tool_result",
      tool_use_id: "toolu_1",
      content: [
        { type: "text", text: withImage.output },
        { type: "image", source: { type: "base64", media_type: "image/png", data: png } }
      ]
    })
    const failed: Anthropic.ContentBlockParam = OutputForms.toAnthropic("toolu_2", plain)
    assert.deepStrictEqual(failed, {
      type: "tool_result",
      tool_use_id: "toolu_2",
      content: [{ type: "text", text: plain.output }],
      is_error: true
    })
  })

  it("Chat Completions tool message: text, each image a placeholder naming MIME type, size and URI", () => {
    const form: OpenAI.Chat.ChatCompletionToolMessageParam = OutputForms.toChatCompletions("call_1", withImage)
    assert.deepStrictEqual(form, {
      role: "tool",
      tool_call_id: "call_1",
      content: `${withImage.output}\n[image image/png, 8 bytes from f://p.png: not shown here, this API takes text only]`
    })
    assert.notInclude(form.content as string, png)
  })

  it("the exported tool specs fit the official tool types (Anthropic input_schema has type object)", () => {
    for (const [specs, count] of [
      [ToolSpecs.resourceToolSpecs, 3],
      [ToolSpecs.extendedResourceToolSpecs, 4]
    ] as const) {
      const responses: ReadonlyArray<OpenAI.Responses.FunctionTool> = ToolHandlers.exportTools(specs, "responses")
      const chat: ReadonlyArray<OpenAI.Chat.ChatCompletionFunctionTool> = ToolHandlers.exportTools(
        specs,
        "chatCompletions"
      )
      const anthropic: ReadonlyArray<Anthropic.Tool> = ToolHandlers.exportTools(specs, "anthropic")
      assert.strictEqual(responses.length, count)
      assert.strictEqual(chat.length, count)
      for (const tool of anthropic) assert.strictEqual(tool.input_schema.type, "object")
    }
  })
})
