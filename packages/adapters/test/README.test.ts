/**
 * The README's examples: the same code (checked verbatim) run against a real fixture server over HTTP,
 * in this process or through a spawned app-server.
 */
import { readFileSync } from "node:fs"
import { assert, describe, it } from "@effect/vitest"
import { startHttp } from "@mcp-resources/fixtures"
import { AIMessageChunk, type BaseMessage, ToolMessage } from "@langchain/core/messages"
import { FakeStreamingChatModel } from "@langchain/core/utils/testing"
import type { LanguageModel } from "ai"
import { Effect } from "effect"
import * as AiSdkExample from "./examples/aiSdk.js"
import * as AppServerExample from "./examples/appServer.js"
import * as LangChainExample from "./examples/langChain.js"
import * as OpenAiAgentsExample from "./examples/openAiAgents.js"
import { call, ScriptedModel, say, scripted, text, toolCalls } from "./models.js"
import { appServerOptions, spec } from "./utils.js"

const readme = readFileSync(new URL("../README.md", import.meta.url), "utf8")

/** The example's README regions, dedented and joined by a blank line: the README shows exactly this. */
const regions = (file: string): string => {
  const source = readFileSync(new URL(`./examples/${file}`, import.meta.url), "utf8")
  const parts = [...source.matchAll(/\/\/ README:begin\n([\s\S]*?)\n\s*\/\/ README:end/g)].map((match) => {
    const lines = match[1]!.split("\n")
    const indent = Math.min(...lines.filter((l) => l.trim() !== "").map((l) => l.length - l.trimStart().length))
    return lines.map((l) => l.slice(indent)).join("\n")
  })
  return parts.join("\n\n")
}

/** A fixture server over HTTP and the config text naming it `docs`; closed after `use`. */
const withConfig = <A>(use: (config: string) => Promise<A>) =>
  Effect.acquireUseRelease(
    Effect.promise(() => startHttp({ ...spec(), name: "docs" })),
    (fixture) => Effect.promise(() => use(`[mcp_servers.docs]\nurl = "${fixture.url}"\n`)),
    (fixture) => Effect.promise(() => fixture.close())
  )

const readNote = `{"server":"docs","uri":"memo://note"}`

describe("README examples", () => {
  for (const file of ["aiSdk.ts", "openAiAgents.ts", "langChain.ts", "appServer.ts"]) {
    it(`the README shows examples/${file} verbatim`, () => {
      assert.include(readme, `\`\`\`ts\n${regions(file)}\n\`\`\``)
    })
  }

  it.live(
    "AI SDK: the model reads the note and answers",
    () =>
      withConfig(async (config) => {
        const { model, prompts } = scripted([toolCalls([["r1", "read_mcp_resource", readNote]]), text("milk")])
        const log: Array<string> = []
        const answer = await AiSdkExample.example(config, model as LanguageModel, (line) => log.push(line))
        assert.strictEqual(answer, "milk")
        assert.include(JSON.stringify(prompts[1]), "remember the milk")
        assert.deepStrictEqual(log, ["started read_mcp_resource", "completed read_mcp_resource"])
      }),
    60000
  )

  it.live(
    "OpenAI Agents: the model reads the note and answers",
    () =>
      withConfig(async (config) => {
        const model = new ScriptedModel([[call("r1", "read_mcp_resource", readNote)], [say("milk")]])
        const log: Array<string> = []
        const answer = await OpenAiAgentsExample.example(config, model, (line) => log.push(line))
        assert.strictEqual(answer, "milk")
        assert.include(JSON.stringify(model.inputs[1]), "remember the milk")
        assert.deepStrictEqual(log, ["started read_mcp_resource", "completed read_mcp_resource"])
      }),
    60000
  )

  it.live(
    "LangChain: the model's call is answered with a tool message",
    () =>
      withConfig(async (config) => {
        const model = new FakeStreamingChatModel({
          chunks: [
            new AIMessageChunk({
              content: "",
              tool_calls: [{ type: "tool_call", id: "r1", name: "read_mcp_resource", args: JSON.parse(readNote) }]
            })
          ]
        })
        const log: Array<string> = []
        const messages: Array<BaseMessage> = await LangChainExample.example(config, model, (line) => log.push(line))
        const answer = messages.at(-1)
        assert.instanceOf(answer, ToolMessage)
        assert.include(String((answer as ToolMessage).content), "remember the milk")
        assert.deepStrictEqual(log, ["started read_mcp_resource", "completed read_mcp_resource"])
      }),
    60000
  )

  it.live(
    "over an app-server: the model reads the note through the app-server's thread and answers",
    () =>
      Effect.scoped(
        Effect.gen(function* () {
          const fixture = yield* Effect.acquireRelease(
            Effect.promise(() => startHttp({ ...spec(), name: "docs" })),
            (f) => Effect.promise(() => f.close())
          )
          const server = yield* appServerOptions({ docs: fixture.url })
          const { model, prompts } = scripted([toolCalls([["r1", "read_mcp_resource", readNote]]), text("milk")])
          const log: Array<string> = []
          const answer = yield* Effect.promise(() =>
            AppServerExample.example(server, model as LanguageModel, (line) => log.push(line))
          )
          assert.strictEqual(answer, "milk")
          assert.include(JSON.stringify(prompts[1]), "remember the milk")
          assert.deepStrictEqual(log, ["started read_mcp_resource", "completed read_mcp_resource"])
        })
      ),
    60000
  )
})
