/** The README's OpenAI Agents example, verbatim between the markers (README.test.ts checks it). */
// README:begin
import { Bridge } from "@mcp-resources/adapters"
import { resourceTools } from "@mcp-resources/adapters/openai-agents"
import { Agent, run } from "@openai/agents"
// README:end
import type { Model } from "@openai/agents"

export const example = async (config: string, model: Model, log: (line: string) => void) => {
  // README:begin
  const thread = await Bridge.connect(config, { onLifecycle: (e) => log(`${e.phase} ${e.item.tool}`) })
  const agent = new Agent({ name: "host", model, tools: await resourceTools(thread) })
  const { finalOutput } = await run(agent, "What does the note say?")
  await thread.close()
  // README:end
  return finalOutput
}
