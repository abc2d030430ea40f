/** The README's app-server example (AI SDK), verbatim between the markers (README.test.ts checks it). */
// README:begin
import { resourceTools } from "@mcp-resources/adapters/ai-sdk"
import { PromiseClient } from "@mcp-resources/app-server-client"
import { generateText, stepCountIs } from "ai"
// README:end
import type { Transport } from "@mcp-resources/app-server-client"
import type { LanguageModel } from "ai"

export const example = async (server: Transport.StdioOptions, model: LanguageModel, log: (line: string) => void) => {
  // README:begin
  // `server`: how to start the app-server, e.g. { command: "mcp-resources-app-server", args: ["--config", file] }
  const client = await PromiseClient.connectStdio(server)
  await client.initialize({ name: "my-host" })
  const { thread } = await client.request("thread/start", { config: { toolProfile: "extended" } })
  const { tools, repairToolCall } = await resourceTools({
    client,
    threadId: thread.id, // each listing starts a turn of this thread
    onLifecycle: (e) => log(`${e.phase} ${e.item.tool}`)
  })
  const { text } = await generateText({
    model,
    tools,
    experimental_repairToolCall: repairToolCall,
    stopWhen: stepCountIs(8),
    prompt: "What does the note say?"
  })
  await client.close()
  // README:end
  return text
}
