/**
 * The binding's tools as OpenAI Agents SDK (`@openai/agents` 0.14) function tools. Each is a
 * non-strict `FunctionTool` whose `invoke` gets the model's raw argument text, unparsed, and hands it
 * to our handling; a failed call returns our exact message as the tool's output (the channel the SDK
 * uses for tool errors, like its `errorFunction`). Images of the extended profile are `image` outputs.
 */
import type { FunctionTool, ToolOutputImage, ToolOutputText } from "@openai/agents"
import * as Bridge from "./Bridge.js"

export type { Binding } from "./Bridge.js"

/** What an adapted tool returns to the runner: the text, or text and image parts. */
export type AgentsToolOutput = string | Array<ToolOutputText | ToolOutputImage>

const toOutput = (output: Awaited<ReturnType<Bridge.BridgeTool["call"]>>): AgentsToolOutput =>
  Bridge.hasImages(output)
    ? Bridge.contentItems(output).map(
        (item): ToolOutputText | ToolOutputImage =>
          item.type === "text"
            ? { type: "text", text: item.text }
            : { type: "image", image: `data:${item.mimeType};base64,${item.data}` }
      )
    : output.output

/** One bridge tool as an Agents SDK function tool. */
export const toAgentsTool = <Context = unknown>(
  tool: Bridge.BridgeTool
): FunctionTool<Context, undefined, AgentsToolOutput> => ({
  type: "function",
  name: tool.name,
  description: tool.description,
  parameters: tool.parameters as FunctionTool["parameters"],
  strict: false,
  invoke: async (_runContext, input, details) =>
    toOutput(await tool.call(input, { callId: details?.toolCall?.callId, signal: details?.signal })),
  needsApproval: async () => false,
  isEnabled: async () => true
})

/**
 * The binding's current tools for an `Agent`'s `tools`. Call it again per run (or build the agent
 * per run): the MCP tools follow the catalog.
 */
export const resourceTools = async <Context = unknown>(
  binding: Bridge.Binding
): Promise<Array<FunctionTool<Context, undefined, AgentsToolOutput>>> =>
  (await Bridge.listTools(binding)).map((tool) => toAgentsTool<Context>(tool))
