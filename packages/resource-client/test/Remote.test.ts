/**
 * Remote (HTTP) servers: each start-up refusal keeps the server's own reason, a dropped server is
 * reconnected with bounded backoff (driven by TestClock) adopting the era verdict of its first
 * connection, and outgoing HTTP goes through the proxy of `HTTP_PROXY` unless `NO_PROXY` says not.
 */
import { createServer as createTcpServer } from "node:net"
import { assert, describe, it } from "@effect/vitest"
import { listenLoopback, startConnectProxy, startV2Http, v2StdioCommand } from "@mcp-resources/fixtures"
import { Config, Messages } from "@mcp-resources/protocol"
import { ConfigProvider, Effect, Either, TestClock } from "effect"
import { McpTransport, ResourceClient, type ServerEntry } from "../src/index.js"
import { httpConnectionLost, httpFailureText } from "../src/internal/failures.js"
import { networkFailure } from "../src/internal/transports.js"
import { awaitStatus, Counter } from "./utils/wait.js"

const defaults = { enabled: true, startupTimeoutSec: 60, toolTimeoutSec: 30, maxMessageBytes: 67108864 }

const http = (name: string, url: string, options: Partial<ServerEntry.ServerEntry> = {}): ServerEntry.ServerEntry => ({
  name,
  transport: { _tag: "http", url, httpHeaders: {} },
  ...defaults,
  ...options
})

const message = <A>(either: Either.Either<A, { readonly message: string }>): string =>
  Either.match(either, { onLeft: (error) => error.message, onRight: () => "succeeded" })

/** A loopback HTTP server that answers every request with `status`, `headers` and `body`. */
const answering = (status: number, headers: Record<string, string>, body: string) =>
  Effect.acquireRelease(
    Effect.promise(() =>
      listenLoopback((_req, res) => {
        res.writeHead(status, headers)
        res.end(body)
      })
    ),
    (server) => Effect.promise(() => server.close())
  )

const v2Http = (...args: Parameters<typeof startV2Http>) =>
  Effect.acquireRelease(
    Effect.promise(() => startV2Http(...args)),
    (fixture) => Effect.promise(() => fixture.close())
  )

/** A port nothing listens on (taken, then given back). */
const freePort = Effect.promise(
  () =>
    new Promise<number>((resolve) => {
      const server = createTcpServer()
      server.listen(0, "127.0.0.1", () => {
        const { port } = server.address() as { port: number }
        server.close(() => resolve(port))
      })
    })
)

const startClient = (servers: ReadonlyArray<ServerEntry.ServerEntry>) =>
  Effect.gen(function* () {
    const client = yield* ResourceClient.make({ config: Config.empty, servers })
    yield* Effect.flatMap(client.latest, (set) => set.awaitAllSettled)
    return client
  }).pipe(Effect.provide(McpTransport.layer))

describe("start-up refusals keep the server's reason", () => {
  it.live("401, 403, 400 -32022, 404, 500, HTML, unreachable, -32022 on stdio: each its own message", () =>
    Effect.gen(function* () {
      const unauthorized = yield* answering(
        401,
        { "www-authenticate": 'Bearer error="invalid_token", error_description="The access token expired"' },
        ""
      )
      const forbidden = yield* answering(403, { "content-type": "text/plain" }, "Forbidden: not on the allow list")
      const broken = yield* answering(500, { "content-type": "text/plain" }, "internal error\nstack trace")
      const html = yield* answering(502, { "content-type": "text/html" }, "<!doctype html><title>Bad gateway</title>")
      const htmlOk = yield* answering(200, { "content-type": "text/html" }, "<html><body>Sign in</body></html>")
      const modernOnly = yield* v2Http("modernOnly")
      const port = yield* freePort
      const command = v2StdioCommand({ modernOnly: true })
      const client = yield* startClient([
        http("unauthorized", `http://127.0.0.1:${unauthorized.port}/mcp`),
        http("forbidden", `http://127.0.0.1:${forbidden.port}/mcp`),
        http("broken", `http://127.0.0.1:${broken.port}/mcp`),
        http("html", `http://127.0.0.1:${html.port}/mcp`),
        http("html_ok", `http://127.0.0.1:${htmlOk.port}/mcp`),
        // issue 15's second and third failures: the -32022 answer and its revisions reach the user
        http("modern_http", modernOnly.url, { protocolVersion: "legacy" }),
        http("wrong_path", modernOnly.url.replace("/mcp", "/wrong")),
        http("unreachable", `http://127.0.0.1:${port}/mcp?token=secret`),
        {
          name: "modern_stdio",
          transport: { _tag: "stdio", command: command.command, args: command.args, env: {} },
          ...defaults,
          protocolVersion: "legacy"
        }
      ])
      const errors = Object.fromEntries((yield* client.servers).map((s) => [s.name, `${s.status}: ${s.error}`]))
      assert.deepStrictEqual(errors, {
        broken: "failed: HTTP 500: internal error",
        forbidden: "failed: HTTP 403: Forbidden: not on the allow list",
        html: "failed: HTTP 502: the server answered with an HTML page, not MCP",
        html_ok: "failed: the server answered with an HTML page, not MCP",
        modern_http: "failed: HTTP 400: unsupported protocol version 2025-11-25; the server supports 2026-07-28",
        modern_stdio: "failed: unsupported protocol version 2025-11-25; the server supports 2026-07-28",
        // a 401 with a Bearer challenge and no stored login: the OAuth login is what is missing
        unauthorized: `failed: ${Messages.authorizationRequired("unauthorized")}`,
        unreachable: `failed: cannot connect to http://127.0.0.1:${port}/mcp?token=REDACTED: connect ECONNREFUSED 127.0.0.1:${port}`,
        wrong_path: "failed: HTTP 404: Cannot POST /wrong"
      })
      assert.strictEqual(
        message(yield* Effect.either(client.listResources("unauthorized"))),
        `failed to get client: ${Messages.authorizationRequired("unauthorized")}`
      )
    }).pipe(Effect.scoped)
  )
})

describe("a modern-only stdio server slow to start", () => {
  it.live(
    "is started again in the 2026-07-28 era when it answered the era probe too late and refused initialize, by the set and by a threadless read; pinned legacy it is still refused",
    () =>
      Effect.gen(function* () {
        // it reads nothing for 6 s: the `auto` probe's bound (half of the 10 s start-up timeout) passes first
        const command = v2StdioCommand({ modernOnly: true, startDelayMs: 6000 })
        const stdio = (name: string, options: Partial<ServerEntry.ServerEntry> = {}): ServerEntry.ServerEntry => ({
          name,
          transport: { _tag: "stdio", command: command.command, args: command.args, env: {} },
          ...defaults,
          startupTimeoutSec: 10,
          ...options
        })
        const client = yield* startClient([stdio("slow"), stdio("slow_legacy", { protocolVersion: "legacy" })])
        const status = Object.fromEntries(
          (yield* client.servers).map((s) => [s.name, `${s.status} ${s.protocolVersion ?? ""} ${s.error ?? ""}`.trim()])
        )
        assert.deepStrictEqual(status, {
          slow: "ready 2026-07-28",
          slow_legacy: "failed  unsupported protocol version 2025-11-25; the server supports 2026-07-28"
        })
        const listed = yield* client.listResources("slow")
        assert.isAbove(listed.resources.length, 0)
        // a threadless connection (a read outside any thread) starts it again in its era too
        const uri = listed.resources[0]!.uri
        const read = yield* client.withServerConnection("slow", (connection) => connection.readResource(uri))
        assert.isAbove(read.contents.length, 0)
      }).pipe(Effect.scoped),
    60_000
  )
})

describe("a remote server that drops is reconnected", () => {
  it.scoped("with bounded exponential backoff, adopting the era verdict of the first connection", () =>
    Effect.gen(function* () {
      // sessionful: `auto` probes, the server refuses `server/discover`, the client falls back to `initialize`
      const first = yield* Effect.promise(() => startV2Http("sessionful"))
      const port = Number(new URL(first.url).port)
      const client = yield* startClient([http("remote", first.url)])
      const status = () => Effect.map(client.servers, (all) => all[0]!)
      assert.strictEqual((yield* status()).protocolVersion, "2025-11-25")
      assert.deepStrictEqual(first.rpcMethods.slice(0, 2), ["server/discover", "initialize"])
      yield* Effect.promise(() => first.close())
      const failed = message(yield* Effect.either(client.listResources("remote")))
      // the system error's code stays in the text
      assert.strictEqual(failed, "resources/list failed for `remote`: connection closed: fetch failed (ECONNREFUSED)")
      let current = yield* status()
      assert.strictEqual(current.status, "failed")
      assert.strictEqual(current.reconnectAttempt, 1)
      // the server comes back on the same port; attempt 1 waits 500 ms
      const second = yield* v2Http("sessionful", { port })
      // requests only (the old connection's cancellation of the failed list may arrive too)
      const requests = () => second.rpcMethods.filter((m) => !m.startsWith("notifications/"))
      yield* TestClock.adjust("499 millis")
      // a check that nothing happens has no event to await: an attempt started early would reach
      // the server within this short window of real time
      yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 50)))
      assert.deepStrictEqual(requests(), [])
      yield* TestClock.adjust("1 millis")
      yield* awaitStatus(client, "remote", (s) => s.status === "ready")
      current = yield* status()
      assert.deepStrictEqual(current, {
        name: "remote",
        transport: "http",
        httpTransport: "streamable",
        status: "ready",
        protocolVersion: "2025-11-25"
      })
      // the legacy verdict was adopted: no second probe, straight to `initialize`
      assert.strictEqual(requests()[0], "initialize")
      assert.isFalse(requests().includes("server/discover"))
      assert.strictEqual((yield* client.listResources("remote")).resources[0]?.uri, "v2://doc/1")
    })
  )

  it.scoped("gives up after the documented attempts (500 ms doubling to a 30 s cap, 8 attempts)", () =>
    Effect.gen(function* () {
      const first = yield* Effect.promise(() => startV2Http("stateless"))
      const port = Number(new URL(first.url).port)
      const client = yield* startClient([http("remote", first.url)])
      yield* Effect.promise(() => first.close())
      yield* Effect.either(client.listResources("remote"))
      // from now on every attempt reaches a server that answers 503
      const attempts = new Counter()
      yield* Effect.acquireRelease(
        Effect.promise(() =>
          listenLoopback((_req, res) => {
            attempts.add()
            res.writeHead(503, { "content-type": "text/plain" })
            res.end("maintenance")
          }, port)
        ),
        (server) => Effect.promise(() => server.close())
      )
      const status = Effect.map(client.servers, (all) => all[0]!)
      const delays = [500, 1000, 2000, 4000, 8000, 16000, 30000, 30000]
      for (const [index, delay] of delays.entries()) {
        yield* awaitStatus(client, "remote", (s) => s.reconnectAttempt === index + 1)
        const before = attempts.value
        yield* TestClock.adjust(delay - 1)
        assert.strictEqual(attempts.value, before, `attempt ${index + 1} waits ${delay} ms`)
        yield* TestClock.adjust(1)
        yield* Effect.promise(() => attempts.exceeds(before))
      }
      yield* awaitStatus(client, "remote", (s) => s.reconnectAttempt === undefined)
      assert.deepStrictEqual(yield* status, {
        name: "remote",
        transport: "http",
        httpTransport: "streamable",
        status: "failed",
        error: "reconnecting failed after 8 attempts: HTTP 503: maintenance"
      })
    })
  )
})

describe("outgoing HTTP and proxies", () => {
  it.live("HTTP_PROXY routes through a CONNECT proxy; NO_PROXY bypasses it", () =>
    Effect.gen(function* () {
      const server = yield* v2Http("stateless")
      const proxy = yield* Effect.acquireRelease(
        Effect.promise(() => startConnectProxy()),
        (p) => Effect.promise(() => p.close())
      )
      const targets = proxy.targets
      const withEnv = (env: Record<string, string>) =>
        Effect.withConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(env))))
      const proxied = yield* startClient([http("via_proxy", server.url)]).pipe(
        withEnv({ HTTP_PROXY: `http://127.0.0.1:${proxy.port}` })
      )
      assert.strictEqual((yield* proxied.listResources("via_proxy")).resources[0]?.uri, "v2://doc/1")
      const host = new URL(server.url).host
      assert.isTrue(targets.length > 0 && targets.every((t) => t === host), targets.join(","))
      const seen = targets.length
      const direct = yield* startClient([http("direct", server.url)]).pipe(
        withEnv({ HTTP_PROXY: `http://127.0.0.1:${proxy.port}`, NO_PROXY: "127.0.0.1" })
      )
      assert.strictEqual((yield* direct.listResources("direct")).resources[0]?.uri, "v2://doc/1")
      assert.strictEqual(targets.length, seen)
    }).pipe(Effect.scoped)
  )
})

/** The JSON body of a request. */
const bodyOf = (req: import("node:http").IncomingMessage): Promise<{ id?: number; method?: string }> =>
  new Promise((resolve, reject) => {
    const chunks: Array<Buffer> = []
    req.on("data", (chunk: Buffer) => chunks.push(chunk))
    req.on("error", reject)
    req.on("end", () => resolve(JSON.parse(Buffer.concat(chunks).toString("utf8"))))
  })

/**
 * A hand-written sessionful MCP server on loopback: a correct `initialize` (and 202 for
 * notifications, 405 for the GET stream), then every request of `/{case}` answered by `answers[case]`.
 */
const malformedServer = (answers: Record<string, (res: import("node:http").ServerResponse, id: number) => void>) =>
  Effect.acquireRelease(
    Effect.promise(() =>
      listenLoopback(async (req, res) => {
        if (req.method !== "POST") {
          res.writeHead(req.method === "GET" ? 405 : 200)
          res.end()
          return
        }
        const body = await bodyOf(req)
        if (body.method === "initialize") {
          res.writeHead(200, { "content-type": "application/json", "mcp-session-id": "session-1" })
          res.end(
            JSON.stringify({
              jsonrpc: "2.0",
              id: body.id,
              result: {
                protocolVersion: "2025-06-18",
                capabilities: { resources: {} },
                serverInfo: { name: "malformed", version: "1.0.0" }
              }
            })
          )
          return
        }
        if (body.id === undefined) {
          res.writeHead(202)
          res.end()
          return
        }
        answers[(req.url ?? "").slice(1)]!(res, body.id)
      })
    ),
    (server) => Effect.promise(() => server.close())
  )

describe("a malformed answer from an HTTP server", () => {
  it.live("fails the request at once with the server's name, the status and what was wrong", () =>
    Effect.gen(function* () {
      const answer =
        (status: number, contentType: string, body: string) => (res: import("node:http").ServerResponse) => {
          res.writeHead(status, { "content-type": contentType })
          res.end(body)
        }
      const server = yield* malformedServer({
        not_json: answer(200, "application/json", "this is not json"),
        not_jsonrpc: answer(200, "application/json", '{"hello":"world"}'),
        not_jsonrpc_array: answer(200, "application/json", "[1,2]"),
        status_500: answer(500, "text/plain", "database is down\n  at stack"),
        text_plain: answer(200, "text/plain", "hello"),
        result_null: (res, id) => {
          res.writeHead(200, { "content-type": "application/json" })
          res.end(JSON.stringify({ jsonrpc: "2.0", id, result: null }))
        },
        // inside an event stream the SDK drops such an answer unseen: it must still fail at once
        sse_result_null: (res, id) => {
          res.writeHead(200, { "content-type": "text/event-stream" })
          res.end(`event: message\ndata: ${JSON.stringify({ jsonrpc: "2.0", id, result: null })}\n\n`)
        },
        sse_neither: (res, id) => {
          res.writeHead(200, { "content-type": "text/event-stream" })
          res.end(`id: 1\nevent: message\ndata: ${JSON.stringify({ jsonrpc: "2.0", id })}\n\n`)
        }
      })
      const names = [
        "not_json",
        "not_jsonrpc",
        "not_jsonrpc_array",
        "status_500",
        "text_plain",
        "result_null",
        "sse_result_null",
        "sse_neither"
      ]
      // a deadline the test would notice: the failures must not wait for it
      const client = yield* startClient(
        names.map((name) =>
          http(name, `http://127.0.0.1:${server.port}/${name}`, { protocolVersion: "legacy", toolTimeoutSec: 120 })
        )
      )
      assert.deepStrictEqual(
        (yield* client.servers).map((s) => s.status),
        names.map(() => "ready")
      )
      const failures = yield* Effect.forEach(names, (name) =>
        Effect.map(Effect.either(client.listResources(name)), message)
      )
      assert.deepStrictEqual(failures, [
        "resources/list failed for `not_json`: HTTP 200: invalid answer: the body is not JSON",
        "resources/list failed for `not_jsonrpc`: HTTP 200: invalid answer: the body is not a JSON-RPC message",
        "resources/list failed for `not_jsonrpc_array`: HTTP 200: invalid answer: the body is not a JSON-RPC message",
        "resources/list failed for `status_500`: HTTP 500: database is down",
        "resources/list failed for `text_plain`: HTTP 200: invalid answer: unexpected content type text/plain",
        "resources/list failed for `result_null`: HTTP 200: invalid answer: the body is not a JSON-RPC message",
        "resources/list failed for `sse_result_null`: invalid resources/list result: expected a JSON object, got null",
        "resources/list failed for `sse_neither`: invalid resources/list response: it carries neither a result nor an error"
      ])
    }).pipe(Effect.scoped)
  )
})

describe("system error codes stay in the texts", () => {
  /** What undici's fetch rejects with: a TypeError whose cause is the system error. */
  const fetchFailed = (code: string, message: string) =>
    new TypeError("fetch failed", { cause: Object.assign(new Error(message), { code, syscall: "connect" }) })

  it("EMFILE and ECONNREFUSED, at start-up and on a lost connection", () => {
    const target = "http://127.0.0.1:9/mcp"
    const emfile = fetchFailed("EMFILE", "connect EMFILE 127.0.0.1:9 - Local (undefined:undefined)")
    const refused = fetchFailed("ECONNREFUSED", "connect ECONNREFUSED 127.0.0.1:9")
    assert.strictEqual(
      httpFailureText(networkFailure("POST", target, emfile)),
      "cannot connect to http://127.0.0.1:9/mcp: connect EMFILE 127.0.0.1:9 - Local (undefined:undefined)"
    )
    assert.strictEqual(
      httpFailureText(networkFailure("POST", target, refused)),
      "cannot connect to http://127.0.0.1:9/mcp: connect ECONNREFUSED 127.0.0.1:9"
    )
    // a system error whose message does not name its code gets it appended
    assert.strictEqual(
      httpFailureText(networkFailure("POST", target, fetchFailed("EMFILE", "too many open files"))),
      "cannot connect to http://127.0.0.1:9/mcp: too many open files (EMFILE)"
    )
    assert.strictEqual(httpConnectionLost(emfile, "session-1"), "fetch failed (EMFILE)")
    assert.strictEqual(httpConnectionLost(refused, undefined), "fetch failed (ECONNREFUSED)")
  })
})
