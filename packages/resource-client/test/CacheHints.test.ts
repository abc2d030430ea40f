/**
 * Caching hints a server gets wrong (`ttlMs: -5`, `ttlMs: "1000"`, an object `cacheScope`), from a
 * real v2 SDK server over HTTP (`initialize` era): the read is served as if the hint were absent and nothing is kept,
 * so the next read reaches the server again. Requests are counted at the fixture.
 */
import { assert, describe, it } from "@effect/vitest"
import { startV2Http, v2Catalog } from "@mcp-resources/fixtures"
import { Config } from "@mcp-resources/protocol"
import { Effect } from "effect"
import { McpTransport, ResourceClient } from "../src/index.js"

const v2Http = Effect.acquireRelease(
  Effect.promise(() => startV2Http("stateless")),
  (fixture) => Effect.promise(() => fixture.close())
)

describe("unusable caching hints", () => {
  it.live("a read with a negative or string ttlMs, or an object cacheScope, is served and not cached", () =>
    Effect.gen(function* () {
      const server = yield* v2Http
      const client = yield* ResourceClient.make({
        config: Config.empty,
        servers: [
          {
            name: "remote",
            transport: { _tag: "http", url: server.url, httpHeaders: {} },
            enabled: true,
            startupTimeoutSec: 60,
            toolTimeoutSec: 30,
            maxMessageBytes: 67108864,
            // the 2026-07-28 era's server fills in its own hints; the `initialize` era sends the catalog's
            protocolVersion: "legacy"
          }
        ]
      })
      yield* Effect.flatMap(client.latest, (set) => set.awaitAllSettled)
      const reads = () => server.counter.requests.filter((method) => method === "resources/read").length
      for (const uri of Object.keys(v2Catalog.unusableHintReads)) {
        const before = reads()
        const first = yield* Effect.either(client.readResource("remote", uri))
        assert.deepStrictEqual(
          first._tag === "Right" ? first.right : first.left.message,
          {
            contents: [{ uri, text: (v2Catalog.unusableHintReads[uri]!.contents as Array<{ text: string }>)[0]!.text }]
          },
          uri
        )
        yield* client.readResource("remote", uri)
        assert.strictEqual(reads() - before, 2, `${uri}: the second read reaches the server`)
      }
    }).pipe(Effect.scoped, Effect.provide(McpTransport.layer))
  )
})
