/** `readResource(…, {defaultTtlMs})`: a read kept for a default time when the server sends no `ttlMs`. */
import { assert, layer } from "@effect/vitest"
import { Config, type Mcp } from "@mcp-resources/protocol"
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

/**
 * A caller's form for the tests: a copy of the read, remembered as formed, that says it holds its
 * JSON text and `extra` bytes more (the extended profile's own form is tool-handlers' `Content.keptRead`).
 */
const formOf = (extra: number) => {
  const formed = new WeakSet<object>()
  const keptForm = (result: Mcp.ReadResourceResult) => {
    const value = { ...result }
    formed.add(value)
    return { value, size: Buffer.byteLength(JSON.stringify(result)) + extra }
  }
  return { formed, options: { ...kept, keptForm } }
}

layer(McpTransport.layerMemory)("a read kept in the caller's form and the cache bound", (it) => {
  it.scoped("the read is answered in the form, and the bytes the form holds are what the bound counts", () =>
    Effect.gen(function* () {
      const maxBytes = 1024 * 1024
      const extra = 256 * 1024
      const body = largeText(300 * 1024)
      const f = yield* fixture({ reads: [text("x://big", { contents: [{ uri: "x://big", text: body }] })] })
      const client = yield* ResourceClient.make({
        config: { ...Config.empty, cache: { enabled: true, maxBytes } },
        servers: [entry("srv", f)]
      })
      yield* Effect.flatMap(client.latest, (set) => set.awaitAllSettled)
      const form = formOf(extra)
      const jsonBytes = Buffer.byteLength(JSON.stringify({ contents: [{ uri: "x://big", text: body }] }))
      for (let i = 0; i < 5; i++) {
        const read = yield* client.readResource("srv", "x://big", undefined, form.options)
        // the answer is the kept form; its JSON text is the server's
        assert.isTrue(form.formed.has(read))
        assert.strictEqual(JSON.stringify(read), JSON.stringify({ contents: [{ uri: "x://big", text: body }] }))
        const stats = yield* client.cacheStats
        assert.isAtMost(stats.bytes, maxBytes)
        // accounted: the size the form says it holds (and a small rest), not the JSON text alone
        assert.isAtLeast(stats.bytes, jsonBytes + extra)
        assert.isBelow(stats.bytes, jsonBytes + extra + 1024)
      }
      assert.strictEqual(count(f.requests), 1)
      // a read without the option keeps its plain form
      const plain = yield* client.readResource("srv", "x://big")
      assert.isFalse(form.formed.has(plain))
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
      const form = formOf(0)
      // windows over a, b, c, then a again: two bodies fit, the third evicts the least recently used
      for (const uri of [...uris, "x://a", "x://c"]) {
        for (let window = 0; window < 3; window++) {
          const read = yield* client.readResource("srv", uri, undefined, form.options)
          assert.isTrue(form.formed.has(read))
          const item = read.contents[0]!
          assert.strictEqual("text" in item ? item.text : undefined, bodies.find((b) => b.uri === uri)!.body)
          assert.isAtMost((yield* client.cacheStats).bytes, maxBytes)
        }
      }
      // a, b, c once each, a again (evicted by c); c still kept
      assert.strictEqual(count(f.requests), 4)
    })
  )

  it.scoped("a body whose kept form exceeds the bound is not kept: every window reads it again", () =>
    Effect.gen(function* () {
      const body = largeText(200 * 1024)
      const f = yield* fixture({ reads: [text("x://big", { contents: [{ uri: "x://big", text: body }] })] })
      const client = yield* ResourceClient.make({
        config: { ...Config.empty, cache: { enabled: true, maxBytes: 100 * 1024 } },
        servers: [entry("srv", f)]
      })
      yield* Effect.flatMap(client.latest, (set) => set.awaitAllSettled)
      const form = formOf(0)
      for (let i = 0; i < 3; i++) {
        const read = yield* client.readResource("srv", "x://big", undefined, form.options)
        assert.isTrue(form.formed.has(read))
      }
      assert.strictEqual(count(f.requests), 3)
      assert.deepStrictEqual((yield* client.cacheStats).entries, 0)
    })
  )
})
