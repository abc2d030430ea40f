/**
 * Issue 46 item 6: the secrets of a server URL (query values, credentials) never appear in the
 * server's status, its requests' errors or the logs, even when the server's own answer or the
 * runtime quotes the URL. A real loopback HTTP server answers every request with an error page that
 * echoes the request target, as many servers' error pages do.
 */
import * as NodeHttp from "node:http"
import { assert, describe, it } from "@effect/vitest"
import { Config } from "@mcp-resources/protocol"
import { Effect, Either, Logger } from "effect"
import { McpTransport, ResourceClient, type ServerEntry } from "../src/index.js"

/** A server that answers 500 with a page quoting the request line. */
const echoServer = Effect.acquireRelease(
  Effect.async<NodeHttp.Server>((resume) => {
    const server = NodeHttp.createServer((request, response) => {
      request.resume()
      response
        .writeHead(500, { "content-type": "text/plain" })
        .end(`internal error handling ${request.method} ${request.url}`)
    })
    server.listen(0, "127.0.0.1", () => resume(Effect.succeed(server)))
  }),
  (server) =>
    Effect.async<void>((resume) => {
      server.close(() => resume(Effect.void))
      server.closeAllConnections()
    })
)

const entry = (name: string, url: string): ServerEntry.ServerEntry => ({
  name,
  transport: { _tag: "http", url, httpHeaders: { Authorization: "Bearer static" } },
  enabled: true,
  startupTimeoutSec: 30,
  toolTimeoutSec: 30,
  maxMessageBytes: 67108864
})

/** The message of a failure, or `succeeded`. */
const failureOf = <A, E extends { readonly message: string }, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.map(Effect.either(effect), (r) => (Either.isLeft(r) ? r.left.message : "succeeded"))

describe("server URL secrets", () => {
  it.scoped("query values and credentials of the URL appear in no status, error or log line", () =>
    Effect.gen(function* () {
      const server = yield* echoServer
      const port = (server.address() as { port: number }).port
      const lines: Array<string> = []
      const logger = Logger.replace(
        Logger.defaultLogger,
        Logger.make(({ message, cause }) => {
          lines.push(`${String(message)} ${String(cause)}`)
        })
      )
      return yield* Effect.gen(function* () {
        const client = yield* ResourceClient.make({
          config: Config.empty,
          servers: [
            entry("echo", `http://127.0.0.1:${port}/mcp?token=query-secret-1&mode=x`),
            // made in code (the config refuses it): the runtime's own message quotes the whole URL
            entry("userinfo", `http://alice:userinfo-secret-2@127.0.0.1:${port}/mcp`)
          ]
        }).pipe(Effect.provide(McpTransport.layer))
        yield* Effect.flatMap(client.latest, (set) => set.awaitAllSettled)
        const servers = yield* client.servers
        const errors = [
          ...servers.map((s) => `${s.status}: ${s.error ?? ""}`),
          ...(yield* Effect.all([
            failureOf(client.listResources("echo")),
            failureOf(client.listResources("userinfo")),
            failureOf(client.readResource("echo", "x://y"))
          ]))
        ]
        // the failures still say what happened, with the URL's query values redacted
        assert.strictEqual(
          servers.find((s) => s.name === "echo")?.error,
          "HTTP 500: internal error handling POST /mcp?token=REDACTED&mode=REDACTED"
        )
        for (const text of [...errors, ...lines]) {
          assert.notInclude(text, "query-secret-1")
          assert.notInclude(text, "userinfo-secret-2")
          assert.notInclude(text, "alice:")
        }
        assert.isTrue(
          lines.some((line) => line.includes("MCP server 'echo' failed to start")),
          "the start-up failure was logged"
        )
      }).pipe(Effect.provide(logger))
    })
  )
})
