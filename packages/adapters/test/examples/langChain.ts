/** The README's LangChain example, verbatim between the markers (README.test.ts checks it). */
// README:begin
import { Bridge } from "@mcp-resources/adapters"
import { resourceTools } from "@mcp-resources/adapters/langchain"
import { HumanMessage } from "@langchain/core/messages"
// README:end
import type { BaseChatModel } from "@langchain/core/language_models/chat_models"

export const example = async (config: string, model: BaseChatModel, log: (line: string) => void) => {
  // README:begin
  const thread = await Bridge.connect(config, { onLifecycle: (e) => log(`${e.phase} ${e.item.tool}`) })
  const tools = await resourceTools(thread)
  const messages = [new HumanMessage("What does the note say?")]
  const reply = await model.bindTools!(tools).invoke(messages)
  for (const call of reply.tool_calls ?? []) {
    messages.push(await tools.find((tool) => tool.name === call.name)!.invoke(call)) // a ToolMessage
  }
  await thread.close()
  // README:end
  return messages
}
