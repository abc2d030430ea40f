/**
 * Issue 16 item 7: an answer with the right id and a body that is not a result (`result: null`,
 * `[]`, a string, neither result nor error) fails at once naming the invalid body, instead of
 * waiting for the request's timeout. A hand-written server answers on the other side of an
 * in-memory pair.
 */
import * as NodeHttp from "node:http"
import { assert, describe, it } from "@effect/vitest"
import { Config } from "@mcp-resources/protocol"
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js"
import { Effect, Either } from "effect"
import { McpTransport, ResourceClient, ServerEntry } from "../src/index.js"

/** The answer of `resources/read` for each uri, as raw JSON-RPC message fields besides `jsonrpc` and `id`. */
const answers: Record<string, Record<string, unknown>> = {
  "x://null": { result: null },
  "x://array": { result: [] },
  "x://string": { result: "ok" },
  "x://nothing": {}
}

/** A server that speaks just enough MCP (legacy era) and answers reads from `answers`. */
const rawServer = async () => {
  const [client, server] = InMemoryTransport.createLinkedPair()
  server.onmessage = (message) => {
    const request = message as { id?: number | string; method?: string; params?: { uri?: string } }
    if (request.id === undefined || request.method === undefined) return
    const reply = (fields: Record<string, unknown>) =>
      void server.send({ jsonrpc: "2.0", id: request.id, ...fields } as never)
    switch (request.method) {
      case "initialize":
        return reply({
          result: {
            protocolVersion: "2025-11-25",
            capabilities: { resources: {} },
            serverInfo: { name: "raw", version: "1" }
          }
        })
      case "resources/read":
        return reply(answers[request.params?.uri ?? ""] ?? { error: { code: -32602, message: "unknown" } })
      default:
        return reply({ error: { code: -32601, message: "Method not found" } })
    }
  }
  await server.start()
  return client
}

const message = <A>(either: Either.Either<A, { readonly message: string }>): string =>
  Either.match(either, { onLeft: (error) => error.message, onRight: () => "succeeded" })

describe("malformed answers", () => {
  it.scoped("result null, an array, a string or neither result nor error fail at once, naming the body", () =>
    Effect.gen(function* () {
      // tool_timeout_sec is 300 s and the TestClock never moves: only an immediate failure ends the reads
      const client = yield* ResourceClient.make({
        config: Config.empty,
        servers: [ServerEntry.memory("raw", rawServer)]
      }).pipe(Effect.provide(McpTransport.layerMemory))
      yield* Effect.flatMap(client.latest, (set) => set.awaitAllSettled)
      const read = (uri: string) => Effect.map(Effect.either(client.readResource("raw", uri)), message)
      assert.deepStrictEqual(
        yield* Effect.all([read("x://null"), read("x://array"), read("x://string"), read("x://nothing")]),
        [
          "resources/read failed for `raw` (x://null): invalid resources/read result: expected a JSON object, got null",
          "resources/read failed for `raw` (x://array): invalid resources/read result: expected a JSON object, got an array",
          "resources/read failed for `raw` (x://string): invalid resources/read result: expected a JSON object, got a string",
          "resources/read failed for `raw` (x://nothing): invalid resources/read response: it carries neither a result nor an error"
        ]
      )
      // the connection stays usable
      assert.strictEqual(
        yield* read("x://other"),
        "resources/read failed for `raw` (x://other): Mcp error: -32602: unknown"
      )
    })
  )
})

/** The answers of the stdio raw server, by uri: whole JSON-RPC messages besides `id`. */
const malformedErrors: Record<string, Record<string, unknown>> = {
  "x://no-message": { jsonrpc: "2.0", error: { code: -32000 } },
  "x://string-error": { jsonrpc: "2.0", error: "it broke" },
  "x://code-string": { jsonrpc: "2.0", error: { code: "E1", message: "failed" } },
  "x://no-code": { jsonrpc: "2.0", error: { message: "failed" } },
  "x://message-number": { jsonrpc: "2.0", error: { code: -32000, message: 7 } },
  "x://both": { jsonrpc: "2.0", result: { contents: [] }, error: { code: -32000, message: "failed" } },
  "x://extra-key": { jsonrpc: "2.0", result: { contents: [] }, note: "hi" },
  "x://no-jsonrpc": { result: { contents: [] } }
}

/**
 * A stdio MCP server as a real child process that speaks just enough MCP (legacy era) and answers
 * each read with the malformed message of its uri.
 */
const rawStdioServer = `
const answers = ${JSON.stringify(malformedErrors)}
let buffer = ""
process.stdin.setEncoding("utf8")
process.stdin.on("data", (chunk) => {
  buffer += chunk
  let end
  while ((end = buffer.indexOf("\\n")) >= 0) {
    const line = buffer.slice(0, end)
    buffer = buffer.slice(end + 1)
    if (line.trim() === "") continue
    const request = JSON.parse(line)
    if (request.id === undefined) continue
    const send = (fields) => process.stdout.write(JSON.stringify({ id: request.id, ...fields }) + "\\n")
    if (request.method === "initialize") {
      send({ jsonrpc: "2.0", result: { protocolVersion: "2025-11-25", capabilities: { resources: {} }, serverInfo: { name: "raw", version: "1" } } })
    } else if (request.method === "resources/read") {
      send(answers[request.params.uri] ?? { jsonrpc: "2.0", error: { code: -32602, message: "unknown" } })
    } else {
      send({ jsonrpc: "2.0", error: { code: -32601, message: "Method not found" } })
    }
  }
})
process.stdin.on("end", () => process.exit(0))
`

describe("malformed errors from a stdio server", () => {
  it.scoped(
    "an error without message, a malformed error, both result and error fail at once, naming what is invalid",
    () =>
      Effect.gen(function* () {
        // tool_timeout_sec is 600 s: only failures that arrive at once end the reads within the test's own timeout
        const entry: ServerEntry.ServerEntry = {
          name: "raw",
          transport: { _tag: "stdio", command: process.execPath, args: ["-e", rawStdioServer], env: {} },
          enabled: true,
          startupTimeoutSec: 30,
          toolTimeoutSec: 600,
          maxMessageBytes: 67108864
        }
        const client = yield* ResourceClient.make({ config: Config.empty, servers: [entry] }).pipe(
          Effect.provide(McpTransport.layer)
        )
        yield* Effect.flatMap(client.latest, (set) => set.awaitAllSettled)
        const read = (uri: string) => Effect.map(Effect.either(client.readResource("raw", uri)), message)
        const uris = Object.keys(malformedErrors)
        const failures = yield* Effect.all(uris.map(read), { concurrency: "unbounded" })
        const prefix = (uri: string) => `resources/read failed for \`raw\` (${uri}): invalid resources/read response: `
        assert.deepStrictEqual(failures, [
          `${prefix("x://no-message")}error.message is missing`,
          `${prefix("x://string-error")}error: expected a JSON object, got a string`,
          `${prefix("x://code-string")}error.code: expected an integer, got a string`,
          `${prefix("x://no-code")}error.code is missing`,
          `${prefix("x://message-number")}error.message: expected a string, got a number`,
          `${prefix("x://both")}it carries both a result and an error`,
          `${prefix("x://extra-key")}unexpected key "note"`,
          `${prefix("x://no-jsonrpc")}jsonrpc is not "2.0"`
        ])
        // the connection stays usable
        assert.strictEqual(
          yield* read("x://other"),
          "resources/read failed for `raw` (x://other): Mcp error: -32602: unknown"
        )
      })
  )
})

/**
 * A streamable HTTP server as a real loopback listener that answers every request in a
 * `text/event-stream`, each read with the malformed message of its uri.
 */
const rawHttpServer = Effect.acquireRelease(
  Effect.async<NodeHttp.Server>((resume) => {
    const server = NodeHttp.createServer((request, response) => {
      if (request.method !== "POST") {
        response.writeHead(405).end()
        return
      }
      let body = ""
      request.on("data", (chunk) => {
        body += chunk
      })
      request.on("end", () => {
        const message = JSON.parse(body) as { id?: number; method: string; params?: { uri?: string } }
        if (message.id === undefined) {
          response.writeHead(202).end()
          return
        }
        const fields =
          message.method === "initialize"
            ? {
                jsonrpc: "2.0",
                result: {
                  protocolVersion: "2025-11-25",
                  capabilities: { resources: {} },
                  serverInfo: { name: "raw", version: "1" }
                }
              }
            : message.method === "resources/read"
              ? (malformedErrors[message.params?.uri ?? ""] ?? {
                  jsonrpc: "2.0",
                  error: { code: -32602, message: "unknown" }
                })
              : { jsonrpc: "2.0", error: { code: -32601, message: "Method not found" } }
        response
          .writeHead(200, { "content-type": "text/event-stream" })
          .end(`event: message\ndata: ${JSON.stringify({ id: message.id, ...fields })}\n\n`)
      })
    })
    server.listen(0, "127.0.0.1", () => resume(Effect.succeed(server)))
  }),
  (server) =>
    Effect.async<void>((resume) => {
      server.close(() => resume(Effect.void))
      server.closeAllConnections()
    })
)

describe("malformed errors in an HTTP event stream", () => {
  it.scoped("each fails at once, naming what is invalid", () =>
    Effect.gen(function* () {
      const server = yield* rawHttpServer
      const port = (server.address() as { port: number }).port
      // tool_timeout_sec is 600 s: only failures that arrive at once end the reads within the test's own timeout
      const entry: ServerEntry.ServerEntry = {
        name: "raw",
        transport: { _tag: "http", url: `http://127.0.0.1:${port}/mcp`, httpHeaders: { Authorization: "Bearer x" } },
        enabled: true,
        startupTimeoutSec: 30,
        toolTimeoutSec: 600,
        maxMessageBytes: 67108864
      }
      const client = yield* ResourceClient.make({ config: Config.empty, servers: [entry] }).pipe(
        Effect.provide(McpTransport.layer)
      )
      yield* Effect.flatMap(client.latest, (set) => set.awaitAllSettled)
      const read = (uri: string) => Effect.map(Effect.either(client.readResource("raw", uri)), message)
      const failures = yield* Effect.all(
        ["x://no-message", "x://string-error", "x://both", "x://no-jsonrpc"].map(read),
        {
          concurrency: "unbounded"
        }
      )
      const prefix = (uri: string) => `resources/read failed for \`raw\` (${uri}): invalid resources/read response: `
      assert.deepStrictEqual(failures, [
        `${prefix("x://no-message")}error.message is missing`,
        `${prefix("x://string-error")}error: expected a JSON object, got a string`,
        `${prefix("x://both")}it carries both a result and an error`,
        `${prefix("x://no-jsonrpc")}jsonrpc is not "2.0"`
      ])
    })
  )
})
