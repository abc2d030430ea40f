/**
 * The binding's tools as OpenAI Agents SDK (`@openai/agents` 0.14) function tools. Each is a
 * non-strict `FunctionTool` whose `invoke` gets the model's raw argument text, unparsed, and hands it
 * to our handling; a failed call returns our exact message as the tool's output (the channel the SDK
 * uses for tool errors, like its `errorFunction`). Images of the extended profile are `image` outputs.
 *
 * Limit of the SDK: its runner parses the argument text itself before it invokes a tool that has
 * parameters, and answers text that is not JSON with its own message ("An error occurred while
 * parsing tool arguments. ..."); every text that parses (wrong types, missing fields, not an object)
 * reaches our handling as the model wrote it.
 */
import { type FunctionTool, type ToolOutputImage, type ToolOutputText, tool as agentsTool } from "@openai/agents"
import * as Bridge from "./Bridge.js"
import * as ToolSource from "./internal/toolSource.js"

export type { Binding } from "./Bridge.js"
export type { AppServerBinding } from "./AppServerBinding.js"
export type { Source } from "./internal/toolSource.js"

/** The SDK's type of a non-strict JSON Schema (the tool spec's `parameters`, passed as they are). */
export type Parameters = Extract<FunctionTool["parameters"], { additionalProperties: true }>

/** An adapted tool. */
export type AgentsTool<Context = unknown> = FunctionTool<Context, Parameters, AgentsToolOutput>

/** What an adapted tool returns to the runner: the text, or text and image parts. */
export type AgentsToolOutput = string | Array<ToolOutputText | ToolOutputImage>

const toOutput = (output: Awaited<ReturnType<Bridge.BridgeTool["call"]>>): AgentsToolOutput =>
  Bridge.hasImages(output)
    ? Bridge.contentItems(output).map((item): ToolOutputText | ToolOutputImage =>
        item.type === "text"
          ? { type: "text", text: item.text }
          : { type: "image", image: `data:${item.mimeType};base64,${item.data}` }
      )
    : output.output

/**
 * One bridge tool as an Agents SDK function tool: the SDK's own non-strict JSON-schema tool (so the
 * runner treats it as any function tool without approval), whose `invoke` takes the raw text.
 */
export const toAgentsTool = <Context = unknown>(bridged: Bridge.BridgeTool): AgentsTool<Context> => {
  const base = agentsTool<Parameters, Context, AgentsToolOutput>({
    name: bridged.name,
    description: bridged.description,
    parameters: bridged.parameters as Parameters,
    strict: false,
    needsApproval: false,
    // never called: `invoke` below replaces the SDK's parsing path
    execute: async () => ""
  })
  return {
    ...base,
    invoke: async (_runContext, input, details) =>
      toOutput(await bridged.call(input, { callId: details?.toolCall?.callId, signal: details?.signal }))
  }
}

/**
 * The binding's current tools for an `Agent`'s `tools`. Call it again per run (or build the agent
 * per run): the MCP tools follow the catalog.
 */
export const resourceTools = async <Context = unknown>(
  source: ToolSource.Source
): Promise<Array<AgentsTool<Context>>> =>
  (await ToolSource.listTools(source)).map((tool) => toAgentsTool<Context>(tool))
