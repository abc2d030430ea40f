/** `readResource(…, {defaultTtlMs})`: a read kept for a default time when the server sends no `ttlMs`. */
import { assert, layer } from "@effect/vitest"
import { Config } from "@mcp-resources/protocol"
import { Effect, TestClock } from "effect"
import { McpTransport, ResourceClient } from "../src/index.js"
import { entry, fixture, setupOf } from "./utils/memory.js"

const count = (requests: ReadonlyArray<{ method: string }>) =>
  requests.filter((r) => r.method === "resources/read").length
const text = (uri: string, extra: Record<string, unknown> = {}) => ({
  uri,
  result: { contents: [{ uri, text: "body" }], ...extra }
})
const kept = { defaultTtlMs: 500 }

layer(McpTransport.layerMemory)("a read's default ttl", (it) => {
  it.scoped("keeps a read without ttlMs for the default time, apart from reads without the option", () =>
    Effect.gen(function* () {
      const f = yield* fixture({ reads: [text("x://a")] })
      const client = yield* ResourceClient.make(setupOf([entry("srv", f)]))
      yield* Effect.flatMap(client.latest, (set) => set.awaitAllSettled)
      yield* client.readResource("srv", "x://a", undefined, kept)
      yield* client.readResource("srv", "x://a", undefined, kept)
      assert.strictEqual(count(f.requests), 1)
      // a read without the option is not answered from the kept one
      yield* client.readResource("srv", "x://a")
      assert.strictEqual(count(f.requests), 2)
      yield* TestClock.adjust("500 millis")
      yield* client.readResource("srv", "x://a", undefined, kept)
      assert.strictEqual(count(f.requests), 3)
    })
  )

  it.scoped("a server's ttlMs wins over the default, also 0", () =>
    Effect.gen(function* () {
      const f = yield* fixture({ reads: [text("x://zero", { ttlMs: 0 }), text("x://long", { ttlMs: 10_000 })] })
      const client = yield* ResourceClient.make(setupOf([entry("srv", f)]))
      yield* Effect.flatMap(client.latest, (set) => set.awaitAllSettled)
      yield* client.readResource("srv", "x://zero", undefined, kept)
      yield* client.readResource("srv", "x://zero", undefined, kept)
      assert.strictEqual(count(f.requests), 2)
      yield* client.readResource("srv", "x://long", undefined, kept)
      yield* TestClock.adjust("5 seconds")
      yield* client.readResource("srv", "x://long", undefined, kept)
      assert.strictEqual(count(f.requests), 3)
    })
  )
})

/** A text of at least `bytes` UTF-8 bytes, with one- to four-byte characters (a JavaScript string of two bytes a unit). */
const largeText = (bytes: number) => {
  const unit = "line é ✓ 😀 text\n"
  return unit.repeat(Math.ceil(bytes / Buffer.byteLength(unit)))
}

layer(McpTransport.layerMemory)("a read kept for windows and the cache bound", (it) => {
  it.scoped("a large text is kept as its UTF-8 bytes only, and those bytes are what the bound counts", () =>
    Effect.gen(function* () {
      const maxBytes = 1024 * 1024
      const body = largeText(300 * 1024)
      const bodyBytes = Buffer.byteLength(body)
      const f = yield* fixture({ reads: [text("x://big", { contents: [{ uri: "x://big", text: body }] })] })
      const client = yield* ResourceClient.make({
        config: { ...Config.empty, cache: { enabled: true, maxBytes } },
        servers: [entry("srv", f)]
      })
      yield* Effect.flatMap(client.latest, (set) => set.awaitAllSettled)
      for (let i = 0; i < 5; i++) {
        const read = yield* client.readResource("srv", "x://big", undefined, kept)
        const item = read.contents[0]!
        // the bytes the windows use are the kept ones; the text reads the same
        const bytes = ResourceClient.textBytes(item)
        assert.isDefined(bytes)
        assert.strictEqual(bytes!.length, bodyBytes)
        assert.strictEqual("text" in item ? item.text : undefined, body)
        assert.strictEqual(JSON.stringify(read), JSON.stringify({ contents: [{ uri: "x://big", text: body }] }))
        const stats = yield* client.cacheStats
        assert.isAtMost(stats.bytes, maxBytes)
        // accounted: the body's bytes (the one copy kept) and a small rest, not its JSON text twice
        assert.isAtLeast(stats.bytes, bodyBytes)
        assert.isBelow(stats.bytes, bodyBytes + 1024)
      }
      assert.strictEqual(count(f.requests), 1)
      // a read without the option keeps its plain form
      const plain = yield* client.readResource("srv", "x://big")
      assert.isUndefined(ResourceClient.textBytes(plain.contents[0]!))
    })
  )

  it.scoped("three bodies that fit one at a time evict each other; the accounted bytes never pass the bound", () =>
    Effect.gen(function* () {
      const maxBytes = 1024 * 1024
      const uris = ["x://a", "x://b", "x://c"]
      const bodies = uris.map((uri) => ({ uri, body: `${uri}\n${largeText(400 * 1024)}` }))
      const f = yield* fixture({
        reads: bodies.map(({ uri, body }) => text(uri, { contents: [{ uri, text: body }] }))
      })
      const client = yield* ResourceClient.make({
        config: { ...Config.empty, cache: { enabled: true, maxBytes } },
        servers: [entry("srv", f)]
      })
      yield* Effect.flatMap(client.latest, (set) => set.awaitAllSettled)
      // windows over a, b, c, then a again: two bodies fit, the third evicts the least recently used
      for (const uri of [...uris, "x://a", "x://c"]) {
        for (let window = 0; window < 3; window++) {
          const read = yield* client.readResource("srv", uri, undefined, kept)
          assert.strictEqual(
            ResourceClient.textBytes(read.contents[0]!)?.toString("utf8"),
            bodies.find((b) => b.uri === uri)!.body
          )
          assert.isAtMost((yield* client.cacheStats).bytes, maxBytes)
        }
      }
      // a, b, c once each, a again (evicted by c); c still kept
      assert.strictEqual(count(f.requests), 4)
    })
  )

  it.scoped("a body whose kept bytes exceed the bound is not kept: every window reads it again", () =>
    Effect.gen(function* () {
      const body = largeText(200 * 1024)
      const f = yield* fixture({ reads: [text("x://big", { contents: [{ uri: "x://big", text: body }] })] })
      const client = yield* ResourceClient.make({
        config: { ...Config.empty, cache: { enabled: true, maxBytes: 100 * 1024 } },
        servers: [entry("srv", f)]
      })
      yield* Effect.flatMap(client.latest, (set) => set.awaitAllSettled)
      for (let i = 0; i < 3; i++) {
        const read = yield* client.readResource("srv", "x://big", undefined, kept)
        assert.strictEqual(ResourceClient.textBytes(read.contents[0]!)?.length, Buffer.byteLength(body))
      }
      assert.strictEqual(count(f.requests), 3)
      assert.deepStrictEqual((yield* client.cacheStats).entries, 0)
    })
  )
})
