/**
 * Legacy HTTP+SSE servers (protocol 2024-11-05) through the SDK's `SSEClientTransport`, against a real
 * SDK server (the v1 SDK's `SSEServerTransport`, `startSse`): selected by `type = "sse"`, or reached
 * by the specification's fallback when a streamable HTTP POST is refused with 400, 404 or 405; headers,
 * bearer tokens and OAuth go on the stream's GET and on every POST; a dropped stream is reconnected.
 */
import * as NodeFs from "node:fs"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { exampleSpec, followAuthorization, listenLoopback, startOAuthHttp, startSse } from "@mcp-resources/fixtures"
import { Config, Messages } from "@mcp-resources/protocol"
import { ConfigProvider, Effect, Either, Layer, TestClock } from "effect"
import { McpTransport, OAuth, ResourceClient, type ServerEntry, TokenStore } from "../src/index.js"
import { awaitStatus, Counter, statusOf } from "./utils/wait.js"

const defaults = { enabled: true, startupTimeoutSec: 60, toolTimeoutSec: 30, maxMessageBytes: 67108864 }

const http = (
  name: string,
  url: string,
  extra: Partial<Extract<ServerEntry.ServerEntry["transport"], { _tag: "http" }>> = {}
): ServerEntry.ServerEntry => ({ name, transport: { _tag: "http", url, httpHeaders: {}, ...extra }, ...defaults })

const noCache: Config.Config = { ...Config.empty, cache: { enabled: false, maxBytes: 0 } }

const sseFixture = (...args: Parameters<typeof startSse>) =>
  Effect.acquireRelease(
    Effect.promise(() => startSse(...args)),
    (fixture) => Effect.promise(() => fixture.close())
  )

const startClient = (servers: ReadonlyArray<ServerEntry.ServerEntry>) =>
  Effect.gen(function* () {
    const client = yield* ResourceClient.make({ config: noCache, servers })
    yield* Effect.flatMap(client.latest, (set) => set.awaitAllSettled)
    return client
  })

describe("HTTP+SSE servers", () => {
  it.live('type = "sse": lists and reads over the SDK\'s SSE transport; mcpServer/list says httpTransport sse', () =>
    Effect.gen(function* () {
      const sse = yield* sseFixture(exampleSpec())
      const client = yield* startClient([http("legacy", sse.url, { sse: true })])
      const status = yield* statusOf(client, "legacy")
      assert.strictEqual(status.status, "ready", status.error)
      assert.strictEqual(status.transport, "http")
      assert.strictEqual(status.httpTransport, "sse")
      const listed = yield* client.listResources("legacy")
      assert.isAbove(listed.resources.length, 0)
      const uri = listed.resources[0]!.uri
      const read = yield* client.readResource("legacy", uri)
      assert.strictEqual(read.contents[0]?.uri, uri)
      // no streamable HTTP attempt and no `server/discover` probe: GET /sse, then POSTs to the endpoint
      assert.strictEqual(sse.httpRequests[0], "GET /sse")
      assert.deepStrictEqual([...new Set(sse.httpRequests.slice(1))], ["POST /messages"])
      assert.strictEqual(sse.requests[0]?.method, "initialize")
      assert.isFalse(sse.requests.some((r) => r.method === "server/discover"))
    }).pipe(Effect.provide(McpTransport.layer), Effect.scoped)
  )

  it.live("a plain url whose streamable POST is refused with 404 falls back to HTTP+SSE on the same URL", () =>
    Effect.gen(function* () {
      const sse = yield* sseFixture(exampleSpec())
      const client = yield* startClient([http("legacy", sse.url)])
      const status = yield* statusOf(client, "legacy")
      assert.deepStrictEqual(
        { status: status.status, error: status.error, httpTransport: status.httpTransport },
        { status: "ready", error: undefined, httpTransport: "sse" }
      )
      // the specification's order: a POST first (refused), then the GET that opens the stream
      assert.strictEqual(sse.httpRequests[0], "POST /sse")
      assert.strictEqual(sse.httpRequests.filter((r) => r === "GET /sse").length, 1)
      assert.isAbove((yield* client.listResources("legacy")).resources.length, 0)
    }).pipe(Effect.provide(McpTransport.layer), Effect.scoped)
  )

  it.live("http_headers and the bearer token go on the stream's GET and on every POST", () =>
    Effect.gen(function* () {
      const sse = yield* sseFixture(exampleSpec())
      const client = yield* startClient([
        http("legacy", sse.url, { sse: true, bearerTokenEnvVar: "LEGACY_TOKEN", httpHeaders: { "X-Team": "docs" } })
      ])
      assert.strictEqual((yield* statusOf(client, "legacy")).status, "ready")
      yield* client.listResources("legacy")
      assert.isAbove(sse.headers.length, 2)
      for (const headers of sse.headers) {
        assert.strictEqual(headers.authorization, "Bearer s3cret-token")
        assert.strictEqual(headers["x-team"], "docs")
      }
      assert.notInclude(JSON.stringify(yield* client.servers), "s3cret-token")
    }).pipe(
      Effect.provide(McpTransport.layer),
      Effect.withConfigProvider(ConfigProvider.fromMap(new Map([["LEGACY_TOKEN", "s3cret-token"]]))),
      Effect.scoped
    )
  )

  it.scoped("a dropped stream fails the server with its reason and it is reconnected over HTTP+SSE", () =>
    Effect.gen(function* () {
      const sse = yield* Effect.acquireRelease(
        Effect.promise(() => startSse(exampleSpec())),
        (fixture) => Effect.promise(() => fixture.close())
      )
      // fallen back, not configured: the reconnection goes straight to HTTP+SSE
      const client = yield* startClient([http("legacy", sse.url)])
      assert.strictEqual((yield* statusOf(client, "legacy")).status, "ready")
      const posts = sse.httpRequests.filter((r) => r === "POST /sse").length
      yield* Effect.promise(() => sse.dropStreams())
      yield* awaitStatus(client, "legacy", (s) => s.status === "failed")
      const failed = yield* statusOf(client, "legacy")
      assert.deepStrictEqual(
        { error: failed.error, reconnectAttempt: failed.reconnectAttempt, httpTransport: failed.httpTransport },
        { error: `${Messages.connectionClosed}: the SSE stream ended`, reconnectAttempt: 1, httpTransport: "sse" }
      )
      yield* TestClock.adjust("500 millis")
      yield* awaitStatus(client, "legacy", (s) => s.status === "ready")
      assert.strictEqual(sse.httpRequests.filter((r) => r === "POST /sse").length, posts)
      assert.isAbove((yield* client.listResources("legacy")).resources.length, 0)
    }).pipe(Effect.provide(McpTransport.layer))
  )

  it.scoped(
    "a server that refuses the POST and opens a GET stream without an endpoint event keeps the POST's reason",
    () =>
      Effect.gen(function* () {
        const gets = new Counter()
        const server = yield* Effect.acquireRelease(
          Effect.promise(() =>
            listenLoopback((req, res) => {
              if (req.method === "GET") {
                gets.add()
                // a stream that names no endpoint: not an HTTP+SSE server
                res.writeHead(200, { "content-type": "text/event-stream" })
                res.write(": idle\n\n")
                return
              }
              res.writeHead(400, { "content-type": "application/json" })
              res.end(
                JSON.stringify({
                  jsonrpc: "2.0",
                  id: null,
                  error: { code: -32600, message: "Bad Request: no session" }
                })
              )
            })
          ),
          (s) => Effect.promise(() => s.close())
        )
        const entry = http("strict", `http://127.0.0.1:${server.port}/mcp`)
        const client = yield* ResourceClient.make({ config: noCache, servers: [entry] })
        const set = yield* client.latest
        const settled = yield* Effect.fork(set.awaitAllSettled)
        // the fixture counts its GETs and announces none
        yield* Effect.promise(() => gets.exceeds(0))
        // half of the start-up time left: no endpoint event by then
        yield* TestClock.adjust("30 seconds")
        yield* awaitStatus(client, "strict", (s) => s.status === "failed")
        yield* settled.await
        const status = yield* statusOf(client, "strict")
        assert.deepStrictEqual(
          { error: status.error, httpTransport: status.httpTransport },
          { error: "HTTP 400: JSON-RPC error -32600: Bad Request: no session", httpTransport: "streamable" }
        )
      }).pipe(Effect.provide(McpTransport.layer))
  )

  it.live("OAuth over HTTP+SSE: login required, login, then the token goes on the GET and the POSTs", () =>
    Effect.gen(function* () {
      const server = yield* Effect.acquireRelease(
        Effect.promise(() => startOAuthHttp(exampleSpec(), { transport: "sse" })),
        (f) => Effect.promise(() => f.close())
      )
      const dir = yield* Effect.acquireRelease(
        Effect.sync(() => NodeFs.mkdtempSync(NodePath.join(NodeOs.tmpdir(), "sse-oauth-"))),
        (d) => Effect.sync(() => NodeFs.rmSync(d, { recursive: true, force: true }))
      )
      const store = TokenStore.layerFile(NodePath.join(dir, TokenStore.fileName))
      const entry = http("docs", server.url, { sse: true })
      return yield* Effect.gen(function* () {
        const client = yield* startClient([entry])
        const required = Messages.authorizationRequired("docs")
        assert.strictEqual((yield* statusOf(client, "docs")).error, required)
        yield* Effect.scoped(
          Effect.gen(function* () {
            const start = yield* OAuth.startLogin(entry, { timeoutSec: 30 })
            assert.strictEqual(yield* Effect.promise(() => followAuthorization(start.authorizationUrl)), 200)
            yield* start.completion
          })
        )
        yield* client.reconnect
        yield* Effect.flatMap(client.latest, (set) => set.awaitAllSettled)
        const status = yield* statusOf(client, "docs")
        assert.deepStrictEqual(
          { status: status.status, httpTransport: status.httpTransport },
          { status: "ready", httpTransport: "sse" }
        )
        assert.strictEqual((yield* client.listResources("docs")).resources.length, 3)
        const sent = server.authorizationHeaders.filter((h) => h !== undefined)
        assert.isAbove(sent.length, 2)
        assert.isTrue(sent.every((h) => h.startsWith("Bearer ")))
        assert.isAbove(server.requests.length, 1)
        const outcome = yield* Effect.either(client.listResources("docs"))
        assert.isTrue(Either.isRight(outcome))
      }).pipe(Effect.provide(Layer.merge(store, McpTransport.layer.pipe(Layer.provide(store)))))
    }).pipe(Effect.scoped)
  )
})
