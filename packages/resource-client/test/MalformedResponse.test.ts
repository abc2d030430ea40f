/**
 * Issue 16 item 7: an answer with the right id and a body that is not a result (`result: null`,
 * `[]`, a string, neither result nor error) fails at once naming the invalid body, instead of
 * waiting for the request's timeout. A hand-written server answers on the other side of an
 * in-memory pair.
 */
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
