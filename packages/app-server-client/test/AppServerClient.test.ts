import { createServer } from "node:net"
import { assert, describe, it } from "@effect/vitest"
import { catalogSpec, exampleSpec, searchCatalog, startSse, stdioCommand } from "@mcp-resources/fixtures"
import { AppServer } from "@mcp-resources/protocol"
import { Deferred, Effect, Exit, Fiber, Option, Queue, TestClock } from "effect"
import { AppServerClient, Errors, PromiseClient, Transport } from "../src/index.js"
import { appServer, connectFake, isRunning } from "./utils/peers.js"

/** Every wait on a real peer is bounded. */
const bounded = <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.timeout(effect, "20 seconds")

/** The next message of a queue that matches `predicate` (others are skipped). */
const next = <A, B extends A>(queue: Queue.Dequeue<A>, predicate: (a: A) => a is B) =>
  bounded(
    Effect.gen(function* () {
      while (true) {
        const item = yield* Queue.take(queue)
        if (predicate(item)) return item
      }
    })
  )

const echoOf =
  (method: string) =>
  (n: AppServerClient.RawNotification): n is AppServerClient.RawNotification & { params: Record<string, unknown> } =>
    n.method === "echo" && (n.params as { method?: unknown }).method === method

const freePort = Effect.async<number>((resume) => {
  const server = createServer()
  server.listen(0, "127.0.0.1", () => {
    const address = server.address()
    const port = typeof address === "object" && address !== null ? address.port : 0
    server.close(() => resume(Effect.succeed(port)))
  })
})

describe("AppServerClient against the app-server over stdio", () => {
  it.scopedLive("requests are typed both ways: params encoded, results decoded with the method's schema", () =>
    Effect.gen(function* () {
      const client = yield* AppServerClient.stdio(yield* appServer())
      const init = yield* client.initialize({ name: "test", version: "1" })
      assert.strictEqual(init.serverInfo.name, AppServer.serverName)
      assert.strictEqual(init.protocolVersion, 1)
      assert.deepStrictEqual(init.capabilities?.toolProfiles.includes("codex"), true)
      const started = yield* client.request("thread/start", { ephemeral: true })
      assert.strictEqual(started.thread.ephemeral, true)
      const listed = yield* client.request("thread/list")
      assert.deepStrictEqual(
        listed.threads.map((t) => t.id),
        [started.thread.id]
      )
      // Params that do not match the schema are refused here, before anything is sent.
      const bad = yield* Effect.flip(client.request("thread/resume", { threadId: 5 } as never))
      assert.instanceOf(bad, Errors.ClientError)
      assert.strictEqual(bad.reason, "params")
      assert.strictEqual(bad.message, "thread/resume params: threadId: expected string, got 5")
    })
  )

  it.scopedLive("mcpServer/list is typed with httpTransport: sse for a legacy HTTP+SSE server, absent for stdio", () =>
    Effect.gen(function* () {
      const sse = yield* Effect.acquireRelease(
        Effect.promise(() => startSse(exampleSpec())),
        (fixture) => Effect.promise(() => fixture.close())
      )
      const stdio = stdioCommand(exampleSpec())
      const client = yield* AppServerClient.stdio(
        yield* appServer({
          config: {
            mcpServers: { legacy: { type: "sse", url: sse.url }, local: { command: stdio.command, args: stdio.args } }
          }
        })
      )
      yield* client.initialize({ name: "test", version: "1" })
      // each server's startup settles: awaited through mcpServer/statusChanged, not polled
      const legacy = yield* AppServerClient.awaitServer(client, "legacy", { timeout: "20 seconds" })
      assert.strictEqual(legacy.status, "ready")
      const local = yield* AppServerClient.awaitServer(client, "local", {
        until: (entry) => entry.status === "ready",
        timeout: "20 seconds"
      })
      assert.strictEqual(local.protocolVersion !== undefined, true)
      const listed = yield* client.request("mcpServer/list")
      // a status never reached fails with reason timeout, naming the server
      const never = yield* Effect.flip(
        AppServerClient.awaitServer(client, "local", {
          until: (entry) => entry.status === "disabled",
          timeout: "200 millis"
        })
      )
      assert.deepStrictEqual(
        [never._tag, never._tag === "ClientError" ? never.reason : undefined],
        ["ClientError", "timeout"]
      )
      assert.include(never.message, "MCP server 'local'")
      const kinds: Array<[string, "streamable" | "sse" | undefined]> = listed.servers.map((s) => [
        s.name,
        s.httpTransport
      ])
      assert.deepStrictEqual(kinds, [
        ["legacy", "sse"],
        ["local", undefined]
      ])
    }).pipe(bounded)
  )

  it.scopedLive("mcp/resource/search is typed: ranked matches decoded, a refused query is -32600", () =>
    Effect.gen(function* () {
      const docs = stdioCommand(catalogSpec("docs", searchCatalog(45, 0.05).docs!, 20))
      const client = yield* AppServerClient.stdio(
        yield* appServer({ config: { mcpServers: { docs: { command: docs.command, args: docs.args } } } })
      )
      yield* client.initialize({ name: "test", version: "1" })
      const found = yield* client.request("mcp/resource/search", { query: "kubernets drain", limit: 2 })
      assert.strictEqual(found.matches[0]?.uri, "runbook://ops/kubernetes-node-drain")
      assert.strictEqual(found.matches[0]?.server, "docs")
      assert.isAbove(found.matches[0]?.score ?? 0, 0)
      assert.deepStrictEqual(found.indexing, [])
      const refused = yield* Effect.flip(client.request("mcp/resource/search", { query: "" }))
      assert.strictEqual(refused.message, "query must be provided")
    }).pipe(bounded)
  )

  it.scopedLive("a JSON-RPC error answer fails the request with its code and message", () =>
    Effect.gen(function* () {
      const client = yield* AppServerClient.stdio(yield* appServer())
      const early = yield* Effect.flip(client.request("thread/list"))
      assert.instanceOf(early, Errors.ResponseError)
      assert.deepStrictEqual([early.code, early.message], [AppServer.ErrorCode.invalidRequest, "Not initialized"])
      yield* client.initialize({ name: "test" })
      const error = yield* Effect.flip(client.request("thread/resume", { threadId: "no-such-thread" }))
      assert.instanceOf(error, Errors.ResponseError)
      assert.strictEqual(error.method, "thread/resume")
      assert.strictEqual(error.code, AppServer.ErrorCode.invalidRequest)
      assert.strictEqual(error.message, AppServer.messages.threadNotFound("no-such-thread"))
      const unknown = yield* Effect.flip(client.requestUnknown("no/such/method", {}))
      assert.deepStrictEqual(unknown instanceof Errors.ResponseError ? [unknown.code, unknown.message] : [], [
        AppServer.ErrorCode.methodNotFound,
        AppServer.messages.methodNotFound("no/such/method")
      ])
    })
  )

  it.scopedLive("notifications arrive decoded, in order, before the answer that follows them", () =>
    Effect.gen(function* () {
      const client = yield* AppServerClient.stdio(yield* appServer())
      yield* client.initialize({ name: "test" })
      const notifications = yield* client.subscribe
      const { thread } = yield* client.request("thread/start", { ephemeral: true })
      const { turn } = yield* client.request("turn/start", { threadId: thread.id, turnId: "turn-1" })
      assert.strictEqual(turn.id, "turn-1")
      // turn/started is sent before the answer, so it is already queued.
      const started = yield* Queue.poll(notifications)
      assert.deepStrictEqual(Option.getOrUndefined(started), {
        method: "turn/started",
        params: { threadId: thread.id, turnId: "turn-1" }
      })
    })
  )

  it.scopedLive("onNotification runs a typed handler for each notification of its method, in order", () =>
    Effect.gen(function* () {
      const client = yield* connectFake()
      const seen = yield* Queue.unbounded<AppServerClient.ServerEntry>()
      yield* AppServerClient.onNotification(client, "mcpServer/statusChanged", (entry) => Queue.offer(seen, entry))
      const send = (method: string, params: unknown) => client.notify("ask", { method, params })
      yield* send("mcpServer/statusChanged", { name: "docs", status: "starting", transport: "stdio" })
      // another method, and params that do not match the schema, do not reach the handler
      yield* send("mcpServer/oauth/scopeRequired", { server: "docs", requiredScopes: [] })
      yield* send("mcpServer/statusChanged", { name: "docs", status: "unknown", transport: "stdio" })
      yield* send("mcpServer/statusChanged", {
        name: "docs",
        status: "ready",
        transport: "stdio",
        protocolVersion: "v"
      })
      const first = yield* Queue.take(seen)
      const second = yield* Queue.take(seen)
      assert.deepStrictEqual(
        [first, second],
        [
          { name: "docs", status: "starting", transport: "stdio" },
          { name: "docs", status: "ready", transport: "stdio", protocolVersion: "v" }
        ]
      )
      assert.strictEqual(yield* Queue.size(seen), 0)
    }).pipe(bounded)
  )

  it.scopedLive(
    "mcpServer/oauth/scopeRequired arrives typed; params that do not match reach only raw subscribers",
    () =>
      Effect.gen(function* () {
        const client = yield* connectFake()
        const typed = yield* client.subscribe
        const raw = yield* client.subscribeRaw
        // the fake peer sends what `ask` names; without an id it is a notification
        const send = (params: unknown) => client.notify("ask", { method: "mcpServer/oauth/scopeRequired", params })
        yield* send({ server: "docs", requiredScopes: ["mcp", "docs:read"] })
        const scopeRequired = yield* next(
          typed,
          (n): n is Extract<AppServerClient.Notification, { method: "mcpServer/oauth/scopeRequired" }> =>
            n.method === "mcpServer/oauth/scopeRequired"
        )
        assert.deepStrictEqual(scopeRequired.params.requiredScopes, ["mcp", "docs:read"])
        assert.strictEqual(scopeRequired.params.server, "docs")
        yield* send({ server: "docs", requiredScopes: "mcp" })
        yield* next(
          raw,
          (n): n is AppServerClient.RawNotification =>
            n.method === "mcpServer/oauth/scopeRequired" &&
            typeof (n.params as { requiredScopes?: unknown }).requiredScopes === "string"
        )
        // the typed queue skipped it: the next typed notification is a later, valid one
        yield* send({ server: "wiki", requiredScopes: [] })
        const later = yield* next(
          typed,
          (n): n is Extract<AppServerClient.Notification, { method: "mcpServer/oauth/scopeRequired" }> =>
            n.method === "mcpServer/oauth/scopeRequired"
        )
        assert.strictEqual(later.params.server, "wiki")
      })
  )

  it.scopedLive("interrupting a request sends $/cancelRequest: the server cancels the running tool call", () =>
    Effect.gen(function* () {
      const slow = stdioCommand({ name: "slow", tools: [{ name: "wait", hang: true }] })
      const client = yield* AppServerClient.stdio(
        yield* appServer({ config: { mcp_servers: { slow: { command: slow.command, args: slow.args } } } })
      )
      yield* client.initialize({ name: "test" })
      const notifications = yield* client.subscribe
      const { thread } = yield* client.request("thread/start", { ephemeral: true })
      const { turn } = yield* client.request("turn/start", { threadId: thread.id })
      const tools = yield* client.request("tool/list", { threadId: thread.id })
      assert.isTrue(tools.tools.some((t) => t.name === "mcp__slow__wait"))
      const call = yield* Effect.fork(
        client.request("tool/call", {
          threadId: thread.id,
          turnId: turn.id,
          callId: "c-1",
          name: "mcp__slow__wait",
          arguments: "{}"
        })
      )
      const isItem =
        (method: "item/started" | "item/completed") =>
        (n: AppServerClient.Notification): n is Extract<AppServerClient.Notification, { method: typeof method }> =>
          n.method === method
      yield* next(notifications, isItem("item/started"))
      assert.isTrue(Exit.isInterrupted(yield* Fiber.interrupt(call)))
      const completed = yield* next(notifications, isItem("item/completed"))
      assert.strictEqual(completed.params.item.status, "failed")
      assert.deepStrictEqual(completed.params.item.error, { message: AppServer.messages.callCancelled })
    })
  )

  it.scopedLive("an app-server killed mid-call fails the pending request at once, naming the signal", () =>
    Effect.gen(function* () {
      const slow = stdioCommand({ name: "slow", tools: [{ name: "wait", hang: true }] })
      const client = yield* AppServerClient.stdio(
        yield* appServer({ config: { mcp_servers: { slow: { command: slow.command, args: slow.args } } } })
      )
      yield* client.initialize({ name: "test" })
      const notifications = yield* client.subscribe
      const { thread } = yield* client.request("thread/start", { ephemeral: true })
      const { turn } = yield* client.request("turn/start", { threadId: thread.id })
      yield* client.request("tool/list", { threadId: thread.id })
      const call = yield* Effect.fork(
        client.request("tool/call", {
          threadId: thread.id,
          turnId: turn.id,
          callId: "c-1",
          name: "mcp__slow__wait",
          arguments: "{}"
        })
      )
      yield* next(notifications, (n): n is AppServerClient.Notification => n.method === "item/started")
      process.kill(client.pid!, "SIGKILL")
      const error = yield* Effect.flip(bounded(Fiber.join(call)))
      assert.instanceOf(error, Errors.ClientError)
      assert.strictEqual(error.reason, "closed")
      assert.match(
        error.message,
        /^tool\/call \(id \d+\) got no answer: the connection closed: process \d+ was killed by SIGKILL/
      )
    })
  )

  it.scopedLive("a Promise facade: typed results, errors rejected as themselves, close ends the child", () =>
    Effect.gen(function* () {
      const options = yield* appServer()
      const outcome = yield* Effect.promise(async () => {
        const client = await PromiseClient.connectStdio(options, { requestTimeoutMs: 20_000 })
        try {
          const seen: Array<string> = []
          const stop = client.onNotification((n) => seen.push(n.method))
          await client.initialize({ name: "promise" })
          const { thread } = await client.request("thread/start", { ephemeral: true })
          await client.request("turn/start", { threadId: thread.id })
          const error = await client.request("thread/resume", { threadId: "nope" }).catch((e: unknown) => e)
          stop()
          return { pid: client.pid, seen, error }
        } finally {
          await client.close()
        }
      })
      assert.deepStrictEqual(outcome.seen, ["turn/started"])
      assert.instanceOf(outcome.error, Errors.ResponseError)
      assert.strictEqual((outcome.error as Errors.ResponseError).code, AppServer.ErrorCode.invalidRequest)
      assert.isFalse(isRunning(outcome.pid!))
    })
  )

  it.scopedLive("closing the scope ends the app-server: no child process is left", () =>
    Effect.gen(function* () {
      const options = yield* appServer()
      const pid = yield* Effect.scoped(
        Effect.gen(function* () {
          const client = yield* AppServerClient.stdio(options)
          yield* client.initialize({ name: "test" })
          return client.pid!
        })
      )
      assert.isFalse(isRunning(pid))
    })
  )

  it.scopedLive("a child that ignores the end of its input is killed after the close timeout", () =>
    Effect.gen(function* () {
      const pid = yield* Effect.scoped(
        Effect.gen(function* () {
          const client = yield* AppServerClient.stdio({
            command: process.execPath,
            args: ["-e", "process.stdin.on('end', () => {}); process.stdin.resume(); setInterval(() => {}, 1000)"],
            stderr: "ignore",
            closeTimeout: "100 millis"
          })
          return client.pid!
        })
      )
      assert.isFalse(isRunning(pid))
    })
  )

  it.scopedLive("a spawn that fails names the command", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(AppServerClient.stdio({ command: "/no/such/app-server", stderr: "ignore" }))
      assert.strictEqual(error.reason, "transport")
      assert.match(error.message, /^cannot start \/no\/such\/app-server: .*ENOENT/)
    })
  )
})

describe("AppServerClient over WebSocket", () => {
  it.scopedLive("connects with the bearer token the server expects; a wrong token is refused", () =>
    Effect.gen(function* () {
      const port = yield* freePort
      const listening = yield* Deferred.make<void>()
      let stderr = ""
      const options = yield* appServer({
        args: ["--listen", `ws://127.0.0.1:${port}`, "--token-env", "APP_TOKEN"],
        stderr: (text) => {
          stderr += text
          if (stderr.includes("listening on")) Deferred.unsafeDone(listening, Effect.void)
        }
      })
      // Standard input stays the app-server's lifeline: closing this client ends it.
      yield* AppServerClient.stdio({
        ...options,
        env: { ...options.env, APP_TOKEN: "tok-123", MCP_RESOURCES_LOG: "info" }
      })
      yield* bounded(Deferred.await(listening))
      const url = `ws://127.0.0.1:${port}`
      const refused = yield* Effect.flip(AppServerClient.webSocket({ url, token: "wrong" }))
      assert.strictEqual(refused.reason, "transport")
      assert.match(refused.message, /401/)
      const client = yield* AppServerClient.webSocket({ url, token: "tok-123" })
      const init = yield* client.initialize({ name: "ws" })
      assert.strictEqual(init.serverInfo.name, AppServer.serverName)
      const notifications = yield* client.subscribe
      const { thread } = yield* client.request("thread/start", { ephemeral: true })
      yield* client.request("turn/start", { threadId: thread.id, turnId: "t" })
      assert.strictEqual(Option.getOrUndefined(yield* Queue.poll(notifications))?.method, "turn/started")
    })
  )
})

describe("AppServerClient against a fake peer", () => {
  it.scoped("a request without an answer fails at its timeout and sends $/cancelRequest", () =>
    Effect.gen(function* () {
      const client = yield* connectFake()
      const raw = yield* client.subscribeRaw
      const waiting = yield* Effect.fork(client.requestUnknown("slow/method", {}, { timeout: "5 seconds" }))
      const sent = yield* next(raw, echoOf("slow/method"))
      yield* TestClock.adjust("5 seconds")
      const error = yield* Effect.flip(Fiber.join(waiting))
      assert.instanceOf(error, Errors.ClientError)
      assert.strictEqual(error.reason, "timeout")
      assert.strictEqual(error.message, "slow/method (id 1) got no answer within 5s ($/cancelRequest sent)")
      const cancel = yield* next(raw, echoOf("$/cancelRequest"))
      assert.deepStrictEqual(cancel.params.params, { id: sent.params.id })
    })
  )

  it.scopedLive("server-to-client requests go to the registered handlers, which initialize declares", () =>
    Effect.gen(function* () {
      const client = yield* connectFake({
        serverRequests: {
          "elicitation/create": (params) =>
            Effect.succeed({ action: "decline", asked: (params as { message: string }).message })
        }
      })
      const raw = yield* client.subscribeRaw
      const init = yield* Effect.fork(client.initialize({ name: "test" }))
      const declared = yield* next(raw, echoOf("initialize"))
      assert.deepStrictEqual((declared.params.params as { capabilities: unknown }).capabilities, {
        serverRequests: ["elicitation/create"]
      })
      yield* Fiber.interrupt(init)
      yield* client.notify("ask", { id: "s1", method: "elicitation/create", params: { message: "Continue?" } })
      const answer = yield* next(
        raw,
        (n): n is AppServerClient.RawNotification & { params: Record<string, unknown> } =>
          n.method === "echo" && (n.params as { id?: unknown }).id === "s1"
      )
      assert.deepStrictEqual(answer.params, {
        jsonrpc: "2.0",
        id: "s1",
        result: { action: "decline", asked: "Continue?" }
      })
      yield* client.notify("ask", { id: 7, method: "sampling/createMessage", params: {} })
      const refused = yield* next(
        raw,
        (n): n is AppServerClient.RawNotification & { params: Record<string, unknown> } =>
          n.method === "echo" && (n.params as { id?: unknown }).id === 7
      )
      assert.deepStrictEqual(refused.params.error, {
        code: AppServer.ErrorCode.methodNotFound,
        message: "Method not found: sampling/createMessage"
      })
    })
  )

  it.scopedLive("a peer that exits mid-request fails the request at once, naming the exit and its stderr", () =>
    Effect.gen(function* () {
      const client = yield* connectFake()
      const error = yield* Effect.flip(bounded(client.requestUnknown("exit", {})))
      assert.instanceOf(error, Errors.ClientError)
      assert.strictEqual(error.reason, "closed")
      assert.match(
        error.message,
        /^exit \(id 1\) got no answer: the connection closed: process \d+ exited with code 3 \(stderr: bye\)$/
      )
      const after = yield* Effect.flip(client.request("thread/list"))
      assert.strictEqual(after._tag === "ClientError" ? after.reason : undefined, "closed")
      assert.match(yield* client.closed, /exited with code 3/)
    })
  )
})

describe("the raw wire, for tests that check what is on it", () => {
  it.scopedLive("onMessage sees every message as received; startRequest answers with the whole response message", () =>
    Effect.gen(function* () {
      const seen: Array<{ readonly message: unknown; readonly text: string }> = []
      const transport = yield* Transport.stdio({ ...(yield* appServer({ stderr: "ignore" })), keepBlankLines: true })
      const client = yield* AppServerClient.make(transport, {
        onMessage: (message, text) => seen.push({ message, text })
      })
      yield* client.initialize({ name: "test" })
      // A line that is not JSON, written in two pieces: the server answers Parse error with id null.
      yield* transport.writeRaw("{not json")
      yield* transport.writeRaw(Buffer.from("\n"))
      const started = yield* client.startRequest("thread/resume", { threadId: "no-such-thread" })
      const answer = yield* bounded(started.response)
      assert.deepStrictEqual(answer, {
        jsonrpc: "2.0",
        id: started.id,
        error: { code: AppServer.ErrorCode.invalidRequest, message: "thread not found: no-such-thread" }
      })
      // The same object the tap was given, after the parse error's answer (the order on the wire).
      const index = seen.findIndex((s) => s.message === answer)
      assert.isAbove(index, 0)
      const parseError = seen.findIndex((s) => (s.message as { id?: unknown }).id === null)
      assert.isTrue(parseError >= 0 && parseError < index, JSON.stringify(seen))
      assert.strictEqual(seen[index]!.text, JSON.stringify(answer))
      yield* transport.endInput
      const exit = yield* bounded(client.exit!)
      assert.strictEqual(exit.code, 0)
    })
  )
})
