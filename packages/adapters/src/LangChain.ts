/**
 * The binding's tools as LangChain.js (`@langchain/core` 1) structured tools. The model is shown the
 * tool spec's JSON Schema; LangChain's own schema check is skipped, so the arguments (already parsed
 * by the chat model) reach our handling as they are, and the model reads our exact message. Invoked
 * with a tool call, a tool answers with a `ToolMessage` (`status: "error"` for a failed call, image
 * parts as `image_url` data URLs in the extended profile); invoked with plain arguments it answers
 * with the text, and a failed call throws {@link Bridge.ToolCallFailed}.
 */
import { ToolMessage } from "@langchain/core/messages"
import type { RunnableConfig } from "@langchain/core/runnables"
import { StructuredTool } from "@langchain/core/tools"
import type { ToolHandlers } from "@mcp-resources/tool-handlers"
import * as Bridge from "./Bridge.js"
import * as ToolSource from "./internal/toolSource.js"

export type { Binding } from "./Bridge.js"
export type { AppServerBinding } from "./AppServerBinding.js"
export type { Source } from "./internal/toolSource.js"
export { ToolCallFailed } from "./Bridge.js"

type JsonSchemaObject = Record<string, unknown>

interface ToolCallLike {
  readonly type?: "tool_call"
  readonly id?: string | undefined
  readonly name: string
  readonly args: unknown
}

const isToolCall = (value: unknown): value is ToolCallLike =>
  typeof value === "object" &&
  value !== null &&
  "args" in value &&
  "name" in value &&
  ((value as { type?: unknown }).type === "tool_call" || "id" in value)

type Part = { type: "text"; text: string } | { type: "image_url"; image_url: { url: string } }

const content = (output: ToolHandlers.ToolOutput): string | Array<Part> =>
  Bridge.hasImages(output)
    ? Bridge.contentItems(output).map(
        (item): Part =>
          item.type === "text"
            ? { type: "text", text: item.text }
            : { type: "image_url", image_url: { url: `data:${item.mimeType};base64,${item.data}` } }
      )
    : output.output

/** A LangChain structured tool over one bridge tool (see the module comment). */
export class McpResourceTool extends StructuredTool {
  static override lc_name(): string {
    return "McpResourceTool"
  }

  override name: string
  override description: string
  override schema: JsonSchemaObject

  constructor(readonly bridged: Bridge.BridgeTool) {
    super()
    this.name = bridged.name
    this.description = bridged.description
    this.schema = bridged.parameters as JsonSchemaObject
  }

  /** Runs the call without LangChain's schema check, so our argument messages reach the model. */
  // biome-ignore lint/suspicious/noExplicitAny: as LangChain's own `invoke`: a `ToolMessage` for a tool call, else the content
  override async invoke(input: unknown, config?: RunnableConfig): Promise<any> {
    const toolCall = isToolCall(input) ? input : undefined
    const args = toolCall === undefined ? input : toolCall.args
    const configured = config as (RunnableConfig & { toolCall?: { id?: string } }) | undefined
    const callId = toolCall?.id ?? configured?.toolCall?.id
    const output = await this.bridged.call(typeof args === "string" ? args : Bridge.argumentText(args), {
      callId,
      signal: config?.signal
    })
    if (callId === undefined) {
      if (!output.success) throw new Bridge.ToolCallFailed(output)
      return content(output)
    }
    return new ToolMessage({
      content: content(output),
      tool_call_id: callId,
      name: this.name,
      status: output.success ? "success" : "error"
    })
  }

  /** @internal the path `invoke` replaces; kept for LangChain's `call`. */
  protected override async _call(arg: unknown, _runManager?: unknown, config?: RunnableConfig): Promise<unknown> {
    const output = await this.bridged.call(Bridge.argumentText(arg), { signal: config?.signal })
    if (!output.success) throw new Bridge.ToolCallFailed(output)
    return content(output)
  }
}

/**
 * The binding's current tools for `model.bindTools(tools)` and your tool loop. Call it again per run:
 * the MCP tools follow the catalog.
 */
export const resourceTools = async (source: ToolSource.Source): Promise<Array<McpResourceTool>> =>
  (await ToolSource.listTools(source)).map((tool) => new McpResourceTool(tool))
