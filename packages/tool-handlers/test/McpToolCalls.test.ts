import { appToolMeta, widgetAppsSpec, widgetUri } from "@mcp-resources/fixtures"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Fiber } from "effect"
import { LifecycleSink, ToolHandlers } from "../src/index.js"
import { harness, waitUntil } from "./utils/harness.js"

const withRecorder = <A, E, R>(self: Effect.Effect<A, E, R>) => Effect.provide(self, LifecycleSink.layerRecorder)
const items = Effect.map(LifecycleSink.recorded, (events) => events.map((e) => e.item))
const call = (ctx: ToolHandlers.ToolContext, name: string, args: string, callId = "c-1") =>
  ToolHandlers.callTool(ctx, { callId, name, arguments: args })
const toolCalls = (requests: ReadonlyArray<{ method: string; params?: unknown }>) =>
  requests.filter((r) => r.method === "tools/call")

const schema = { type: "object", properties: { q: { type: "string" } } }

const catalog = {
  srv: {
    spec: {
      tools: [
        { name: "echo", description: "Echo it.", inputSchema: schema, _meta: { ui: { resourceUri: "ui://srv/echo" } } },
        { name: "hidden", _meta: { ui: { visibility: ["app"] } } },
        { name: "both", _meta: { ui: { visibility: ["app", "model"] } } },
        { name: "odd name!" },
        { name: "broken", error: { code: -32603, message: "boom" } },
        {
          name: "fails",
          result: { content: [{ type: "text", text: "no" }], isError: true }
        }
      ]
    }
  },
  codex_apps: {
    spec: {
      tools: [
        { name: "t1", _meta: appToolMeta("k") },
        { name: "t2", _meta: { connector_id: "off" } },
        { name: "t3", _meta: { connector_id: "k" } },
        { name: "t4", _meta: { "openai/outputTemplate": "ui://t4" } }
      ]
    }
  }
}
const config = {
  apps: {
    serverName: "codex_apps",
    connectors: { off: { enabled: false, tools: {} }, k: { tools: { t3: { enabled: false } } } }
  }
}

describe("MCP tool listing (resource-tools.md 11.1)", () => {
  it.scoped("lists model-visible, enabled tools after the resource tools, servers in bytewise order", () =>
    Effect.gen(function* () {
      const { ctx } = yield* harness(catalog, { config })
      const tools = yield* ToolHandlers.listTools(ctx)
      assert.deepStrictEqual(
        tools.map((t) => t.name),
        [
          "list_mcp_resources",
          "list_mcp_resource_templates",
          "read_mcp_resource",
          "mcp__codex_apps__t1",
          "mcp__codex_apps__t4",
          "mcp__srv__echo",
          "mcp__srv__both",
          "mcp__srv__odd_name_",
          "mcp__srv__broken",
          "mcp__srv__fails"
        ]
      )
      assert.strictEqual(
        JSON.stringify(tools.find((t) => t.name === "mcp__srv__echo")),
        JSON.stringify({
          type: "function",
          name: "mcp__srv__echo",
          description: "Echo it.",
          strict: false,
          parameters: schema
        })
      )
      assert.strictEqual(tools.find((t) => t.name === "mcp__srv__both")!.description, "")
    })
  )

  it.scoped("W-8 (package level): an app-only tool is not listed but stays callable", () =>
    withRecorder(
      Effect.gen(function* () {
        const { ctx } = yield* harness(catalog, { config })
        const names = (yield* ToolHandlers.listTools(ctx)).map((t) => t.name)
        assert.notInclude(names, "mcp__srv__hidden")
        assert.deepStrictEqual(yield* call(ctx, "mcp__srv__hidden", "{}"), {
          output: `{"content":[{"type":"text","text":"hidden ok"}]}`,
          success: true
        })
      })
    )
  )

  it.scoped("tools disabled by the app policy and unknown names are unsupported calls with no items", () =>
    withRecorder(
      Effect.gen(function* () {
        const { ctx, fixtures } = yield* harness(catalog, { config })
        for (const name of ["mcp__codex_apps__t2", "mcp__codex_apps__t3", "mcp__srv__nope", "shell"]) {
          assert.deepStrictEqual(yield* call(ctx, name, "{}"), { output: `unsupported call: ${name}`, success: false })
        }
        assert.deepStrictEqual(yield* items, [])
        assert.deepStrictEqual(toolCalls(fixtures.codex_apps!.requests), [])
      })
    )
  )
})

describe("MCP tool calls (resource-tools.md 11.2, 11.3)", () => {
  it.scoped("a call sends the parsed arguments and completes its item with the CallToolResult", () =>
    withRecorder(
      Effect.gen(function* () {
        const { ctx, fixtures } = yield* harness(catalog, { config })
        const result = yield* call(ctx, "mcp__srv__echo", `{"q":"tv","q":"radio"}`)
        assert.deepStrictEqual(result, { output: `{"content":[{"type":"text","text":"echo ok"}]}`, success: true })
        assert.deepStrictEqual(toolCalls(fixtures.srv!.requests), [
          { method: "tools/call", params: { name: "echo", arguments: { q: "radio" } } }
        ])
        const [started, completed] = yield* items
        assert.strictEqual(
          JSON.stringify(started),
          JSON.stringify({
            type: "mcpToolCall",
            id: "c-1",
            server: "srv",
            tool: "echo",
            arguments: { q: "radio" },
            status: "inProgress",
            result: null,
            error: null,
            durationMs: null,
            mcpAppResourceUri: "ui://srv/echo"
          })
        )
        assert.strictEqual(completed!.status, "completed")
        assert.deepStrictEqual(completed!.result, { content: [{ type: "text", text: "echo ok" }] })
        assert.isNull(completed!.error)
        assert.isUndefined(completed!.connectorId)
      })
    )
  )

  it.scoped("blank or null arguments send tools/call without arguments; a non-object emits nothing", () =>
    withRecorder(
      Effect.gen(function* () {
        const { ctx, fixtures } = yield* harness(catalog, { config })
        assert.isTrue((yield* call(ctx, "mcp__srv__echo", "  ")).success)
        assert.isTrue((yield* call(ctx, "mcp__srv__echo", "null")).success)
        const calls = toolCalls(fixtures.srv!.requests)
        assert.deepStrictEqual(
          calls.map((r) => r.params),
          [{ name: "echo" }, { name: "echo" }]
        )
        const recorder = yield* LifecycleSink.Recorder
        yield* recorder.clear
        assert.deepStrictEqual(yield* call(ctx, "mcp__srv__echo", "[1]"), {
          output: "failed to parse function arguments: expected a JSON object, got array",
          success: false
        })
        assert.deepStrictEqual(yield* items, [])
      })
    )
  )

  it.scoped("apps-server items carry connectorId, linkId and mcpAppResourceUri; other servers only the uri", () =>
    withRecorder(
      Effect.gen(function* () {
        const { ctx } = yield* harness(catalog, { config })
        yield* call(ctx, "mcp__codex_apps__t1", "{}", "apps-call")
        yield* call(ctx, "mcp__codex_apps__t4", "{}", "t4-call")
        const [started, completed, t4] = yield* items
        for (const item of [started!, completed!]) {
          assert.deepStrictEqual([item.connectorId, item.linkId, item.mcpAppResourceUri], ["k", "link_k", widgetUri])
        }
        const keys = Object.keys(completed!)
        assert.deepStrictEqual(keys.slice(-3), ["connectorId", "linkId", "mcpAppResourceUri"])
        assert.strictEqual(t4!.mcpAppResourceUri, "ui://t4")
        assert.isFalse("connectorId" in t4! || "linkId" in t4!)
      })
    )
  )

  it.scoped("W-1 (package level): isError results fail with the result attached", () =>
    withRecorder(
      Effect.gen(function* () {
        const { ctx } = yield* harness({ codex_apps: { spec: widgetAppsSpec() } })
        const ok = yield* call(ctx, "mcp__codex_apps__best_buy_product_search", `{"query":"tv"}`, "best-buy-call")
        assert.isTrue(ok.success)
        const failed = yield* call(ctx, "mcp__codex_apps__best_buy_product_search", `{"query":"fail"}`, "failed-call")
        assert.isFalse(failed.success)
        const completed = (yield* LifecycleSink.recorded).filter((e) => e.phase === "completed").map((e) => e.item)
        assert.deepStrictEqual(
          completed.map((i) => [i.id, i.status, i.connectorId, i.linkId, i.mcpAppResourceUri]),
          [
            ["best-buy-call", "completed", "best_buy", "link_best_buy", widgetUri],
            ["failed-call", "failed", "best_buy", "link_best_buy", widgetUri]
          ]
        )
        assert.strictEqual(completed[1]!.result!.isError, true)
        assert.isNull(completed[1]!.error)
        assert.strictEqual(failed.output, JSON.stringify(completed[1]!.result))
      })
    )
  )

  it.scoped("an isError result from any server is a failed item with success false", () =>
    withRecorder(
      Effect.gen(function* () {
        const { ctx } = yield* harness(catalog, { config })
        assert.deepStrictEqual(yield* call(ctx, "mcp__srv__fails", "{}"), {
          output: `{"content":[{"type":"text","text":"no"}],"isError":true}`,
          success: false
        })
      })
    )
  )

  it.scoped("a failed request completes the item with the tools/call message chain", () =>
    withRecorder(
      Effect.gen(function* () {
        const { ctx } = yield* harness(catalog, { config })
        const message = "tools/call failed: tools/call failed for `srv`: Mcp error: -32603: boom"
        assert.deepStrictEqual(yield* call(ctx, "mcp__srv__broken", "{}"), { output: message, success: false })
        const [, completed] = yield* items
        assert.deepStrictEqual([completed!.status, completed!.result, completed!.error], ["failed", null, { message }])
      })
    )
  )

  it.scoped("a result over 1 MiB is stored with its content replaced by the truncated output", () =>
    withRecorder(
      Effect.gen(function* () {
        const big = { content: [{ type: "text", text: "y".repeat(1100000) }], structuredContent: { n: 1 } }
        const { ctx } = yield* harness({ srv: { spec: { tools: [{ name: "big", result: big }] } } })
        const result = yield* call(ctx, "mcp__srv__big", "{}")
        assert.isTrue(result.success)
        assert.include(result.output, "tokens truncated…")
        assert.isTrue(result.output.startsWith(`{"content":[{"type":"text","text":"yyy`))
        const [, completed] = yield* items
        assert.deepStrictEqual(completed!.result, {
          content: [{ type: "text", text: result.output }],
          structuredContent: { n: 1 }
        })
      })
    )
  )

  it.scoped("cancelling a running call completes its item as failed with message cancelled", () =>
    withRecorder(
      Effect.gen(function* () {
        const { ctx, fixtures } = yield* harness({ srv: { spec: { tools: [{ name: "slow", hang: true }] } } })
        const fiber = yield* Effect.fork(call(ctx, "mcp__srv__slow", `{"a":1}`))
        yield* waitUntil(() => toolCalls(fixtures.srv!.requests).length === 1)
        yield* Fiber.interrupt(fiber)
        const [started, completed] = yield* items
        assert.strictEqual(started!.status, "inProgress")
        assert.deepStrictEqual(
          [completed!.status, completed!.result, completed!.error],
          ["failed", null, { message: "cancelled" }]
        )
        assert.isTrue(Number.isInteger(completed!.durationMs))
        // The request is cancelled at the server too.
        yield* waitUntil(() => fixtures.srv!.cancelled.length === 1)
      })
    )
  )
})
