/** `readResource(…, {defaultTtlMs})`: a read kept for a default time when the server sends no `ttlMs`. */
import { assert, layer } from "@effect/vitest"
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
