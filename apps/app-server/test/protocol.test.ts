import { execFileSync } from "node:child_process"
import { assert, describe, it } from "@effect/vitest"
import { directReadSpec, stdioCommand } from "@mcp-resources/fixtures"
import { Effect } from "effect"
import {
  errorOf,
  resultOf,
  start,
  startInitialized,
  tempDir,
  threadWithTurn,
  writeConfig
} from "./utils/AppServerProcess.js"

const isJsonRpc = (line: string): boolean => {
  try {
    const m = JSON.parse(line) as Record<string, unknown>
    return m.jsonrpc === "2.0" && ("id" in m || "method" in m)
  } catch {
    return false
  }
}

describe("framing and check order", () => {
  it.scopedLive("a line that is not JSON is a Parse error with id null, and the server keeps running", () =>
    Effect.gen(function* () {
      const server = yield* startInitialized({})
      yield* server.sendLine("{not json")
      const error = yield* server.waitFor((m) => m.id === null)
      assert.deepStrictEqual(error, { jsonrpc: "2.0", id: null, error: { code: -32700, message: "Parse error" } })
      assert.deepStrictEqual(resultOf(yield* server.request("thread/list", {})), { threads: [] })
    })
  )

  it.scopedLive(
    "a batch array and messages of the wrong shape are Invalid request, with the id when it was valid",
    () =>
      Effect.gen(function* () {
        const server = yield* startInitialized({})
        yield* server.sendLine(JSON.stringify([{ jsonrpc: "2.0", id: 50, method: "thread/list" }]))
        const batch = yield* server.waitFor((m) => m.id === null)
        assert.deepStrictEqual(batch.error, { code: -32600, message: "Invalid request" })
        yield* server.sendLine(JSON.stringify({ jsonrpc: "2.0", id: 51, method: 5 }))
        assert.deepStrictEqual(errorOf(yield* server.response(51)), { code: -32600, message: "Invalid request" })
        yield* server.sendLine(JSON.stringify({ jsonrpc: "1.0", id: "s", method: "thread/list" }))
        assert.deepStrictEqual(errorOf(yield* server.response("s")), { code: -32600, message: "Invalid request" })
        yield* server.sendLine(JSON.stringify({ id: 52, method: "thread/list", params: 3 }))
        assert.deepStrictEqual(errorOf(yield* server.response(52)), { code: -32600, message: "Invalid request" })
        // Incoming messages may omit "jsonrpc".
        yield* server.sendLine(JSON.stringify({ id: 53, method: "thread/list" }))
        assert.deepStrictEqual(resultOf(yield* server.response(53)), { threads: [] })
      })
  )

  it.scopedLive("requests before initialize are Not initialized; a second initialize is Already initialized", () =>
    Effect.gen(function* () {
      const server = yield* start({ args: ["--data-dir", tempDir()] })
      assert.deepStrictEqual(errorOf(yield* server.request("thread/list", {})), {
        code: -32600,
        message: "Not initialized"
      })
      // initialized comes before method: an unknown method is refused as not initialized too.
      assert.deepStrictEqual(errorOf(yield* server.request("no/such", {})), {
        code: -32600,
        message: "Not initialized"
      })
      const init = resultOf(yield* server.request("initialize", { clientInfo: { name: "t", version: "1" } }))
      assert.deepStrictEqual(init, {
        serverInfo: { name: "mcp-resources-app-server", version: "0.1.0" },
        protocolVersion: 1
      })
      assert.deepStrictEqual(errorOf(yield* server.request("initialize", { clientInfo: { name: "t" } })), {
        code: -32600,
        message: "Already initialized"
      })
    })
  )

  it.scopedLive(
    "initialize with bad params is Invalid request naming the field and leaves the connection uninitialized",
    () =>
      Effect.gen(function* () {
        const server = yield* start({ args: ["--data-dir", tempDir()] })
        const error = errorOf(yield* server.request("initialize", {}))
        assert.strictEqual(error.code, -32600)
        assert.match(error.message, /^Invalid request: .*clientInfo/)
        yield* server.initialize
      })
  )

  it.scopedLive("an unknown method is Method not found: {method}; notifications are never answered", () =>
    Effect.gen(function* () {
      const server = yield* startInitialized({})
      yield* server.notify("initialized")
      yield* server.notify("some/notification", { x: 1 })
      assert.deepStrictEqual(errorOf(yield* server.request("tools/list", {})), {
        code: -32601,
        message: "Method not found: tools/list"
      })
      assert.strictEqual(server.messages.filter((m) => m.method === undefined && m.id === undefined).length, 0)
      assert.strictEqual(server.messages.length, 2)
    })
  )

  it.scopedLive("params that do not match are Invalid request: {detail} naming the offending field", () =>
    Effect.gen(function* () {
      const server = yield* startInitialized({})
      const e1 = errorOf(yield* server.request("thread/rollback", { threadId: "x", numTurns: -1 }))
      assert.strictEqual(e1.code, -32600)
      assert.match(e1.message, /^Invalid request: .*numTurns/)
      const e2 = errorOf(yield* server.request("skills/read", { threadId: "x", resource: "r" }))
      assert.match(e2.message, /^Invalid request: .*"package"/)
      const e3 = errorOf(
        yield* server.request("tool/call", { threadId: "x", turnId: "t", callId: "c", name: "n", arguments: null })
      )
      assert.match(e3.message, /^Invalid request: .*arguments/)
      const e4 = errorOf(yield* server.request("thread/start", { config: { truncation: { mode: "lines", limit: 1 } } }))
      assert.match(e4.message, /^Invalid request: .*config\.truncation\.mode/)
    })
  )

  it.scopedLive("a line over 8 MiB is Request too large with id null, and the server still answers", () =>
    Effect.gen(function* () {
      const server = yield* startInitialized({})
      const big = `{"id":99,"method":"thread/list","params":{"pad":"${"x".repeat(9 * 1024 * 1024)}"}}`
      yield* server.sendLine(big)
      const error = yield* server.waitFor((m) => m.id === null)
      assert.deepStrictEqual(error.error, { code: -32600, message: "Request too large" })
      assert.isUndefined(server.messages.find((m) => m.id === 99))
      assert.deepStrictEqual(resultOf(yield* server.request("thread/list", {})), { threads: [] })
    })
  )

  it.scopedLive("every stdout line is a JSON-RPC message, even with debug logging", () =>
    Effect.gen(function* () {
      const dir = tempDir()
      const config = writeConfig(dir, { mcp_servers: { codex_apps: stdioCommand(directReadSpec()) } })
      const server = yield* startInitialized({ config })
      const { threadId } = yield* threadWithTurn(server)
      yield* server.request("tool/call", {
        threadId,
        turnId: "t1",
        callId: "c1",
        name: "list_mcp_resources",
        arguments: ""
      })
      yield* server.request("mcp/resource/read", { server: "codex_apps", uri: "test://codex/resource" })
      yield* server.sendLine("garbage")
      yield* server.request("mcpServer/list", {})
      assert.isAbove(server.lines.length, 5)
      for (const line of server.lines) assert.isTrue(isJsonRpc(line), line)
      assert.include(server.stderr(), "level=")
    })
  )
})

describe("threads", () => {
  it.scopedLive("unknown thread ids are -32600 thread not found: {threadId}", () =>
    Effect.gen(function* () {
      const server = yield* startInitialized({})
      const id = "00000000-0000-4000-8000-000000000000"
      const expected = { code: -32600, message: `thread not found: ${id}` }
      assert.deepStrictEqual(errorOf(yield* server.request("thread/resume", { threadId: id })), expected)
      assert.deepStrictEqual(errorOf(yield* server.request("turn/start", { threadId: id })), expected)
      assert.deepStrictEqual(errorOf(yield* server.request("thread/delete", { threadId: id })), expected)
      assert.deepStrictEqual(errorOf(yield* server.request("tool/list", { threadId: id })), expected)
      assert.deepStrictEqual(errorOf(yield* server.request("skills/list", { threadId: id })), expected)
      assert.deepStrictEqual(
        errorOf(
          yield* server.request("tool/call", { threadId: id, turnId: "t", callId: "c", name: "x", arguments: "" })
        ),
        expected
      )
    })
  )

  it.scopedLive(
    "thread/start returns a UUID v4; turn/start records the turn and sends turn/started before the response",
    () =>
      Effect.gen(function* () {
        const server = yield* startInitialized({})
        const started = resultOf(yield* server.request("thread/start", { ephemeral: true }))
        const thread = started.thread as { id: string; ephemeral: boolean }
        assert.match(thread.id, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
        assert.isTrue(thread.ephemeral)
        const id = yield* server.send("turn/start", { threadId: thread.id })
        const response = yield* server.response(id)
        const turnId = (resultOf(response).turn as { id: string }).id
        assert.match(turnId, /^[0-9a-f-]{36}$/)
        const index = server.messages.indexOf(response)
        const notification = server.messages.findIndex((m) => m.method === "turn/started")
        assert.isTrue(notification >= 0 && notification < index)
        assert.deepStrictEqual(server.messages[notification]!.params, { threadId: thread.id, turnId })
        const named = resultOf(yield* server.request("turn/start", { threadId: thread.id, turnId: "mine" }))
        assert.deepStrictEqual(named, { turn: { id: "mine" } })
      })
  )

  it.scopedLive("thread/list is newest first with ISO createdAt; thread/delete removes a thread", () =>
    Effect.gen(function* () {
      const server = yield* startInitialized({})
      const a = (resultOf(yield* server.request("thread/start", {})).thread as { id: string }).id
      // not a wait for an event: the order is by createdAt (milliseconds), so each thread starts in a later one
      yield* Effect.sleep("5 millis")
      const b = (resultOf(yield* server.request("thread/start", { ephemeral: true })).thread as { id: string }).id
      yield* Effect.sleep("5 millis")
      const c = (resultOf(yield* server.request("thread/start", {})).thread as { id: string }).id
      const listed = resultOf(yield* server.request("thread/list", {})).threads as Array<{
        id: string
        ephemeral: boolean
        createdAt: string
      }>
      assert.deepStrictEqual(
        listed.map((t) => [t.id, t.ephemeral]),
        [
          [c, false],
          [b, true],
          [a, false]
        ]
      )
      for (const t of listed) assert.strictEqual(new Date(t.createdAt).toISOString(), t.createdAt)
      assert.deepStrictEqual(resultOf(yield* server.request("thread/delete", { threadId: b })), {})
      assert.deepStrictEqual(resultOf(yield* server.request("thread/delete", { threadId: a })), {})
      const after = resultOf(yield* server.request("thread/list", {})).threads as Array<{ id: string }>
      assert.deepStrictEqual(
        after.map((t) => t.id),
        [c]
      )
      assert.deepStrictEqual(errorOf(yield* server.request("thread/delete", { threadId: a })), {
        code: -32600,
        message: `thread not found: ${a}`
      })
    })
  )

  it.scopedLive("thread/rollback sends thread/rolledBack; a rolled-back turn is turn not found", () =>
    Effect.gen(function* () {
      const server = yield* startInitialized({})
      const { threadId } = yield* threadWithTurn(server)
      yield* server.request("turn/start", { threadId, turnId: "t2" })
      assert.deepStrictEqual(resultOf(yield* server.request("thread/rollback", { threadId, numTurns: 1 })), {
        thread: { id: threadId }
      })
      assert.deepStrictEqual(server.notifications("thread/rolledBack")[0]!.params, { threadId, numTurns: 1 })
      const error = errorOf(
        yield* server.request("tool/call", { threadId, turnId: "t2", callId: "c", name: "x", arguments: "" })
      )
      assert.deepStrictEqual(error, { code: -32600, message: "turn not found: t2" })
      const never = errorOf(
        yield* server.request("tool/call", { threadId, turnId: "zz", callId: "c", name: "x", arguments: "" })
      )
      assert.deepStrictEqual(never, { code: -32600, message: "turn not found: zz" })
      const ok = resultOf(
        yield* server.request("tool/call", { threadId, turnId: "t1", callId: "c", name: "x", arguments: "" })
      )
      assert.deepStrictEqual(ok, { callId: "c", output: "unsupported call: x", success: false })
    })
  )

  it.scopedLive("a restart after kill -9 keeps every acknowledged thread and turn; ephemeral threads are gone", () =>
    Effect.gen(function* () {
      const dataDir = tempDir()
      const first = yield* startInitialized({ dataDir })
      const { threadId } = yield* threadWithTurn(first)
      const ephemeral = (resultOf(yield* first.request("thread/start", { ephemeral: true })).thread as { id: string })
        .id
      yield* first.request("turn/start", { threadId, turnId: "t2" })
      first.child.kill("SIGKILL")
      yield* first.exited()
      const second = yield* startInitialized({ dataDir })
      const listed = resultOf(yield* second.request("thread/list", {})).threads as Array<{ id: string }>
      assert.deepStrictEqual(
        listed.map((t) => t.id),
        [threadId]
      )
      assert.deepStrictEqual(resultOf(yield* second.request("thread/resume", { threadId })), {
        thread: { id: threadId, ephemeral: false }
      })
      const call = resultOf(
        yield* second.request("tool/call", { threadId, turnId: "t2", callId: "c", name: "x", arguments: "" })
      )
      assert.deepStrictEqual(call, { callId: "c", output: "unsupported call: x", success: false })
      assert.deepStrictEqual(errorOf(yield* second.request("thread/resume", { threadId: ephemeral })), {
        code: -32600,
        message: `thread not found: ${ephemeral}`
      })
    })
  )

  it.scopedLive("after compaction and a restart, turns and call ids from before the compaction are still known", () =>
    Effect.gen(function* () {
      const dataDir = tempDir()
      const config = writeConfig(dataDir, { mcp_servers: { srv: stdioCommand(directReadSpec()) } })
      const first = yield* startInitialized({ dataDir, config })
      const { threadId } = yield* threadWithTurn(first)
      yield* first.request("turn/start", { threadId, turnId: "t-old" })
      const listed = resultOf(
        yield* first.request("tool/call", {
          threadId,
          turnId: "t-old",
          callId: "c-old",
          name: "list_mcp_resources",
          arguments: '{"server":"srv"}'
        })
      )
      assert.strictEqual(listed.success, true)
      assert.deepStrictEqual(resultOf(yield* first.request("thread/compact", { threadId })), {})
      yield* first.request("turn/start", { threadId, turnId: "t-new" })
      first.child.kill("SIGKILL")
      yield* first.exited()
      const second = yield* startInitialized({ dataDir, config })
      yield* second.request("thread/resume", { threadId })
      const call = resultOf(
        yield* second.request("tool/call", { threadId, turnId: "t-old", callId: "c-2", name: "x", arguments: "" })
      )
      assert.deepStrictEqual(call, { callId: "c-2", output: "unsupported call: x", success: false })
      assert.deepStrictEqual(
        errorOf(
          yield* second.request("tool/call", { threadId, turnId: "t-new", callId: "c-old", name: "x", arguments: "" })
        ),
        { code: -32600, message: "duplicate callId: c-old" }
      )
    })
  )
})

describe("start and shutdown", () => {
  it.scopedLive("end of standard input closes the MCP child servers and exits 0", () =>
    Effect.gen(function* () {
      const dir = tempDir()
      const config = writeConfig(dir, { mcp_servers: { codex_apps: stdioCommand(directReadSpec()) } })
      const server = yield* startInitialized({ config })
      yield* server.request("mcp/resource/read", { threadId: null, server: "codex_apps", uri: "test://codex/resource" })
      const { threadId } = yield* threadWithTurn(server)
      yield* server.request("tool/list", { threadId })
      const children = execFileSync("ps", ["-o", "pid=", "--ppid", String(server.child.pid)], { encoding: "utf8" })
        .split("\n")
        .map((s) => Number(s.trim()))
        .filter((n) => n > 0)
      assert.isAbove(children.length, 0)
      yield* server.endInput
      assert.strictEqual(yield* server.exited(), 0)
      for (const pid of children) {
        assert.throws(() => process.kill(pid, 0), /ESRCH/)
      }
    })
  )

  it.scopedLive("SIGTERM shuts down and exits 0", () =>
    Effect.gen(function* () {
      const server = yield* startInitialized({})
      server.child.kill("SIGTERM")
      assert.strictEqual(yield* server.exited(), 0)
    })
  )

  it.scopedLive("an invalid config is refused at start with its file and key named and a non-zero exit", () =>
    Effect.gen(function* () {
      const dir = tempDir()
      const config = writeConfig(dir, '[mcp_servers."bad name"]\ncommand = "x"\n')
      const server = yield* start({ args: ["--config", config, "--data-dir", dir] })
      const code = yield* server.exited()
      assert.notStrictEqual(code, 0)
      assert.include(server.stderr(), config)
      assert.include(server.stderr(), "mcp_servers.bad name")
      assert.strictEqual(server.lines.length, 0)
    })
  )

  it.scopedLive("a non-loopback --listen needs --allow-remote, which needs --token-env", () =>
    Effect.gen(function* () {
      const a = yield* start({ args: ["--data-dir", tempDir(), "--listen", "ws://0.0.0.0:1"] })
      assert.strictEqual(yield* a.exited(), 2)
      assert.include(a.stderr(), "--allow-remote")
      const b = yield* start({ args: ["--data-dir", tempDir(), "--listen", "ws://0.0.0.0:1", "--allow-remote"] })
      assert.strictEqual(yield* b.exited(), 2)
      assert.include(b.stderr(), "--token-env")
    })
  )
})
