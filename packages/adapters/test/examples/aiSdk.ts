/** The README's AI SDK example, verbatim between the markers (README.test.ts checks it). */
// README:begin
import { Bridge } from "@mcp-resources/adapters"
import { resourceTools } from "@mcp-resources/adapters/ai-sdk"
import { generateText, stepCountIs } from "ai"
// README:end
import type { LanguageModel } from "ai"

export const example = async (config: string, model: LanguageModel, log: (line: string) => void) => {
  // README:begin
  const thread = await Bridge.connect(config, { onLifecycle: (e) => log(`${e.phase} ${e.item.tool}`) })
  const { tools, repairToolCall } = await resourceTools(thread) // again per turn: follows the tool list
  const { text } = await generateText({
    model,
    tools,
    experimental_repairToolCall: repairToolCall, // broken JSON reaches our argument handling
    stopWhen: stepCountIs(8),
    prompt: "What does the note say?"
  })
  await thread.close()
  // README:end
  return text
}
