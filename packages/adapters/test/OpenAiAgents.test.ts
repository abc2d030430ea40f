/** The OpenAI Agents adapter through the SDK's `Runner` with a scripted `Model`. */
import { assert, describe, it } from "@effect/vitest"
import { Messages } from "@mcp-resources/protocol"
import { Extended } from "@mcp-resources/tool-handlers"
import { Agent, type AgentInputItem, Runner } from "@openai/agents"
import { call, ScriptedModel, say } from "./models.js"
import { resourceTools } from "../src/OpenAiAgents.js"
import { pngBase64, sources } from "./utils.js"

const runner = () => new Runner({ tracingDisabled: true })

/** The outputs the model got back, by call id. */
const results = (input: ReadonlyArray<AgentInputItem>): Record<string, unknown> => {
  const out: Record<string, unknown> = {}
  for (const item of input) if (item.type === "function_call_result") out[item.callId] = item.output
  return out
}

describe("OpenAI Agents adapter", () => {
  for (const { name, withSource } of sources)
    describe(`over ${name}`, () => {
      it.live(
        "a scripted model lists, reads, sends broken arguments, reads an image and calls an MCP tool",
        () =>
          withSource("extended", async ({ binding, events }) => {
            const model = new ScriptedModel([
              [
                call("c1", "list_mcp_resources", `{"server":"srv"}`),
                call("c2", "read_mcp_resource", `{"server":"srv","uri":"memo://note"}`),
                call("c3", "read_mcp_resource", `{"server":"srv","uri":7}`),
                call("c4", "read_mcp_resource", `{"server":"srv"}`),
                call("c5", "read_mcp_resource", `{"server":"srv","uri":"img://pixel.png"}`),
                call("c6", "mcp__srv__echo", `{"text":"hi"}`),
                call("c7", "read_mcp_resource", `{"server":"srv","uri":`),
                call("c8", "search_mcp_resources", `{"query":"note"}`)
              ],
              [say("done")]
            ])
            const agent = new Agent({ name: "host", model, tools: await resourceTools(binding) })
            const result = await runner().run(agent, "go")
            assert.strictEqual(result.finalOutput, "done")
            assert.deepStrictEqual(model.offered[0], [
              "list_mcp_resources",
              "list_mcp_resource_templates",
              "read_mcp_resource",
              "search_mcp_resources",
              "mcp__srv__echo",
              "mcp__srv__slow"
            ])
            const outputs = results(model.inputs[1]!)
            const text = (id: string) => {
              const value = outputs[id] as { type: string; text: string }
              assert.strictEqual(value.type, "text")
              return value.text
            }
            assert.include(text("c1"), "memo://note")
            assert.include(text("c2"), "remember the milk")
            // the raw argument text reached our handling: the model reads our exact messages
            assert.strictEqual(text("c3"), Messages.args.mustBeString("uri", "number"))
            assert.strictEqual(text("c4"), Extended.messages.uriOrTemplate(false))
            const image = outputs.c5 as Array<{ type: string; image?: unknown }>
            assert.strictEqual(image[0]?.type, "input_text")
            assert.deepStrictEqual(
              image.filter((part) => part.type === "input_image").map((part) => part.image),
              [`data:image/png;base64,${pngBase64}`]
            )
            assert.include(text("c6"), "echoed")
            // the extended profile's search runs through the adapter like the other resource tools
            assert.include(text("c8"), "memo://note")
            // text that is not JSON: the SDK's runner parses it before invoking any tool and answers itself
            assert.isTrue(text("c7").startsWith("An error occurred while parsing tool arguments."))
            const completed = events.filter((event) => event.phase === "completed").map((event) => event.item.id)
            assert.sameMembers(completed, ["c1", "c2", "c5", "c6", "c8"])
            assert.strictEqual(events.filter((event) => event.phase === "started").length, 5)
          }),
        60000
      )

      it.live(
        "a cancelled run cancels the MCP request in flight",
        () =>
          withSource("codex", async ({ binding, fixture }) => {
            const model = new ScriptedModel([[call("s1", "mcp__srv__slow", "{}")], [say("never")]])
            const agent = new Agent({ name: "host", model, tools: await resourceTools(binding) })
            const controller = new AbortController()
            const run = runner().run(agent, "go", { signal: controller.signal })
            await fixture.awaitRequest("tools/call", { timeoutMs: 20_000 })
            controller.abort()
            await run.then(
              () => undefined,
              () => undefined
            )
            await fixture.awaitCancelled("tools/call", { timeoutMs: 20_000 })
            assert.deepStrictEqual(
              fixture.cancelled.map((r) => r.method),
              ["tools/call"]
            )
            assert.strictEqual(model.inputs.length, 1)
          }),
        60000
      )
    })
})
