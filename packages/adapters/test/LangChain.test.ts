/** The LangChain adapter: a fake tool-calling chat model of `@langchain/core/utils/testing` and a tool loop. */
import { assert, describe, it } from "@effect/vitest"
import { AIMessageChunk, type BaseMessage, HumanMessage, ToolMessage } from "@langchain/core/messages"
import type { ToolCall } from "@langchain/core/messages/tool"
import { FakeStreamingChatModel } from "@langchain/core/utils/testing"
import { Messages } from "@mcp-resources/protocol"
import { Extended } from "@mcp-resources/tool-handlers"
import { resourceTools, ToolCallFailed } from "../src/LangChain.js"
import { pngBase64, sources } from "./utils.js"

const toolCall = (id: string, name: string, args: Record<string, unknown>): ToolCall => ({
  type: "tool_call",
  id,
  name,
  args
})

/** A fake model whose one answer is the given tool calls, bound to the tools as LangChain binds them. */
const scripted = (calls: Array<ToolCall>) =>
  new FakeStreamingChatModel({ chunks: [new AIMessageChunk({ content: "", tool_calls: calls })] })

describe("LangChain adapter", () => {
  for (const { name, withSource } of sources)
    describe(`over ${name}`, () => {
      it.live(
        "a fake model lists, reads, sends broken arguments, reads an image and calls an MCP tool",
        () =>
          withSource("extended", async ({ binding, events }) => {
            const tools = await resourceTools(binding)
            const model = scripted([
              toolCall("c1", "list_mcp_resources", { server: "srv" }),
              toolCall("c2", "read_mcp_resource", { server: "srv", uri: "memo://note" }),
              toolCall("c3", "read_mcp_resource", { server: "srv", uri: 7 }),
              toolCall("c4", "read_mcp_resource", { server: "srv" }),
              toolCall("c5", "read_mcp_resource", { server: "srv", uri: "img://pixel.png" }),
              toolCall("c6", "mcp__srv__echo", { text: "hi" }),
              toolCall("c7", "search_mcp_resources", { query: "note" })
            ])
            const bound = model.bindTools(tools)
            // the model is shown our tool specs' JSON Schemas
            const shown = (
              bound as unknown as { config: { tools: Array<{ function: { name: string; parameters: unknown } }> } }
            ).config.tools
            assert.deepStrictEqual(
              shown.map((t) => t.function.name),
              [
                "list_mcp_resources",
                "list_mcp_resource_templates",
                "read_mcp_resource",
                "search_mcp_resources",
                "mcp__srv__echo",
                "mcp__srv__slow"
              ]
            )
            assert.deepStrictEqual(shown[2]!.function.parameters, tools[2]!.bridged.parameters)
            // the tool loop: run each call the model made and hand back the tool messages
            const messages: Array<BaseMessage> = [new HumanMessage("go")]
            const reply = await bound.invoke(messages)
            messages.push(reply)
            const byName = new Map(tools.map((tool) => [tool.name, tool]))
            const answers = new Map<string, ToolMessage>()
            for (const call of reply.tool_calls ?? []) {
              const answer: unknown = await byName.get(call.name)!.invoke(call)
              assert.instanceOf(answer, ToolMessage)
              answers.set(call.id!, answer as ToolMessage)
            }
            const ok = (id: string) => {
              const answer = answers.get(id)!
              assert.strictEqual(answer.status, "success")
              return answer.content
            }
            assert.include(ok("c1") as string, "memo://note")
            assert.include(ok("c2") as string, "remember the milk")
            // LangChain's own schema check is skipped: the model reads our exact messages, as errors
            assert.strictEqual(answers.get("c3")!.status, "error")
            assert.strictEqual(answers.get("c3")!.content, Messages.args.mustBeString("uri", "number"))
            assert.strictEqual(answers.get("c4")!.status, "error")
            assert.strictEqual(answers.get("c4")!.content, Extended.messages.uriOrTemplate(false))
            const image = ok("c5") as Array<{ type: string; image_url?: { url: string } }>
            assert.strictEqual(image[0]?.type, "text")
            assert.deepStrictEqual(
              image.filter((part) => part.type === "image_url").map((part) => part.image_url?.url),
              [`data:image/png;base64,${pngBase64}`]
            )
            assert.include(ok("c6") as string, "echoed")
            // the extended profile's search runs through the adapter like the other resource tools
            assert.include(ok("c7") as string, "memo://note")
            assert.deepStrictEqual(
              events.filter((event) => event.phase === "completed").map((event) => event.item.id),
              ["c1", "c2", "c5", "c6", "c7"]
            )
            // invoked with plain arguments (no tool call), a failure is thrown with the exact message
            const thrown = await byName
              .get("read_mcp_resource")!
              .invoke({ server: "srv" })
              .then(
                () => undefined,
                (error: unknown) => error
              )
            assert.instanceOf(thrown, ToolCallFailed)
            assert.strictEqual((thrown as Error).message, Extended.messages.uriOrTemplate(false))
            const plain: unknown = await byName.get("mcp__srv__echo")!.invoke({ text: "plain" })
            assert.isString(plain)
            assert.include(plain as string, "echoed")
          }),
        60000
      )

      it.live(
        "an aborted tool call cancels the MCP request in flight",
        () =>
          withSource("codex", async ({ binding, fixture }) => {
            const tools = await resourceTools(binding)
            const slow = tools.find((tool) => tool.name === "mcp__srv__slow")!
            const controller = new AbortController()
            const run = slow.invoke(toolCall("s1", "mcp__srv__slow", {}), { signal: controller.signal }).then(
              () => "resolved",
              (error: unknown) => (error instanceof Error ? error.name : String(error))
            )
            await fixture.awaitRequest("tools/call", { timeoutMs: 20_000 })
            controller.abort()
            assert.strictEqual(await run, "AbortError")
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
