import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { type FixtureSpec, readLog, stdioCommand } from "@mcp-resources/fixtures"
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
  waitServers,
  waitSettled,
  writeConfig
} from "./utils/AppServerProcess.js"

const srvSpec = (extra: Partial<FixtureSpec> = {}): FixtureSpec => ({
  name: "srv",
  resourcePages: [{ result: { resources: [{ uri: "memo://id", name: "memo" }] } }],
  reads: [{ uri: "test://x", result: { contents: [{ uri: "test://x", mimeType: "text/plain", text: "hi" }] } }],
  tools: [{ name: "slow", hang: true }],
  ...extra
})

const server = (spec: FixtureSpec, options: { logFile?: string; enabled?: boolean } = {}) => ({
  ...stdioCommand(spec, options.logFile !== undefined ? { logFile: options.logFile } : undefined),
  ...(options.enabled !== undefined ? { enabled: options.enabled } : {})
})

const call = (app: AppServer, threadId: string, callId: string, name: string, args: string, turnId = "t1") =>
  Effect.map(app.request("tool/call", { threadId, turnId, callId, name, arguments: args }), resultOf)

const toolNames = (app: AppServer, threadId: string) =>
  Effect.map(app.request("tool/list", { threadId }), (m) =>
    (resultOf(m).tools as Array<{ name: string }>).map((t) => t.name)
  )

const itemsOf = (app: AppServer, callId: string): Array<Message> =>
  app.messages.filter(
    (m) =>
      (m.method === "item/started" || m.method === "item/completed") &&
      (m.params as { item: { id: string } }).item.id === callId
  )

const resourceToolNames = ["list_mcp_resources", "list_mcp_resource_templates", "read_mcp_resource"]

describe("tool specs and registration", () => {
  it.scopedLive("T-1: one enabled server lists the three resource tools first, byte for byte", () =>
    Effect.gen(function* () {
      const config = writeConfig(tempDir(), { mcp_servers: { srv: server(srvSpec()) } })
      const app = yield* startInitialized({ config })
      const { threadId } = yield* threadWithTurn(app)
      const tools = resultOf(yield* app.request("tool/list", { threadId })).tools as Array<unknown>
      assert.strictEqual(JSON.stringify(tools.slice(0, 3)), JSON.stringify(ToolSpecs.resourceToolSpecs))
      assert.deepStrictEqual(
        tools.slice(3).map((t) => (t as { name: string }).name),
        ["mcp__srv__slow"]
      )
    })
  )

  it.scopedLive("T-2, T-3: an empty config lists none of the three tools and refuses their calls without items", () =>
    Effect.gen(function* () {
      const app = yield* startInitialized({})
      const { threadId } = yield* threadWithTurn(app)
      assert.deepStrictEqual(yield* toolNames(app, threadId), [])
      assert.deepStrictEqual(yield* call(app, threadId, "c1", "list_mcp_resources", "{}"), {
        callId: "c1",
        output: "unsupported call: list_mcp_resources",
        success: false
      })
      assert.deepStrictEqual(itemsOf(app, "c1"), [])
    })
  )

  it.scopedLive(
    "T-4, T-5: a disabled-only config lists none; a server that failed to start still gets the three tools",
    () =>
      Effect.gen(function* () {
        const dir = tempDir()
        const disabled = writeConfig(dir, { mcp_servers: { off: server(srvSpec(), { enabled: false }) } }, "off.json")
        const a = yield* startInitialized({ config: disabled })
        const ta = yield* threadWithTurn(a)
        assert.deepStrictEqual(yield* toolNames(a, ta.threadId), [])
        const broken = writeConfig(
          dir,
          { mcp_servers: { broken: { command: join(dir, "no-such-command") } } },
          "broken.json"
        )
        const b = yield* startInitialized({ config: broken })
        const tb = yield* threadWithTurn(b)
        assert.deepStrictEqual(yield* toolNames(b, tb.threadId), resourceToolNames)
      })
  )

  it.scopedLive("T-6: a reload reaches a thread's tools only at its next turn/start", () =>
    Effect.gen(function* () {
      const dir = tempDir()
      const config = writeConfig(dir, { mcp_servers: {} })
      const app = yield* startInitialized({ config })
      const { threadId } = yield* threadWithTurn(app)
      writeConfig(dir, { mcp_servers: { srv: server(srvSpec()) } })
      assert.deepStrictEqual(resultOf(yield* app.request("config/mcpServer/reload", {})), {})
      assert.deepStrictEqual(yield* toolNames(app, threadId), [])
      yield* app.request("turn/start", { threadId, turnId: "t2" })
      assert.deepStrictEqual((yield* toolNames(app, threadId)).slice(0, 3), resourceToolNames)
    })
  )

  it.scopedLive(
    "T-7..T-10: orchestratorMcpEnabled false hides codex_apps from the resource tools without any request",
    () =>
      Effect.gen(function* () {
        const dir = tempDir()
        const logFile = join(dir, "apps.log")
        const config = writeConfig(dir, {
          mcp_servers: { codex_apps: server(srvSpec({ name: "codex_apps" }), { logFile }) }
        })
        const app = yield* startInitialized({ config })
        const { threadId } = yield* threadWithTurn(app, { config: { orchestratorMcpEnabled: false } })
        assert.deepStrictEqual(yield* call(app, threadId, "c7", "list_mcp_resources", "{}"), {
          callId: "c7",
          output: '{"resources":[]}',
          success: true
        })
        const disabled = "MCP server 'codex_apps' is disabled by `orchestrator.mcp.enabled`"
        const t8 = yield* call(
          app,
          threadId,
          "c8",
          "read_mcp_resource",
          '{"server":"codex_apps","uri":"skill://demo/SKILL.md"}'
        )
        assert.deepStrictEqual(t8, { callId: "c8", output: disabled, success: false })
        const items = itemsOf(app, "c8").map((m) => [m.method, (m.params as { item: { status: string } }).item.status])
        assert.deepStrictEqual(items, [
          ["item/started", "inProgress"],
          ["item/completed", "failed"]
        ])
        const t9 = yield* call(app, threadId, "c9", "list_mcp_resources", '{"server":"codex_apps"}')
        assert.deepStrictEqual(t9, { callId: "c9", output: disabled, success: false })
        const methods = readLog(logFile).map((r) => r.method)
        assert.deepStrictEqual(
          methods.filter((m) => m.startsWith("resources/")),
          []
        )
      })
  )

  it.scopedLive("T-11: with apps.server_name = apps, codex_apps is an ordinary server and apps is excluded", () =>
    Effect.gen(function* () {
      const dir = tempDir()
      const spec = (name: string): FixtureSpec => ({
        name,
        resourcePages: [{ result: { resources: [{ uri: `memo://${name}`, name }] } }]
      })
      const config = writeConfig(dir, {
        apps: { server_name: "apps" },
        mcp_servers: { apps: server(spec("apps")), codex_apps: server(spec("codex_apps")) }
      })
      const app = yield* startInitialized({ config })
      const { threadId } = yield* threadWithTurn(app, { config: { orchestratorMcpEnabled: false } })
      yield* waitSettled(app)
      const listed = yield* call(app, threadId, "c1", "list_mcp_resources", "{}")
      assert.strictEqual(
        listed.output,
        '{"resources":[{"server":"codex_apps","uri":"memo://codex_apps","name":"codex_apps"}]}'
      )
      const read = yield* call(app, threadId, "c2", "read_mcp_resource", '{"server":"apps","uri":"memo://apps"}')
      assert.strictEqual(read.output, "MCP server 'apps' is disabled by `orchestrator.mcp.enabled`")
    })
  )
})

describe("items and tool calls", () => {
  it.scopedLive("L-1: a successful read sends item/started then item/completed, both before the response", () =>
    Effect.gen(function* () {
      const config = writeConfig(tempDir(), { mcp_servers: { srv: server(srvSpec()) } })
      const app = yield* startInitialized({ config })
      const { threadId } = yield* threadWithTurn(app)
      const id = yield* app.send("tool/call", {
        threadId,
        turnId: "t1",
        callId: "c-1",
        name: "read_mcp_resource",
        arguments: '{"server":"srv","uri":"test://x"}'
      })
      const response = yield* app.response(id)
      const result = resultOf(response) as { output: string; success: boolean }
      assert.strictEqual(
        result.output,
        '{"server":"srv","uri":"test://x","contents":[{"uri":"test://x","mimeType":"text/plain","text":"hi"}]}'
      )
      const items = itemsOf(app, "c-1")
      assert.deepStrictEqual(
        items.map((m) => m.method),
        ["item/started", "item/completed"]
      )
      for (const item of items) assert.isBelow(app.messages.indexOf(item), app.messages.indexOf(response))
      assert.deepStrictEqual(items[0]!.params, {
        threadId,
        turnId: "t1",
        item: {
          type: "mcpToolCall",
          id: "c-1",
          server: "srv",
          tool: "read_mcp_resource",
          arguments: { server: "srv", uri: "test://x" },
          status: "inProgress",
          result: null,
          error: null,
          durationMs: null
        }
      })
      const completed = (items[1]!.params as { item: Record<string, unknown> }).item
      assert.strictEqual(completed.status, "completed")
      assert.deepStrictEqual(completed.result, { content: [{ type: "text", text: result.output }], isError: false })
      assert.strictEqual(completed.error, null)
      assert.isTrue(Number.isInteger(completed.durationMs) && (completed.durationMs as number) >= 0)
      for (const key of ["connectorId", "linkId", "mcpAppResourceUri"]) assert.notProperty(completed, key)
      assert.deepStrictEqual(Object.keys(completed), [
        "type",
        "id",
        "server",
        "tool",
        "arguments",
        "status",
        "result",
        "error",
        "durationMs"
      ])
    })
  )

  it.scopedLive(
    "A-1, A-6, L-3: blank arguments list everything as codex; a cursor alone fails with items; bad JSON has none",
    () =>
      Effect.gen(function* () {
        const config = writeConfig(tempDir(), { mcp_servers: { srv: server(srvSpec()) } })
        const app = yield* startInitialized({ config })
        const { threadId } = yield* threadWithTurn(app)
        yield* waitSettled(app)
        const a1 = yield* call(app, threadId, "a1", "list_mcp_resources", " \n\t")
        assert.deepStrictEqual(a1, {
          callId: "a1",
          output: '{"resources":[{"server":"srv","uri":"memo://id","name":"memo"}]}',
          success: true
        })
        const a1Items = itemsOf(app, "a1").map(
          (m) => (m.params as { item: { server: string; arguments: unknown } }).item
        )
        assert.deepStrictEqual(
          a1Items.map((i) => [i.server, i.arguments]),
          [
            ["codex", null],
            ["codex", null]
          ]
        )
        const a6 = yield* call(app, threadId, "a6", "list_mcp_resources", '{"cursor":"abc"}')
        assert.deepStrictEqual(a6, {
          callId: "a6",
          output: "cursor can only be used when a server is specified",
          success: false
        })
        const a6Items = itemsOf(app, "a6").map((m) => (m.params as { item: { server: string; status: string } }).item)
        assert.deepStrictEqual(
          a6Items.map((i) => [i.server, i.status]),
          [
            ["codex", "inProgress"],
            ["codex", "failed"]
          ]
        )
        const a7 = yield* call(app, threadId, "a7", "list_mcp_resources", '{"server":')
        assert.deepStrictEqual(a7.output, "failed to parse function arguments: arguments are not valid JSON")
        const a21 = yield* call(app, threadId, "a21", "read_mcp_resource", '{"server":"  ","uri":"u"}')
        assert.deepStrictEqual(a21.output, "server must be provided")
        assert.deepStrictEqual(itemsOf(app, "a7"), [])
        assert.deepStrictEqual(itemsOf(app, "a21"), [])
      })
  )

  it.scopedLive("a callId that already produced items in the thread is duplicate callId: {callId}", () =>
    Effect.gen(function* () {
      const config = writeConfig(tempDir(), { mcp_servers: { srv: server(srvSpec()) } })
      const app = yield* startInitialized({ config })
      const { threadId } = yield* threadWithTurn(app)
      yield* call(app, threadId, "c1", "list_mcp_resources", "{}")
      assert.deepStrictEqual(
        errorOf(
          yield* app.request("tool/call", {
            threadId,
            turnId: "t1",
            callId: "c1",
            name: "list_mcp_resources",
            arguments: ""
          })
        ),
        { code: -32600, message: "duplicate callId: c1" }
      )
      // A call without items (phase 1 failure) leaves its id free.
      yield* call(app, threadId, "c2", "list_mcp_resources", "{")
      const again = yield* call(app, threadId, "c2", "list_mcp_resources", "{}")
      assert.isTrue(again.success as boolean)
    })
  )

  it.scopedLive(
    "$/cancelRequest answers Request cancelled and completes the call's item as failed with cancelled",
    () =>
      Effect.gen(function* () {
        const config = writeConfig(tempDir(), { mcp_servers: { srv: server(srvSpec()) } })
        const app = yield* startInitialized({ config })
        const { threadId } = yield* threadWithTurn(app)
        const id = yield* app.send("tool/call", {
          threadId,
          turnId: "t1",
          callId: "slow-1",
          name: "mcp__srv__slow",
          arguments: "{}"
        })
        yield* app.waitFor((m) => m.method === "item/started")
        yield* app.notify("$/cancelRequest", { id })
        assert.deepStrictEqual(errorOf(yield* app.response(id)), { code: -32800, message: "Request cancelled" })
        const completed = yield* app.waitFor((m) => m.method === "item/completed")
        const item = (completed.params as { item: Record<string, unknown> }).item
        assert.strictEqual(item.status, "failed")
        assert.deepStrictEqual(item.error, { message: "cancelled" })
        assert.strictEqual(item.result, null)
        // The thread keeps working.
        assert.isTrue((yield* call(app, threadId, "c2", "list_mcp_resources", "{}")).success as boolean)
      })
  )
})

describe("connection runtime", () => {
  it.scopedLive("C-2, C-3: a server that exits is failed; a reload and turn/start bring it back", () =>
    Effect.gen(function* () {
      const config = writeConfig(tempDir(), { mcp_servers: { srv: server(srvSpec({ exitAfterMs: 1500 })) } })
      const app = yield* startInitialized({ config })
      const { threadId } = yield* threadWithTurn(app)
      const status = (yield* waitServers(app, (servers) => servers[0]?.status === "failed", "srv to fail")) as Array<{
        name: string
        status: string
        transport: string
        error?: string
      }>
      assert.strictEqual(status[0]!.status, "failed")
      assert.strictEqual(status[0]!.transport, "stdio")
      assert.isString(status[0]!.error)
      const failed = yield* call(app, threadId, "c1", "list_mcp_resources", '{"server":"srv"}')
      assert.isTrue((failed.output as string).startsWith("resources/list failed: failed to get client: "))
      // C-3: the reloaded server lives long enough for one more list.
      yield* app.request("config/mcpServer/reload", {})
      yield* app.request("turn/start", { threadId, turnId: "t2" })
      const again = yield* call(app, threadId, "c2", "list_mcp_resources", '{"server":"srv"}', "t2")
      assert.deepStrictEqual(
        again.output,
        '{"server":"srv","resources":[{"server":"srv","uri":"memo://id","name":"memo"}]}'
      )
    })
  )

  it.scopedLive("C-4: a reload with an invalid config is an error response and the old set keeps working", () =>
    Effect.gen(function* () {
      const dir = tempDir()
      const config = writeConfig(dir, { mcp_servers: { srv: server(srvSpec()) } })
      const app = yield* startInitialized({ config })
      const { threadId } = yield* threadWithTurn(app)
      writeFileSync(config, '{"mcp_servers":{"bad name":{"command":"x"}}}')
      const error = errorOf(yield* app.request("config/mcpServer/reload", {}))
      assert.strictEqual(error.code, -32603)
      assert.include(error.message, config)
      assert.include(error.message, "mcp_servers.bad name")
      const servers = resultOf(yield* app.request("mcpServer/list", {})).servers as Array<{ name: string }>
      assert.deepStrictEqual(
        servers.map((s) => s.name),
        ["srv"]
      )
      yield* app.request("turn/start", { threadId, turnId: "t2" })
      assert.isTrue(
        (yield* call(app, threadId, "c1", "list_mcp_resources", '{"server":"srv"}', "t2")).success as boolean
      )
    })
  )

  it.scopedLive("C-6: a disabled server is listed disabled and is unknown to the tools", () =>
    Effect.gen(function* () {
      const config = writeConfig(tempDir(), {
        mcp_servers: { off: server(srvSpec(), { enabled: false }), srv: server(srvSpec()) }
      })
      const app = yield* startInitialized({ config })
      const { threadId } = yield* threadWithTurn(app)
      const servers = resultOf(yield* app.request("mcpServer/list", {})).servers as Array<Record<string, unknown>>
      assert.deepStrictEqual(servers[0], { name: "off", status: "disabled", transport: "stdio" })
      const output = yield* call(app, threadId, "c1", "list_mcp_resources", '{"server":"off"}')
      assert.strictEqual(output.output, "resources/list failed: unknown MCP server 'off'")
    })
  )

  it.scopedLive("reload adds and removes servers; mcpServer/list shows no secrets", () =>
    Effect.gen(function* () {
      const dir = tempDir()
      const config = writeConfig(dir, {
        mcp_servers: {
          srv: { ...server(srvSpec()), env: { SECRET_VALUE: "s3cr3t-env" } },
          web: { url: "http://127.0.0.1:9/mcp", http_headers: { "X-Token": "s3cr3t-header" }, startup_timeout_sec: 1 }
        }
      })
      const app = yield* startInitialized({ config })
      const listed = yield* app.request("mcpServer/list", {})
      assert.deepStrictEqual(
        (resultOf(listed).servers as Array<{ name: string; transport: string }>).map((s) => [s.name, s.transport]),
        [
          ["srv", "stdio"],
          ["web", "http"]
        ]
      )
      writeConfig(dir, { mcp_servers: { alpha: server(srvSpec()) } })
      yield* app.request("config/mcpServer/reload", {})
      const after = resultOf(yield* app.request("mcpServer/list", {})).servers as Array<{ name: string }>
      assert.deepStrictEqual(
        after.map((s) => s.name),
        ["alpha"]
      )
      const everything = app.lines.join("\n") + app.stderr()
      assert.notInclude(everything, "s3cr3t-env")
      assert.notInclude(everything, "s3cr3t-header")
    })
  )
})

describe("ordering and shutdown", () => {
  it.scopedLive("turn/start waits for the thread's earlier tool calls; tool/list and reads do not", () =>
    Effect.gen(function* () {
      const config = writeConfig(tempDir(), { mcp_servers: { srv: server(srvSpec()) } })
      const app = yield* startInitialized({ config })
      const { threadId } = yield* threadWithTurn(app)
      const slow = yield* app.send("tool/call", {
        threadId,
        turnId: "t1",
        callId: "s1",
        name: "mcp__srv__slow",
        arguments: ""
      })
      yield* app.waitFor((m) => m.method === "item/started")
      const turn = yield* app.send("turn/start", { threadId, turnId: "t2" })
      // Not queued: answered while the call still runs.
      resultOf(yield* app.request("tool/list", { threadId }))
      resultOf(yield* app.request("mcp/resource/read", { threadId, server: "srv", uri: "test://x" }))
      assert.isUndefined(app.messages.find((m) => m.id === turn))
      yield* app.notify("$/cancelRequest", { id: slow })
      yield* app.response(slow)
      assert.deepStrictEqual(resultOf(yield* app.response(turn)), { turn: { id: "t2" } })
      const order = app.messages.map((m) => (m.id === turn ? "turn" : m.method === "item/completed" ? "completed" : ""))
      assert.isBelow(order.indexOf("completed"), order.indexOf("turn"))
    })
  )

  it.scopedLive(
    "on end of input an in-flight request gets at most 5 s, then server shutting down, and the server exits 0",
    () =>
      Effect.gen(function* () {
        const config = writeConfig(tempDir(), { mcp_servers: { srv: server(srvSpec()) } })
        const app = yield* startInitialized({ config })
        const { threadId } = yield* threadWithTurn(app)
        const slow = yield* app.send("tool/call", {
          threadId,
          turnId: "t1",
          callId: "s1",
          name: "mcp__srv__slow",
          arguments: ""
        })
        yield* app.waitFor((m) => m.method === "item/started")
        yield* app.endInput
        assert.deepStrictEqual(errorOf(yield* app.response(slow, "15 seconds")), {
          code: -32603,
          message: "server shutting down"
        })
        assert.strictEqual(yield* app.exited(), 0)
      })
  )

  it.scopedLive(
    "cancelled, answered and hanging requests side by side: each is answered exactly once, later ones still run",
    () =>
      Effect.gen(function* () {
        const config = writeConfig(tempDir(), { mcp_servers: { srv: server(srvSpec()) } })
        const app = yield* startInitialized({ config })
        const threads: Array<string> = []
        for (let i = 0; i < 12; i++) threads.push((yield* threadWithTurn(app)).threadId)
        // one hanging call per thread, then half of them cancelled
        const calls: Array<number> = []
        for (const [i, threadId] of threads.entries()) {
          calls.push(
            yield* app.send("tool/call", {
              threadId,
              turnId: "t1",
              callId: `h${i}`,
              name: "mcp__srv__slow",
              arguments: ""
            })
          )
        }
        yield* app.waitFor((m) => m.method === "item/started" && app.notifications("item/started").length === 12)
        const cancelled = calls.slice(0, 6)
        const hanging = calls.slice(6)
        for (const id of cancelled) yield* app.notify("$/cancelRequest", { id })
        for (const id of cancelled) {
          assert.deepStrictEqual(errorOf(yield* app.response(id)), { code: -32800, message: "Request cancelled" })
        }
        // 200 reads in flight at once, over every thread, while six calls still hang
        const reads: Array<number> = []
        for (let i = 0; i < 200; i++) {
          reads.push(
            yield* app.send("mcp/resource/read", { threadId: threads[i % 12], server: "srv", uri: "test://x" })
          )
        }
        for (const id of reads) {
          const contents = resultOf(yield* app.response(id)).contents as Array<{ text: string }>
          assert.strictEqual(contents[0]?.text, "hi")
        }
        // a cancel after the answer changes nothing
        yield* app.notify("$/cancelRequest", { id: reads[0] })
        assert.isTrue((yield* call(app, threads[0]!, "after", "list_mcp_resources", "{}")).success as boolean)
        yield* app.endInput
        for (const id of hanging) {
          assert.deepStrictEqual(errorOf(yield* app.response(id, "15 seconds")), {
            code: -32603,
            message: "server shutting down"
          })
        }
        assert.strictEqual(yield* app.exited(), 0)
        const answers = new Map<unknown, number>()
        for (const m of app.messages) if (m.id !== undefined) answers.set(m.id, (answers.get(m.id) ?? 0) + 1)
        for (const id of [...calls, ...reads]) assert.strictEqual(answers.get(id), 1, `answers to request ${id}`)
      })
  )
})
