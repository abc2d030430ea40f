/** Scripted models for the frameworks' own model interfaces (AI SDK `MockLanguageModelV3`, Agents `Model`). */
import type { AgentInputItem, AgentOutputItem, Model, ModelRequest, ModelResponse } from "@openai/agents"
import { Usage } from "@openai/agents"
import { MockLanguageModelV3 } from "ai/test"

export type Generate = Awaited<ReturnType<MockLanguageModelV3["doGenerate"]>>
export type Prompt = Parameters<MockLanguageModelV3["doGenerate"]>[0]["prompt"]

export const usage: Generate["usage"] = {
  inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 1, text: 1, reasoning: undefined }
}

export const toolCalls = (calls: ReadonlyArray<readonly [string, string, string]>): Generate => ({
  content: calls.map(([toolCallId, toolName, input]) => ({ type: "tool-call", toolCallId, toolName, input })),
  finishReason: { unified: "tool-calls", raw: undefined },
  usage,
  warnings: []
})

export const text = (value: string): Generate => ({
  content: [{ type: "text", text: value }],
  finishReason: { unified: "stop", raw: undefined },
  usage,
  warnings: []
})

/** A model that answers each step from the script and records each step's prompt and tool names. */
export const scripted = (script: Array<Generate>) => {
  const prompts: Array<Prompt> = []
  const offered: Array<ReadonlyArray<string>> = []
  const model = new MockLanguageModelV3({
    doGenerate: async (options) => {
      prompts.push(options.prompt)
      offered.push((options.tools ?? []).map((tool) => tool.name))
      const next = script.shift()
      if (next === undefined) throw new Error("the script is over")
      return next
    }
  })
  return { model, prompts, offered }
}

export const call = (callId: string, name: string, args: string): AgentOutputItem => ({
  type: "function_call",
  callId,
  name,
  arguments: args,
  status: "completed"
})

export const say = (text: string): AgentOutputItem => ({
  type: "message",
  role: "assistant",
  status: "completed",
  content: [{ type: "output_text", text }]
})

/** A model that answers each turn from the script; it records each request's input and tool names. */
export class ScriptedModel implements Model {
  readonly inputs: Array<ReadonlyArray<AgentInputItem>> = []
  readonly offered: Array<ReadonlyArray<string>> = []
  constructor(private readonly script: Array<ReadonlyArray<AgentOutputItem>>) {}

  async getResponse(request: ModelRequest): Promise<ModelResponse> {
    this.inputs.push(typeof request.input === "string" ? [] : [...request.input])
    this.offered.push(request.tools.map((tool) => ("name" in tool ? String(tool.name) : "?")))
    const output = this.script.shift()
    if (output === undefined) throw new Error("the script is over")
    return { usage: new Usage(), output: [...output], responseId: `r${this.inputs.length}` }
  }

  // biome-ignore lint/correctness/useYield: the scripted model has no streamed path
  async *getStreamedResponse(): AsyncIterable<never> {
    throw new Error("not streamed")
  }
}
