/** The AI SDK adapter through `generateText` with the SDK's own `MockLanguageModelV3` and scripted tool calls. */
import { assert, describe, it } from "@effect/vitest"
import { Messages } from "@mcp-resources/protocol"
import { Extended } from "@mcp-resources/tool-handlers"
import { generateText, type LanguageModel, stepCountIs } from "ai"
import { type Prompt, scripted, text, toolCalls } from "./models.js"
import { resourceTools } from "../src/AiSdk.js"
import { pngBase64, sources } from "./utils.js"

/** The tool results the model got in its last prompt, by call id. */
const toolResults = (prompt: Prompt): Record<string, unknown> => {
  const out: Record<string, unknown> = {}
  for (const message of prompt) {
    if (message.role !== "tool") continue
    for (const part of message.content) if (part.type === "tool-result") out[part.toolCallId] = part.output
  }
  return out
}

describe("AI SDK adapter", () => {
  for (const { name, withSource } of sources)
    describe(`over ${name}`, () => {
      it.live(
        "a scripted model lists, reads, sends broken arguments, reads an image and calls an MCP tool",
        () =>
          withSource("extended", async ({ binding, events }) => {
            const { tools, repairToolCall } = await resourceTools(binding)
            const { model, prompts, offered } = scripted([
              toolCalls([
                ["c1", "list_mcp_resources", `{"server":"srv"}`],
                ["c2", "read_mcp_resource", `{"server":"srv","uri":"memo://note"}`],
                ["c3", "read_mcp_resource", `{"server":"srv","uri":`],
                ["c4", "read_mcp_resource", `{"server":"srv"}`],
                ["c5", "read_mcp_resource", `{"server":"srv","uri":"img://pixel.png"}`],
                ["c6", "mcp__srv__echo", `{"text":"hi"}`],
                ["c7", "search_mcp_resources", `{"query":"note"}`],
                ["c8", "read_mcp_resource", `{"server":"srv","uri":"memo://note","since":"last"}`]
              ]),
              text("done")
            ])
            const result = await generateText({
              model: model as LanguageModel,
              tools,
              experimental_repairToolCall: repairToolCall,
              stopWhen: stepCountIs(3),
              prompt: "go"
            })
            assert.strictEqual(result.text, "done")
            assert.deepStrictEqual(offered[0], [
              "list_mcp_resources",
              "list_mcp_resource_templates",
              "read_mcp_resource",
              "search_mcp_resources",
              "mcp__srv__echo",
              "mcp__srv__slow"
            ])
            const results = toolResults(prompts[1]!)
            const c1 = results.c1 as { type: string; value: string }
            assert.strictEqual(c1.type, "text")
            assert.include(c1.value, "memo://note")
            const c2 = results.c2 as { type: string; value: string }
            assert.include(c2.value, "remember the milk")
            // broken JSON and a missing field reach our handling: the model reads our exact messages
            assert.deepStrictEqual(results.c3, { type: "error-text", value: Messages.args.invalidJson })
            assert.deepStrictEqual(results.c4, { type: "error-text", value: Extended.messages.uriOrTemplate(false) })
            const c5 = results.c5 as { type: string; value: Array<{ type: string; data?: string; mediaType?: string }> }
            assert.strictEqual(c5.type, "content")
            assert.deepStrictEqual(
              c5.value.filter((part) => part.type === "image-data"),
              [{ type: "image-data", data: pngBase64, mediaType: "image/png" }]
            )
            assert.strictEqual(c5.value[0]?.type, "text")
            assert.include(JSON.stringify(results.c6), "echoed")
            // the extended profile's search runs through the adapter like the other resource tools
            assert.include(JSON.stringify(results.c7), "memo://note")
            // since reaches the tool: the app-server keeps bodies (the note did not change since c2); a
            // binding in this process gives no bodies, so the whole note comes with the reason
            const c8 = JSON.stringify(results.c8)
            if (name === "an app-server thread") assert.include(c8, "unchanged since call c2")
            else {
              assert.include(c8, "[no diff: this host keeps no earlier bodies; the whole resource follows]")
              assert.include(c8, "remember the milk")
            }
            // the failed calls are the SDK's tool errors in the step's content
            const errors = result.steps[0]!.content.filter((part) => part.type === "tool-error")
            assert.deepStrictEqual(
              errors.map((part) => part.toolCallId),
              ["c3", "c4"]
            )
            // lifecycle items: started and completed for each call past argument handling, with the SDK's call ids
            const completed = events.filter((event) => event.phase === "completed").map((event) => event.item.id)
            assert.sameMembers(completed, ["c1", "c2", "c5", "c6", "c7", "c8"])
            assert.strictEqual(events.filter((event) => event.phase === "started").length, 6)
          }),
        60000
      )

      it.live(
        "a cancelled run cancels the MCP request in flight",
        () =>
          withSource("codex", async ({ binding, fixture }) => {
            const { tools, repairToolCall } = await resourceTools(binding)
            const { model } = scripted([toolCalls([["s1", "mcp__srv__slow", "{}"]]), text("never")])
            const controller = new AbortController()
            const run = generateText({
              model: model as LanguageModel,
              tools,
              experimental_repairToolCall: repairToolCall,
              stopWhen: stepCountIs(2),
              abortSignal: controller.signal,
              prompt: "go"
            })
            await fixture.awaitRequest("tools/call", { timeoutMs: 20_000 })
            controller.abort()
            const outcome = await run.then(
              () => "resolved",
              (error: unknown) => (error instanceof Error ? error.name : String(error))
            )
            assert.strictEqual(outcome, "AbortError")
            await fixture.awaitCancelled("tools/call", { timeoutMs: 20_000 })
            assert.deepStrictEqual(
              fixture.cancelled.map((r) => r.method),
              ["tools/call"]
            )
          }),
        60000
      )
    })
})
