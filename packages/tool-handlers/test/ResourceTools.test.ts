import { assert, describe, it } from "@effect/vitest"
import { Effect, Fiber, TestClock } from "effect"
import { LifecycleSink, ToolHandlers, ToolSpecs, Truncation } from "../src/index.js"
import { harness, resources, waitUntil } from "./utils/harness.js"
import { connectInMemory } from "@mcp-resources/fixtures"
import { Config } from "@mcp-resources/protocol"
import { ServerEntry } from "@mcp-resources/resource-client"
import { specTexts } from "./utils/specTexts.js"

const call = (ctx: ToolHandlers.ToolContext, name: string, args: string, callId = "c-1") =>
  ToolHandlers.callTool(ctx, { callId, name, arguments: args })
const list = (ctx: ToolHandlers.ToolContext, args: string) => call(ctx, "list_mcp_resources", args)
const templates = (ctx: ToolHandlers.ToolContext, args: string) => call(ctx, "list_mcp_resource_templates", args)
const read = (ctx: ToolHandlers.ToolContext, args: string) => call(ctx, "read_mcp_resource", args)

const withRecorder = <A, E, R>(self: Effect.Effect<A, E, R>) => Effect.provide(self, LifecycleSink.layerRecorder)
const items = Effect.map(LifecycleSink.recorded, (events) => events.map((e) => e.item))
const resourceRequests = (requests: ReadonlyArray<{ method: string; params?: unknown }>) =>
  requests.filter((r) => r.method.startsWith("resources/"))

const memo = { uri: "memo://id", name: "memo" }
const boom = { code: -32603, message: "boom" }
const disabled = "MCP server 'codex_apps' is disabled by `orchestrator.mcp.enabled`"

describe("registration gate (resource-tools.md 4)", () => {
  it.scoped("T-1: with one enabled server the three specs come first, byte for byte, in order", () =>
    Effect.gen(function* () {
      const { ctx } = yield* harness({ srv: { spec: resources([memo]) } })
      const tools = yield* ToolHandlers.listTools(ctx)
      assert.deepStrictEqual(
        tools.slice(0, 3).map((t) => JSON.stringify(t)),
        [...specTexts]
      )
    })
  )

  it.scoped("T-2/T-3: with no server the tools are absent and a call is unsupported with no items", () =>
    withRecorder(
      Effect.gen(function* () {
        const { ctx } = yield* harness({})
        assert.deepStrictEqual(yield* ToolHandlers.listTools(ctx), [])
        assert.deepStrictEqual(yield* list(ctx, "{}"), {
          success: false,
          output: "unsupported call: list_mcp_resources"
        })
        assert.deepStrictEqual(yield* items, [])
      })
    )
  )

  it.scoped("T-4: a config whose only server is disabled offers none of the tools", () =>
    withRecorder(
      Effect.gen(function* () {
        const { ctx } = yield* harness({ off: { spec: resources([memo]), options: { enabled: false } } })
        assert.deepStrictEqual(yield* ToolHandlers.listTools(ctx), [])
        assert.deepStrictEqual(yield* read(ctx, `{"server":"off","uri":"u"}`), {
          success: false,
          output: "unsupported call: read_mcp_resource"
        })
      })
    )
  )

  it.scoped("T-5: a server that failed at startup still makes the three tools available", () =>
    Effect.gen(function* () {
      const { ctx } = yield* harness({ broken: { failWith: "spawn failed" } })
      const tools = yield* ToolHandlers.listTools(ctx)
      assert.deepStrictEqual(
        tools.map((t) => t.name),
        ToolSpecs.resourceToolSpecs.map((t) => t.name)
      )
    })
  )
})

describe("bindings (resource-tools.md 1.3, 4)", () => {
  it.scoped("T-6: a binding keeps its tool set after a reload adds a server; a new binding has the tools", () =>
    Effect.gen(function* () {
      const { ctx, client } = yield* harness({})
      const fixture = connectInMemory(resources([memo]))
      yield* Effect.addFinalizer(() => Effect.promise(() => fixture.closeAll()))
      yield* client.reload({ config: Config.empty, servers: [ServerEntry.memory("srv", fixture.connect)] })
      assert.deepStrictEqual(yield* ToolHandlers.listTools(ctx), [])
      const next = yield* client.acquire
      const tools = yield* ToolHandlers.listTools({ ...ctx, set: next })
      assert.deepStrictEqual(
        tools.map((t) => t.name),
        ToolSpecs.resourceToolNames
      )
    })
  )

  it.scoped("C-6: a disabled server is unknown to the list tool", () =>
    withRecorder(
      Effect.gen(function* () {
        const { ctx } = yield* harness({
          srv: { spec: resources([memo]) },
          off: { spec: resources([memo]), options: { enabled: false } }
        })
        assert.deepStrictEqual(yield* list(ctx, `{"server":"off"}`), {
          output: "resources/list failed: unknown MCP server 'off'",
          success: false
        })
      })
    )
  )

  it.scoped("C-7: a server without the resources capability lists nothing and is never asked", () =>
    withRecorder(
      Effect.gen(function* () {
        const { ctx, fixtures } = yield* harness({
          plain: { spec: { capabilities: { resources: false, tools: true }, tools: [{ name: "t" }] } },
          test: { spec: resources([memo]) }
        })
        assert.deepStrictEqual(yield* list(ctx, `{"server":"plain"}`), {
          output: `{"server":"plain","resources":[]}`,
          success: true
        })
        // P-1: an entry is the server first, then the resource's fields.
        assert.deepStrictEqual(yield* list(ctx, "{}"), {
          output: `{"resources":[{"server":"test","uri":"memo://id","name":"memo"}]}`,
          success: true
        })
        assert.deepStrictEqual(resourceRequests(fixtures.plain!.requests), [])
      })
    )
  )
})

describe("access gate (resource-tools.md 6)", () => {
  it.scoped("T-7..T-10: a refused apps server is silently excluded and never asked", () =>
    withRecorder(
      Effect.gen(function* () {
        const { ctx, fixtures } = yield* harness(
          { codex_apps: { spec: resources([memo]) } },
          { orchestratorMcpEnabled: false }
        )
        // T-7
        assert.deepStrictEqual(yield* list(ctx, "{}"), { output: `{"resources":[]}`, success: true })
        // T-8
        const recorder = yield* LifecycleSink.Recorder
        yield* recorder.clear
        assert.deepStrictEqual(yield* read(ctx, `{"server":"codex_apps","uri":"skill://demo/SKILL.md"}`), {
          output: disabled,
          success: false
        })
        const readItems = yield* items
        assert.deepStrictEqual(
          readItems.map((i) => [i.status, i.server, i.error]),
          [
            ["inProgress", "codex_apps", null],
            ["failed", "codex_apps", { message: disabled }]
          ]
        )
        // T-9
        assert.deepStrictEqual(yield* list(ctx, `{"server":"codex_apps"}`), { output: disabled, success: false })
        assert.deepStrictEqual(yield* templates(ctx, `{"server":"codex_apps"}`), { output: disabled, success: false })
        // T-10
        assert.deepStrictEqual(resourceRequests(fixtures.codex_apps!.requests), [])
      })
    )
  )

  it.scoped("T-11: the apps server name comes from config; the default name is then an ordinary server", () =>
    withRecorder(
      Effect.gen(function* () {
        const { ctx, fixtures } = yield* harness(
          {
            apps: { spec: resources([{ uri: "memo://apps", name: "apps" }]) },
            codex_apps: { spec: resources([{ uri: "memo://codex", name: "codex" }]) }
          },
          { config: { apps: { serverName: "apps", connectors: {} } }, orchestratorMcpEnabled: false }
        )
        assert.deepStrictEqual(yield* list(ctx, "{}"), {
          output: `{"resources":[{"server":"codex_apps","uri":"memo://codex","name":"codex"}]}`,
          success: true
        })
        assert.deepStrictEqual(yield* read(ctx, `{"server":"apps","uri":"memo://apps"}`), {
          output: "MCP server 'apps' is disabled by `orchestrator.mcp.enabled`",
          success: false
        })
        assert.deepStrictEqual(resourceRequests(fixtures.apps!.requests), [])
      })
    )
  )

  it.scoped("the gate lets the apps server through when orchestrator MCP is enabled", () =>
    withRecorder(
      Effect.gen(function* () {
        const { ctx } = yield* harness({ codex_apps: { spec: resources([memo]) } })
        assert.deepStrictEqual(yield* list(ctx, `{"server":"codex_apps"}`), {
          output: `{"server":"codex_apps","resources":[{"server":"codex_apps","uri":"memo://id","name":"memo"}]}`,
          success: true
        })
      })
    )
  )
})

describe("arguments through the handler (resource-tools.md 5, 9)", () => {
  it.scoped("A-1/A-2/A-5/A-13: no server means an aggregate list under the label codex", () =>
    withRecorder(
      Effect.gen(function* () {
        const { ctx } = yield* harness({ srv: { spec: resources([memo]) } })
        const expected = `{"resources":[{"server":"srv","uri":"memo://id","name":"memo"}]}`
        for (const args of [" \n\t", "null", `{"server":"   "}`, `{"server":null}`, "{}"]) {
          assert.deepStrictEqual(yield* list(ctx, args), { output: expected, success: true })
        }
        const started = (yield* LifecycleSink.recorded).filter((e) => e.phase === "started").map((e) => e.item)
        assert.deepStrictEqual(
          started.map((i) => [i.server, i.arguments]),
          [
            ["codex", null],
            ["codex", null],
            ["codex", { server: "   " }],
            ["codex", { server: null }],
            ["codex", {}]
          ]
        )
      })
    )
  )

  it.scoped("the aggregate label is a host option", () =>
    withRecorder(
      Effect.gen(function* () {
        const { ctx } = yield* harness({ srv: { spec: resources([memo]) } })
        yield* list({ ...ctx, aggregateServerLabel: "host" }, "{}")
        assert.deepStrictEqual(
          (yield* items).map((i) => i.server),
          ["host", "host"]
        )
      })
    )
  )

  it.scoped("A-3/A-14: a named server is listed; unknown fields are kept in the item's arguments", () =>
    withRecorder(
      Effect.gen(function* () {
        const { ctx } = yield* harness({ figma: { spec: resources([memo]) }, srv: { spec: resources([memo]) } })
        assert.isTrue((yield* list(ctx, `{"server":"figma"}`)).success)
        assert.isTrue((yield* list(ctx, `{"server":"srv","extra":1}`)).success)
        const started = (yield* LifecycleSink.recorded).filter((e) => e.phase === "started").map((e) => e.item)
        assert.deepStrictEqual(
          started.map((i) => [i.server, i.arguments]),
          [
            ["figma", { server: "figma" }],
            ["srv", { server: "srv", extra: 1 }]
          ]
        )
      })
    )
  )

  it.scoped("A-4: server and cursor are trimmed for the request; the item keeps the raw arguments", () =>
    withRecorder(
      Effect.gen(function* () {
        const { ctx, fixtures } = yield* harness({
          hosted: { spec: { resourcePages: [{ cursor: "next-page", result: { resources: [memo] } }] } }
        })
        const result = yield* list(ctx, `{"server":"  hosted  ","cursor":"  next-page  "}`)
        assert.isTrue(result.success)
        assert.deepStrictEqual(resourceRequests(fixtures.hosted!.requests), [
          { method: "resources/list", params: { cursor: "next-page" } }
        ])
        const [started] = yield* items
        assert.strictEqual(started!.server, "hosted")
        assert.deepStrictEqual(started!.arguments, { server: "  hosted  ", cursor: "  next-page  " })
      })
    )
  )

  it.scoped("A-6: a cursor without a server fails in phase 2 under the label codex", () =>
    withRecorder(
      Effect.gen(function* () {
        const { ctx } = yield* harness({ srv: { spec: resources([memo]) } })
        const message = "cursor can only be used when a server is specified"
        assert.deepStrictEqual(yield* list(ctx, `{"cursor":"abc"}`), { output: message, success: false })
        const [started, completed] = yield* items
        assert.strictEqual(started!.server, "codex")
        assert.strictEqual(completed!.status, "failed")
        assert.deepStrictEqual(completed!.error, { message })
      })
    )
  )

  it.scoped("A-7/A-21/L-3: argument failures return the message and emit no items", () =>
    withRecorder(
      Effect.gen(function* () {
        const { ctx, fixtures } = yield* harness({ srv: { spec: resources([memo]) } })
        for (const args of ["{", `{"server":`, "not json", `{"server":"a"} trailing`]) {
          assert.deepStrictEqual(yield* list(ctx, args), {
            output: "failed to parse function arguments: arguments are not valid JSON",
            success: false
          })
        }
        assert.deepStrictEqual(yield* read(ctx, `{"server":"  ","uri":"u"}`), {
          output: "server must be provided",
          success: false
        })
        assert.deepStrictEqual(yield* templates(ctx, `{"server":5}`), {
          output: `failed to parse function arguments: field "server" must be a string, got number`,
          success: false
        })
        assert.deepStrictEqual(yield* items, [])
        assert.deepStrictEqual(resourceRequests(fixtures.srv!.requests), [])
      })
    )
  )

  it.scoped("A-24: a read sends only the trimmed uri and no _meta", () =>
    withRecorder(
      Effect.gen(function* () {
        const { ctx, fixtures } = yield* harness({
          srv: { spec: { reads: [{ uri: "test://x", result: { contents: [{ uri: "test://x", text: "hi" }] } }] } }
        })
        const result = yield* read(ctx, `{"server":" srv ","uri":" test://x ","extra":true}`)
        assert.isTrue(result.success)
        assert.isTrue(result.output.startsWith(`{"server":"srv","uri":"test://x",`))
        assert.deepStrictEqual(resourceRequests(fixtures.srv!.requests), [
          { method: "resources/read", params: { uri: "test://x" } }
        ])
      })
    )
  )
})

describe("payloads and failures (resource-tools.md 7, 8)", () => {
  it.scoped("P-2/P-3: a single-server page keeps nextCursor and drops the result's _meta", () =>
    withRecorder(
      Effect.gen(function* () {
        const { ctx } = yield* harness({
          srv: {
            spec: {
              resourcePages: [
                { result: { resources: [memo], nextCursor: "cursor-1" } },
                { cursor: "c", result: { resources: [memo], _meta: { x: 1 } } }
              ]
            }
          }
        })
        assert.deepStrictEqual(yield* list(ctx, `{"server":"srv"}`), {
          output: `{"server":"srv","resources":[{"server":"srv","uri":"memo://id","name":"memo"}],"nextCursor":"cursor-1"}`,
          success: true
        })
        assert.deepStrictEqual(yield* list(ctx, `{"server":"srv","cursor":"c"}`), {
          output: `{"server":"srv","resources":[{"server":"srv","uri":"memo://id","name":"memo"}]}`,
          success: true
        })
      })
    )
  )

  it.scoped("a blank nextCursor is left out of the single-server payload", () =>
    withRecorder(
      Effect.gen(function* () {
        const { ctx } = yield* harness({ srv: { spec: resources([memo], { nextCursor: "  " }) } })
        assert.strictEqual(
          (yield* list(ctx, `{"server":"srv"}`)).output,
          `{"server":"srv","resources":[{"server":"srv","uri":"memo://id","name":"memo"}]}`
        )
      })
    )
  )

  it.scoped("P-4: an aggregate list orders servers bytewise and keeps each server's order", () =>
    withRecorder(
      Effect.gen(function* () {
        const { ctx } = yield* harness({
          beta: { spec: resources([{ uri: "memo://b-1", name: "b-1" }]) },
          alpha: {
            spec: resources([
              { uri: "memo://a-1", name: "a-1" },
              { uri: "memo://a-2", name: "a-2" }
            ])
          }
        })
        const result = yield* list(ctx, "{}")
        assert.deepStrictEqual(result, {
          output: `{"resources":[{"server":"alpha","uri":"memo://a-1","name":"a-1"},{"server":"alpha","uri":"memo://a-2","name":"a-2"},{"server":"beta","uri":"memo://b-1","name":"b-1"}]}`,
          success: true
        })
      })
    )
  )

  it.scoped("P-5/P-6: template lists, single-server and aggregate", () =>
    withRecorder(
      Effect.gen(function* () {
        const { ctx } = yield* harness({
          srv: {
            spec: { templatePages: [{ result: { resourceTemplates: [{ uriTemplate: "memo://{id}", name: "memo" }] } }] }
          },
          alpha: {
            spec: {
              templatePages: [{ result: { resourceTemplates: [{ uriTemplate: "memo://alpha/{id}", name: "alpha" }] } }]
            }
          },
          beta: {
            spec: {
              templatePages: [{ result: { resourceTemplates: [{ uriTemplate: "memo://beta/{id}", name: "beta" }] } }]
            }
          }
        })
        assert.strictEqual(
          (yield* templates(ctx, `{"server":"srv"}`)).output,
          `{"server":"srv","resourceTemplates":[{"server":"srv","uriTemplate":"memo://{id}","name":"memo"}]}`
        )
        assert.strictEqual(
          (yield* templates(ctx, "{}")).output,
          `{"resourceTemplates":[{"server":"alpha","uriTemplate":"memo://alpha/{id}","name":"alpha"},{"server":"beta","uriTemplate":"memo://beta/{id}","name":"beta"},{"server":"srv","uriTemplate":"memo://{id}","name":"memo"}]}`
        )
      })
    )
  )

  it.scoped("P-7: aggregate list reports a failing server in failedServers and still succeeds", () =>
    withRecorder(
      Effect.gen(function* () {
        const { ctx } = yield* harness({
          alpha: { spec: resources([{ uri: "memo://a-1", name: "a-1" }]) },
          beta: { spec: { resourcePages: [{ error: boom }] } }
        })
        assert.deepStrictEqual(yield* list(ctx, "{}"), {
          output:
            '{"resources":[{"server":"alpha","uri":"memo://a-1","name":"a-1"}],"failedServers":[{"server":"beta","error":"resources/list failed for `beta`: Mcp error: -32603: boom"}]}',
          success: true
        })
      })
    )
  )

  it.scoped("P-8: an aggregate list follows every page of a server in order", () =>
    withRecorder(
      Effect.gen(function* () {
        const page = (n: number) => ({ uri: `memo://p${n}`, name: `p${n}` })
        const { ctx, fixtures } = yield* harness({
          alpha: {
            spec: {
              resourcePages: [
                { result: { resources: [page(1)], nextCursor: "p2" } },
                { cursor: "p2", result: { resources: [page(2)], nextCursor: "p3" } },
                { cursor: "p3", result: { resources: [page(3)] } }
              ]
            }
          }
        })
        assert.strictEqual(
          (yield* list(ctx, "{}")).output,
          `{"resources":[{"server":"alpha","uri":"memo://p1","name":"p1"},{"server":"alpha","uri":"memo://p2","name":"p2"},{"server":"alpha","uri":"memo://p3","name":"p3"}]}`
        )
        assert.deepStrictEqual(resourceRequests(fixtures.alpha!.requests), [
          { method: "resources/list" },
          { method: "resources/list", params: { cursor: "p2" } },
          { method: "resources/list", params: { cursor: "p3" } }
        ])
      })
    )
  )

  it.scoped("P-9: entries keep only the kept fields, in the kept order", () =>
    withRecorder(
      Effect.gen(function* () {
        const { ctx } = yield* harness({
          srv: {
            spec: resources([
              { foo: 1, annotations: { priority: 1 }, size: 3, mimeType: "text/plain", name: "n", uri: "u://1" }
            ])
          }
        })
        assert.strictEqual(
          (yield* list(ctx, `{"server":"srv"}`)).output,
          `{"server":"srv","resources":[{"server":"srv","uri":"u://1","name":"n","mimeType":"text/plain","size":3,"annotations":{"priority":1}}]}`
        )
      })
    )
  )

  it.scoped("P-10: a read payload keeps text and blob contents, blobs as base64", () =>
    withRecorder(
      Effect.gen(function* () {
        const { ctx } = yield* harness({
          srv: {
            spec: {
              reads: [
                {
                  uri: "test://x",
                  result: {
                    contents: [
                      { uri: "test://x", mimeType: "text/plain", text: "hi" },
                      { uri: "test://x.bin", blob: "AAE=" }
                    ]
                  }
                }
              ]
            }
          }
        })
        assert.deepStrictEqual(yield* read(ctx, `{"server":"srv","uri":"test://x"}`), {
          output: `{"server":"srv","uri":"test://x","contents":[{"uri":"test://x","mimeType":"text/plain","text":"hi"},{"uri":"test://x.bin","blob":"AAE="}]}`,
          success: true
        })
      })
    )
  )

  it.scoped("P-11/P-12/L-2: server errors become the tool's message chain and a failed item", () =>
    withRecorder(
      Effect.gen(function* () {
        const { ctx } = yield* harness({
          srv: { spec: { resourcePages: [{ error: boom }], templatePages: [{ error: boom }] } }
        })
        const listed = yield* list(ctx, `{"server":"srv"}`)
        assert.deepStrictEqual(listed, {
          output: "resources/list failed: resources/list failed for `srv`: Mcp error: -32603: boom",
          success: false
        })
        const [, completed] = yield* items
        assert.strictEqual(completed!.status, "failed")
        assert.isNull(completed!.result)
        assert.deepStrictEqual(completed!.error, { message: listed.output })
        assert.deepStrictEqual(yield* templates(ctx, `{"server":"srv"}`), {
          output: "resources/templates/list failed: resources/templates/list failed for `srv`: Mcp error: -32603: boom",
          success: false
        })
      })
    )
  )

  it.scoped("P-13: a read error carries the uri in its chain", () =>
    withRecorder(
      Effect.gen(function* () {
        const { ctx } = yield* harness({
          srv: {
            spec: { reads: [{ uri: "test://x", error: { code: -32002, message: "resource not found: test://x" } }] }
          }
        })
        assert.deepStrictEqual(yield* read(ctx, `{"server":"srv","uri":"test://x"}`), {
          output:
            "resources/read failed: resources/read failed for `srv` (test://x): Mcp error: -32002: resource not found: test://x",
          success: false
        })
      })
    )
  )

  it.scoped("P-14: an unknown server fails the list", () =>
    withRecorder(
      Effect.gen(function* () {
        const { ctx } = yield* harness({ srv: { spec: resources([memo]) } })
        assert.deepStrictEqual(yield* list(ctx, `{"server":"nope"}`), {
          output: "resources/list failed: unknown MCP server 'nope'",
          success: false
        })
      })
    )
  )

  it.scoped("P-15: a cursor is sent as params; without one no params object is sent", () =>
    withRecorder(
      Effect.gen(function* () {
        const { ctx, fixtures } = yield* harness({
          srv: { spec: { resourcePages: [{ cursor: "c2", result: { resources: [] } }, { result: { resources: [] } }] } }
        })
        yield* list(ctx, `{"server":"srv","cursor":"c2"}`)
        yield* list(ctx, `{"server":"srv"}`)
        assert.deepStrictEqual(resourceRequests(fixtures.srv!.requests), [
          { method: "resources/list", params: { cursor: "c2" } },
          { method: "resources/list" }
        ])
      })
    )
  )

  it.scoped("P-16: a read that never answers times out after tool_timeout_sec", () =>
    withRecorder(
      Effect.gen(function* () {
        const { ctx, fixtures } = yield* harness({
          srv: { spec: { reads: [{ uri: "test://slow", hang: true }] }, options: { toolTimeoutSec: 1 } }
        })
        const fiber = yield* Effect.fork(read(ctx, `{"server":"srv","uri":"test://slow"}`))
        yield* waitUntil(() => resourceRequests(fixtures.srv!.requests).length === 1)
        yield* TestClock.adjust("1 second")
        assert.deepStrictEqual(yield* Fiber.join(fiber), {
          output:
            "resources/read failed: resources/read failed for `srv` (test://slow): timed out awaiting resources/read after 1s",
          success: false
        })
      })
    )
  )

  it.scoped("P-17: a server failed at startup appears in failedServers", () =>
    withRecorder(
      Effect.gen(function* () {
        const { ctx } = yield* harness({
          alpha: { spec: resources([{ uri: "memo://a-1", name: "a-1" }]) },
          beta: { failWith: "spawn failed" }
        })
        const output = JSON.parse((yield* list(ctx, "{}")).output)
        assert.deepStrictEqual(output.failedServers, [{ server: "beta", error: "failed to get client: spawn failed" }])
      })
    )
  )
})

describe("lifecycle items and truncation (resource-tools.md 9, 10)", () => {
  it.scoped("L-1: a successful read emits started then completed with the output as text", () =>
    withRecorder(
      Effect.gen(function* () {
        const { ctx } = yield* harness({
          srv: { spec: { reads: [{ uri: "test://x", result: { contents: [{ uri: "test://x", text: "hi" }] } }] } }
        })
        const result = yield* read(ctx, `{"server":"srv","uri":"test://x"}`)
        const events = yield* LifecycleSink.recorded
        assert.deepStrictEqual(
          events.map((e) => e.phase),
          ["started", "completed"]
        )
        assert.strictEqual(
          JSON.stringify(events[0]!.item),
          JSON.stringify({
            type: "mcpToolCall",
            id: "c-1",
            server: "srv",
            tool: "read_mcp_resource",
            arguments: { server: "srv", uri: "test://x" },
            status: "inProgress",
            result: null,
            error: null,
            durationMs: null
          })
        )
        const completed = events[1]!.item
        assert.strictEqual(
          JSON.stringify(completed),
          JSON.stringify({
            type: "mcpToolCall",
            id: "c-1",
            server: "srv",
            tool: "read_mcp_resource",
            arguments: { server: "srv", uri: "test://x" },
            status: "completed",
            result: { content: [{ type: "text", text: result.output }], isError: false },
            error: null,
            durationMs: completed.durationMs
          })
        )
        assert.isTrue(Number.isInteger(completed.durationMs) && completed.durationMs! >= 0)
      })
    )
  )

  const bigRead = { uri: "skill://large/SKILL.md", mimeType: "text/markdown", text: "x".repeat(16000) }

  it.scoped(
    "R-20/L-4: a configured bytes 8000 policy truncates the read like R-15; the item text equals the output",
    () =>
      withRecorder(
        Effect.gen(function* () {
          const { ctx } = yield* harness(
            { hosted: { spec: { reads: [{ uri: bigRead.uri, result: { contents: [bigRead] } }] } } },
            { config: { truncation: { mode: "bytes", limit: 8000 } } }
          )
          const result = yield* read(ctx, `{"server":"hosted","uri":"skill://large/SKILL.md"}`)
          const payload = `{"server":"hosted","uri":"skill://large/SKILL.md","contents":[${JSON.stringify(bigRead)}]}`
          assert.strictEqual(result.output, Truncation.truncateText(payload, { mode: "bytes", limit: 9600 }))
          assert.include(result.output, "…6533 chars truncated…")
          const [, completed] = yield* items
          assert.deepStrictEqual(completed!.result, {
            content: [{ type: "text", text: result.output }],
            isError: false
          })
        })
      )
  )

  it.scoped("R-21: with the default policy a large list is cut to 48000 bytes plus the tokens marker", () =>
    withRecorder(
      Effect.gen(function* () {
        const many = Array.from({ length: 600 }, (_, i) => ({ uri: `memo://${i}`, name: `${"n".repeat(100)}${i}` }))
        const { ctx } = yield* harness({ srv: { spec: resources(many) } })
        const result = yield* list(ctx, `{"server":"srv"}`)
        assert.isTrue(result.success)
        const marker = /…\d+ tokens truncated…/u.exec(result.output)
        assert.isNotNull(marker)
        assert.isAtMost(Buffer.byteLength(result.output), 48000 + Buffer.byteLength(marker![0]))
      })
    )
  )

  it.scoped("a failure message is returned verbatim, not truncated", () =>
    withRecorder(
      Effect.gen(function* () {
        const { ctx } = yield* harness(
          { srv: { spec: resources([memo]) } },
          { config: { truncation: { mode: "bytes", limit: 1 } } }
        )
        assert.strictEqual(
          (yield* list(ctx, `{"server":"nope"}`)).output,
          "resources/list failed: unknown MCP server 'nope'"
        )
      })
    )
  )
})
