/** The extended tool profile through the app-server: `[tools] profile`, `thread/start` `config.toolProfile`, `contentItems`. */
import { assert, describe, it } from "@effect/vitest"
import { type FixtureSpec, stdioCommand } from "@mcp-resources/fixtures"
import { ToolSpecs } from "@mcp-resources/tool-handlers"
import { Effect } from "effect"
import {
  type AppServer,
  errorOf,
  type Message,
  resultOf,
  startInitialized,
  tempDir,
  threadWithTurn,
  writeConfig
} from "./utils/AppServerProcess.js"

const png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP4//8/AAX+Av6n1qThAAAAAElFTkSuQmCC"
const spec: FixtureSpec = {
  name: "srv",
  reads: [{ uri: "f://p.png", result: { contents: [{ uri: "f://p.png", mimeType: "image/png", blob: png }] } }]
}

const readSpec = (app: AppServer, threadId: string) =>
  Effect.map(app.request("tool/list", { threadId }), (m) =>
    (resultOf(m).tools as Array<{ name: string }>).find((t) => t.name === "read_mcp_resource")
  )

const readPng = (app: AppServer, threadId: string, callId: string) =>
  Effect.map(
    app.request("tool/call", {
      threadId,
      turnId: "t1",
      callId,
      name: "read_mcp_resource",
      arguments: '{"server":"srv","uri":"f://p.png"}'
    }),
    resultOf
  )

const completed = (app: AppServer, callId: string): Message | undefined =>
  app.messages.find((m) => m.method === "item/completed" && (m.params as { item: { id: string } }).item.id === callId)

describe("the extended profile over the app-server", () => {
  it.scopedLive("thread/start config.toolProfile chooses the profile per thread; codex stays the default", () =>
    Effect.gen(function* () {
      const config = writeConfig(tempDir(), { mcp_servers: { srv: stdioCommand(spec) } })
      const app = yield* startInitialized({ config })
      const codex = yield* threadWithTurn(app)
      const extended = yield* threadWithTurn(app, { config: { toolProfile: "extended" } })
      assert.deepStrictEqual(yield* readSpec(app, codex.threadId), ToolSpecs.readMcpResource)
      assert.deepStrictEqual(yield* readSpec(app, extended.threadId), ToolSpecs.extended.readMcpResource)

      const plain = yield* readPng(app, codex.threadId, "c1")
      assert.deepStrictEqual(Object.keys(plain), ["callId", "output", "success"])
      assert.include(plain.output as string, png)

      const result = yield* readPng(app, extended.threadId, "c2")
      const text =
        "[resource f://p.png of MCP server srv: 1 content, 0 bytes of text]\n[contents[0] f://p.png (image/png): image image/png, 69 bytes: sent as image part 1]"
      assert.deepStrictEqual(result, {
        callId: "c2",
        output: text,
        success: true,
        contentItems: [
          { type: "text", text },
          { type: "image", mimeType: "image/png", data: png, uri: "f://p.png" }
        ]
      })
      const item = (completed(app, "c2")!.params as { item: { result: { content: Array<Record<string, unknown>> } } })
        .item
      assert.deepStrictEqual(
        item.result.content.map((c) => [c.type, c.mimeType, c.size, typeof c.sha256]),
        [
          ["text", undefined, undefined, "undefined"],
          ["imageSummary", "image/png", 69, "string"]
        ]
      )
      assert.notInclude(JSON.stringify(item), png)
    })
  )

  it.scopedLive("[tools] profile = extended is every thread's default; a bad toolProfile is refused", () =>
    Effect.gen(function* () {
      const config = writeConfig(tempDir(), {
        mcp_servers: { srv: stdioCommand(spec) },
        tools: { profile: "extended" }
      })
      const app = yield* startInitialized({ config })
      const thread = yield* threadWithTurn(app)
      assert.deepStrictEqual(yield* readSpec(app, thread.threadId), ToolSpecs.extended.readMcpResource)
      const codex = yield* threadWithTurn(app, { config: { toolProfile: "codex" } })
      assert.deepStrictEqual(yield* readSpec(app, codex.threadId), ToolSpecs.readMcpResource)
      const refused = yield* app.request("thread/start", { config: { toolProfile: "fancy" } })
      assert.match(String(errorOf(refused).message), /toolProfile/)
    })
  )
})
