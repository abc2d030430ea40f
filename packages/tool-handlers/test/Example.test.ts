/** The README examples, run against an in-memory fixture server and a scripted model. */
import { connectInMemory } from "@mcp-resources/fixtures"
import { Config, type ToolPayload } from "@mcp-resources/protocol"
import { McpTransport, ResourceClient, ServerEntry } from "@mcp-resources/resource-client"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Queue } from "effect"
import { LifecycleSink, ToolHandlers } from "../src/index.js"

interface Message {
  readonly role: "user" | "assistant" | "tool"
  readonly content?: string
  readonly tool_call_id?: string
  readonly tool_calls?: ReadonlyArray<{
    readonly id: string
    readonly function: { readonly name: string; readonly arguments: string }
  }>
}

describe("README examples", () => {
  it.scoped("the ten-line example lists every resource", () =>
    Effect.gen(function* () {
      const fixture = connectInMemory({
        resourcePages: [{ result: { resources: [{ uri: "memo://id", name: "memo" }] } }]
      })
      yield* Effect.addFinalizer(() => Effect.promise(() => fixture.closeAll()))
      const connect = fixture.connect
      const listEverything = Effect.gen(function* () {
        const client = yield* ResourceClient.ResourceClient
        const set = yield* client.acquire
        yield* set.awaitAllSettled // aggregate lists skip servers that are still starting
        const ctx = { set, config: Config.empty, orchestratorMcpEnabled: true, truncation: Config.empty.truncation }
        return yield* ToolHandlers.callTool(ctx, { callId: "c-1", name: "list_mcp_resources", arguments: "{}" })
      })
      const servers = [ServerEntry.memory("srv", connect)]
      const result = yield* Effect.scoped(listEverything).pipe(
        Effect.provide([ResourceClient.layer({ config: Config.empty, servers }), LifecycleSink.layerNoop])
      )
      assert.deepStrictEqual(result, {
        output: `{"resources":[{"server":"srv","uri":"memo://id","name":"memo"}]}`,
        success: true
      })
    })
  )

  it.scoped("the host loop lists tools, dispatches the model's calls and collects items", () =>
    Effect.gen(function* () {
      const fixture = connectInMemory({
        reads: [{ uri: "memo://id", result: { contents: [{ uri: "memo://id", text: "remember the milk" }] } }],
        tools: [{ name: "echo", description: "Echoes." }]
      })
      yield* Effect.addFinalizer(() => Effect.promise(() => fixture.closeAll()))
      const client = yield* ResourceClient.make({
        config: Config.empty,
        servers: [ServerEntry.memory("srv", fixture.connect)]
      }).pipe(Effect.provide(McpTransport.layerMemory))
      const set = yield* client.acquire
      const ctx: ToolHandlers.ToolContext = {
        set,
        config: Config.empty,
        orchestratorMcpEnabled: true,
        truncation: Config.empty.truncation
      }
      const itemQueue = yield* Queue.unbounded<LifecycleSink.LifecycleEvent>()
      const offered: Array<ReadonlyArray<string>> = []
      const script: Array<Message> = [
        {
          role: "assistant",
          tool_calls: [
            { id: "call-1", function: { name: "read_mcp_resource", arguments: `{"server":"srv","uri":"memo://id"}` } },
            { id: "call-2", function: { name: "mcp__srv__echo", arguments: "{}" } }
          ]
        },
        { role: "assistant", content: "done" }
      ]
      const askModel = (_messages: ReadonlyArray<Message>, tools: ReadonlyArray<ToolPayload.ChatCompletionsTool>) =>
        Effect.sync(() => {
          offered.push(tools.map((t) => t.function.name))
          return script.shift()!
        })

      const turn = (ctx: ToolHandlers.ToolContext, userText: string) =>
        Effect.gen(function* () {
          const tools = ToolHandlers.exportTools(yield* ToolHandlers.listTools(ctx), "chatCompletions")
          const messages: Array<Message> = [{ role: "user", content: userText }]
          for (let step = 0; step < 8; step++) {
            const reply = yield* askModel(messages, tools)
            messages.push(reply)
            if (reply.tool_calls === undefined || reply.tool_calls.length === 0)
              return { reply: reply.content, messages }
            for (const toolCall of reply.tool_calls) {
              const { output } = yield* ToolHandlers.callTool(ctx, {
                callId: toolCall.id,
                name: toolCall.function.name,
                arguments: toolCall.function.arguments
              })
              messages.push({ role: "tool", tool_call_id: toolCall.id, content: output })
            }
          }
          return { reply: "stopped after 8 steps", messages }
        }).pipe(Effect.provide(LifecycleSink.layerQueue(itemQueue)))

      const { reply, messages } = yield* turn(ctx, "what should I remember?")
      assert.strictEqual(reply, "done")
      assert.deepStrictEqual(offered[0], [
        "list_mcp_resources",
        "list_mcp_resource_templates",
        "read_mcp_resource",
        "mcp__srv__echo"
      ])
      assert.deepStrictEqual(
        messages.filter((m) => m.role === "tool").map((m) => m.content),
        [
          `{"server":"srv","uri":"memo://id","contents":[{"uri":"memo://id","text":"remember the milk"}]}`,
          `{"content":[{"type":"text","text":"echo ok"}]}`
        ]
      )
      const events = yield* Queue.takeAll(itemQueue)
      assert.deepStrictEqual(
        Array.from(events, (e) => `${e.item.id}:${e.phase}:${e.item.status}`),
        [
          "call-1:started:inProgress",
          "call-1:completed:completed",
          "call-2:started:inProgress",
          "call-2:completed:completed"
        ]
      )
    })
  )
})
