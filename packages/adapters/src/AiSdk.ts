/**
 * The binding's tools as a Vercel AI SDK (`ai` 6) `ToolSet`. Each tool is a `dynamicTool` whose input
 * schema is the tool spec's JSON Schema without validation, so arguments reach our handling as the
 * model sent them; `repairToolCall` (pass it as `experimental_repairToolCall`) routes argument text
 * that is not JSON to the same handling, so the model reads our exact message. A failed call throws
 * {@link Bridge.ToolCallFailed}: the model gets it as an `error-text` tool result. Images of the
 * extended profile are `image-data` parts of the tool result.
 */
import { dynamicTool, jsonSchema, type ToolCallRepairFunction, type ToolSet } from "ai"
import type { ToolHandlers } from "@mcp-resources/tool-handlers"
import * as Bridge from "./Bridge.js"
import * as ToolSource from "./internal/toolSource.js"

export type { Binding } from "./Bridge.js"
export type { AppServerBinding } from "./AppServerBinding.js"
export type { Source } from "./internal/toolSource.js"
export { ToolCallFailed } from "./Bridge.js"

/** The key under which a repaired call carries argument text that was not JSON. */
const rawKey = "__mcp_resources_raw_arguments__"

const rawArguments = (input: unknown): string => {
  if (typeof input === "object" && input !== null && !Array.isArray(input)) {
    const raw = (input as Record<string, unknown>)[rawKey]
    if (typeof raw === "string" && Object.keys(input).length === 1) return raw
  }
  return Bridge.argumentText(input)
}

type ModelOutput = {
  readonly type: "content"
  readonly value: Array<{ type: "text"; text: string } | { type: "image-data"; data: string; mediaType: string }>
}

const toModelOutput = (output: ToolHandlers.ToolOutput): ModelOutput | { type: "text"; value: string } =>
  Bridge.hasImages(output)
    ? {
        type: "content",
        value: Bridge.contentItems(output).map((item) =>
          item.type === "text"
            ? { type: "text" as const, text: item.text }
            : { type: "image-data" as const, data: item.data, mediaType: item.mimeType }
        )
      }
    : { type: "text", value: output.output }

/** One bridge tool as an AI SDK tool. */
export const toAiSdkTool = (tool: Bridge.BridgeTool): ToolSet[string] =>
  dynamicTool({
    description: tool.description,
    inputSchema: jsonSchema(tool.parameters as Parameters<typeof jsonSchema>[0]),
    execute: async (input, { toolCallId, abortSignal }) => {
      const output = await tool.call(rawArguments(input), { callId: toolCallId, signal: abortSignal })
      if (!output.success) throw new Bridge.ToolCallFailed(output)
      return output
    },
    toModelOutput: ({ output }) => toModelOutput(output as ToolHandlers.ToolOutput)
  })

/** The binding's tools for one `generateText`/`streamText` call. */
export interface AiSdkTools {
  /** The tools, by function name: pass as `tools`. */
  readonly tools: ToolSet
  /** Pass as `experimental_repairToolCall`: argument text that is not JSON reaches our handling. */
  readonly repairToolCall: ToolCallRepairFunction<ToolSet>
}

/**
 * The binding's current tools as an AI SDK `ToolSet`, with the repair function that hands unparsable
 * arguments to our handling. Call it again per `generateText` call: the MCP tools follow the catalog.
 */
export const resourceTools = async (source: ToolSource.Source): Promise<AiSdkTools> => {
  const bridged = await ToolSource.listTools(source)
  const tools: ToolSet = {}
  for (const tool of bridged) tools[tool.name] = toAiSdkTool(tool)
  const repairToolCall: ToolCallRepairFunction<ToolSet> = async ({ toolCall }) =>
    Object.hasOwn(tools, toolCall.toolName)
      ? { ...toolCall, input: JSON.stringify({ [rawKey]: toolCall.input }) }
      : null
  return { tools, repairToolCall }
}
