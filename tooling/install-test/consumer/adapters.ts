/**
 * The adapters' example flow as a user who installed the tarballs with npm runs it, with each
 * framework's own test model: the model reads a note, sends arguments our handling refuses (and reads
 * our exact message), and reads an image (extended profile). The install test type-checks it with
 * strict `tsc` and runs it twice: with the frameworks at their pins and at the lowest version of each
 * peer range the adapters declare. It prints one JSON line.
 */
import { AIMessageChunk, HumanMessage, ToolMessage } from "@langchain/core/messages"
import { FakeStreamingChatModel } from "@langchain/core/utils/testing"
import { Bridge } from "@mcp-resources/adapters"
import * as AiSdk from "@mcp-resources/adapters/ai-sdk"
import * as LangChain from "@mcp-resources/adapters/langchain"
import * as OpenAiAgents from "@mcp-resources/adapters/openai-agents"
import { connectInMemory, exampleSpec } from "@mcp-resources/fixtures"
import { Config, Messages } from "@mcp-resources/protocol"
import { ServerEntry } from "@mcp-resources/resource-client"
import {
  Agent,
  type AgentInputItem,
  type AgentOutputItem,
  type Model,
  type ModelRequest,
  type ModelResponse,
  Runner,
  Usage
} from "@openai/agents"
import { generateText, type LanguageModel, stepCountIs } from "ai"
import { MockLanguageModelV3 } from "ai/test"

const note = `{"server":"example","uri":"example://docs/notes.txt"}`
const image = `{"server":"example","uri":"example://images/pixel.png"}`
const wrongType = `{"server":"example","uri":7}`
const mustBeString = Messages.args.mustBeString("uri", "number")
const noteText = "Remember to read the docs."

const fixture = connectInMemory(exampleSpec())
const thread = await Bridge.connect(Config.empty, {
  profile: "extended",
  servers: [ServerEntry.memory("example", fixture.connect)]
})
const lifecycle: Array<string> = []
const binding: Bridge.Binding = { context: thread.context, onLifecycle: (e) => lifecycle.push(e.phase) }

type Generate = Awaited<ReturnType<MockLanguageModelV3["doGenerate"]>>
const finish = (unified: "tool-calls" | "stop"): Pick<Generate, "finishReason" | "usage" | "warnings"> => ({
  finishReason: { unified, raw: undefined },
  usage: {
    inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
    outputTokens: { total: 1, text: 1, reasoning: undefined }
  },
  warnings: []
})

const aiSdk = async () => {
  const script: Array<Generate> = [
    {
      content: [
        { type: "tool-call", toolCallId: "a1", toolName: "read_mcp_resource", input: note },
        { type: "tool-call", toolCallId: "a2", toolName: "read_mcp_resource", input: `{"server":` },
        { type: "tool-call", toolCallId: "a3", toolName: "read_mcp_resource", input: image }
      ],
      ...finish("tool-calls")
    },
    { content: [{ type: "text", text: "done" }], ...finish("stop") }
  ]
  const prompts: Array<string> = []
  const model = new MockLanguageModelV3({
    doGenerate: async (options) => {
      prompts.push(JSON.stringify(options.prompt))
      return script.shift()!
    }
  })
  const { tools, repairToolCall } = await AiSdk.resourceTools(binding)
  const { text } = await generateText({
    model: model as LanguageModel,
    tools,
    experimental_repairToolCall: repairToolCall,
    stopWhen: stepCountIs(3),
    prompt: "go"
  })
  const seen = prompts[1] ?? ""
  return {
    answer: text,
    note: seen.includes(noteText),
    message: seen.includes(JSON.stringify(Messages.args.invalidJson).slice(1, -1)),
    image: seen.includes(`"type":"image-data"`)
  }
}

class ScriptedModel implements Model {
  readonly inputs: Array<ReadonlyArray<AgentInputItem>> = []
  constructor(private readonly script: Array<Array<AgentOutputItem>>) {}
  async getResponse(request: ModelRequest): Promise<ModelResponse> {
    this.inputs.push(typeof request.input === "string" ? [] : [...request.input])
    return { usage: new Usage(), output: this.script.shift() ?? [], responseId: `r${this.inputs.length}` }
  }
  // biome-ignore lint/correctness/useYield: the scripted model has no streamed path
  async *getStreamedResponse(): AsyncIterable<never> {
    throw new Error("not streamed")
  }
}

const openAiAgents = async () => {
  const call = (callId: string, args: string): AgentOutputItem => ({
    type: "function_call",
    callId,
    name: "read_mcp_resource",
    arguments: args,
    status: "completed"
  })
  const model = new ScriptedModel([
    [call("o1", note), call("o2", wrongType), call("o3", image)],
    [{ type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text: "done" }] }]
  ])
  const agent = new Agent({ name: "host", model, tools: await OpenAiAgents.resourceTools(binding) })
  const result = await new Runner({ tracingDisabled: true }).run(agent, "go")
  const seen = JSON.stringify(model.inputs[1] ?? [])
  return {
    answer: result.finalOutput,
    note: seen.includes(noteText),
    message: seen.includes(JSON.stringify(mustBeString).slice(1, -1)),
    image: seen.includes(`"type":"input_image"`)
  }
}

const langChain = async () => {
  const tools = await LangChain.resourceTools(binding)
  const model = new FakeStreamingChatModel({
    chunks: [
      new AIMessageChunk({
        content: "",
        tool_calls: [
          { type: "tool_call", id: "l1", name: "read_mcp_resource", args: JSON.parse(note) },
          { type: "tool_call", id: "l2", name: "read_mcp_resource", args: JSON.parse(wrongType) },
          { type: "tool_call", id: "l3", name: "read_mcp_resource", args: JSON.parse(image) }
        ]
      })
    ]
  })
  const reply = await model.bindTools(tools).invoke([new HumanMessage("go")])
  const answers: Array<ToolMessage> = []
  for (const call of reply.tool_calls ?? []) {
    answers.push(await tools.find((tool) => tool.name === call.name)!.invoke(call))
  }
  return {
    answer: answers.every((answer) => answer instanceof ToolMessage) ? "done" : "not tool messages",
    note: String(answers[0]?.content).includes(noteText),
    message: answers[1]?.status === "error" && answers[1].content === mustBeString,
    image: JSON.stringify(answers[2]?.content).includes("data:image/png;base64,")
  }
}

try {
  const out = { aiSdk: await aiSdk(), openAiAgents: await openAiAgents(), langChain: await langChain() }
  console.log(JSON.stringify({ ...out, lifecycle: lifecycle.length }))
} finally {
  await thread.close()
}
