/** Cached answers give the model exactly the bytes of uncached ones (the resource client's `ttlMs` cache). */
import { connectInMemory, type FixtureSpec } from "@mcp-resources/fixtures"
import { Config } from "@mcp-resources/protocol"
import { McpTransport, ResourceClient, ServerEntry } from "@mcp-resources/resource-client"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { LifecycleSink, ToolHandlers } from "../src/index.js"

const spec = (): FixtureSpec => {
  const ttl = { ttlMs: 60_000, cacheScope: "public" }
  return {
    resourcePages: [
      { result: { resources: [{ uri: "memo://a", name: "a", title: "A" }], nextCursor: "", ...ttl } },
      { cursor: "", result: { resources: [{ uri: "memo://b", name: "b", mimeType: "text/plain" }], ...ttl } }
    ],
    templatePages: [{ result: { resourceTemplates: [{ uriTemplate: "memo://{id}", name: "memo" }], ...ttl } }],
    reads: [
      {
        uri: "memo://a",
        result: {
          resultType: "complete",
          ...ttl,
          contents: [
            { uri: "memo://a", mimeType: "text/plain", text: "héllo ✓" },
            { uri: "memo://a.bin", blob: "AAE=" }
          ],
          _meta: { etag: "1" }
        }
      }
    ]
  }
}

const calls = [
  ["list_mcp_resources", "{}"],
  ["list_mcp_resources", '{"server":"srv"}'],
  ["list_mcp_resource_templates", "{}"],
  ["read_mcp_resource", '{"server":"srv","uri":"memo://a"}']
] as const

/** Every call twice on a client over the spec (cache on or off); the outputs and how many requests the server saw. */
const outputs = (enabled: boolean) =>
  Effect.gen(function* () {
    const fixture = connectInMemory(spec())
    yield* Effect.addFinalizer(() => Effect.promise(() => fixture.closeAll()))
    const client = yield* ResourceClient.make({
      config: { ...Config.empty, cache: { ...Config.cacheDefaults, enabled } },
      servers: [ServerEntry.memory("srv", fixture.connect)]
    }).pipe(Effect.provide(McpTransport.layerMemory))
    const set = yield* client.acquire
    yield* set.awaitAllSettled
    const ctx: ToolHandlers.ToolContext = {
      set,
      config: Config.empty,
      orchestratorMcpEnabled: true,
      truncation: Config.empty.truncation
    }
    const results: Array<ToolHandlers.ToolOutput> = []
    for (const round of [1, 2]) {
      for (const [name, args] of calls) {
        results.push(yield* ToolHandlers.callTool(ctx, { callId: `${round}-${name}-${args}`, name, arguments: args }))
      }
    }
    // the handshake (the era probe `server/discover`, `initialize`) and the tool catalog are not resource requests
    const handshake = new Set(["server/discover", "initialize", "tools/list"])
    const requests = fixture.requests.filter((r) => !handshake.has(r.method)).length
    return { results, requests }
  }).pipe(Effect.provide(LifecycleSink.layerNoop))

describe("cached answers", () => {
  it.scoped("the model gets the same bytes from a cached list, template list and read as from uncached ones", () =>
    Effect.gen(function* () {
      const uncached = yield* outputs(false)
      const cached = yield* outputs(true)
      // uncached: 5 requests a round (two pages, the first page again, templates, the read); cached: the
      // first round's distinct ones only (the single-server list is the aggregate's first page)
      assert.deepStrictEqual([uncached.requests, cached.requests], [10, 4])
      assert.deepStrictEqual(
        cached.results.map((r) => JSON.stringify(r)),
        uncached.results.map((r) => JSON.stringify(r))
      )
      assert.isTrue(cached.results.every((r) => r.success))
    })
  )
})
