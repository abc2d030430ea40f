import { assert, describe, it, layer } from "@effect/vitest"
import { Config } from "@mcp-resources/protocol"
import { ConfigProvider, Effect, Either, TestClock } from "effect"
import * as Cache from "../src/internal/cache.js"
import { partitionOf } from "../src/internal/cache.js"
import { McpTransport, ResourceClient, type ServerEntry } from "../src/index.js"
import { entry, fixture, resource } from "./utils/memory.js"
import { awaitUpdate, listChangedOf } from "./utils/wait.js"

const tags = (server: string, method: string, uri?: string): Cache.Tags => ({
  server,
  generation: 1,
  method,
  ...(uri === undefined ? {} : { uri })
})

describe("ResultCache", () => {
  it("answers within the ttl, forgets after it, and never stores without a ttl", () => {
    const cache = new Cache.ResultCache({ enabled: true, maxBytes: 1000 })
    assert.isTrue(cache.put("a", { v: 1 }, { tags: tags("s", "m"), ttlMs: 100, bytes: 10, now: 0 }))
    assert.deepStrictEqual(cache.get("a", 99), { v: 1 })
    assert.isUndefined(cache.get("a", 100))
    assert.isFalse(cache.put("b", { v: 2 }, { tags: tags("s", "m"), ttlMs: 0, bytes: 10, now: 0 }))
    assert.isUndefined(cache.get("b", 0))
    assert.strictEqual(cache.stats().entries, 0)
  })

  it("cuts a ttl to one day", () => {
    const cache = new Cache.ResultCache({ enabled: true, maxBytes: 1000 })
    cache.put("a", 1, { tags: tags("s", "m"), ttlMs: 10 * Cache.maxTtlMs, bytes: 1, now: 0 })
    assert.strictEqual(cache.get("a", Cache.maxTtlMs - 1), 1)
    assert.isUndefined(cache.get("a", Cache.maxTtlMs))
  })

  it("evicts the least recently used entries past the byte bound, and refuses an entry larger than the bound", () => {
    const cache = new Cache.ResultCache({ enabled: true, maxBytes: 100 })
    cache.put("a", "a", { tags: tags("s", "m"), ttlMs: 1000, bytes: 40, now: 0 })
    cache.put("b", "b", { tags: tags("s", "m"), ttlMs: 1000, bytes: 40, now: 0 })
    assert.strictEqual(cache.get("a", 1), "a") // "b" is now the least recently used
    cache.put("c", "c", { tags: tags("s", "m"), ttlMs: 1000, bytes: 40, now: 1 })
    assert.isUndefined(cache.get("b", 2))
    assert.strictEqual(cache.get("a", 2), "a")
    assert.strictEqual(cache.get("c", 2), "c")
    assert.deepStrictEqual(
      { bytes: cache.stats().bytes, evictions: cache.stats().evictions },
      { bytes: 80, evictions: 1 }
    )
    assert.isFalse(cache.put("d", "d", { tags: tags("s", "m"), ttlMs: 1000, bytes: 101, now: 2 }))
  })

  it("invalidates by uri, by method, by server and by generation", () => {
    const cache = new Cache.ResultCache({ enabled: true, maxBytes: 10_000 })
    const put = (key: string, t: Cache.Tags) => cache.put(key, key, { tags: t, ttlMs: 1000, bytes: 1, now: 0 })
    put("r1", tags("s", "resources/read", "x://1"))
    put("r2", tags("s", "resources/read", "x://2"))
    put("l", tags("s", "resources/list"))
    put("o", { server: "other", generation: 2, method: "resources/list" })
    assert.strictEqual(cache.invalidateUri("s", "x://1"), 1)
    assert.isUndefined(cache.get("r1", 0))
    assert.strictEqual(cache.get("r2", 0), "r2")
    assert.strictEqual(cache.invalidateMethod("s", "resources/list"), 1)
    assert.strictEqual(cache.get("o", 0), "o")
    assert.strictEqual(cache.invalidateGeneration(2), 1)
    assert.strictEqual(cache.invalidateServer("s"), 1)
    assert.strictEqual(cache.stats().entries, 0)
  })

  it("stores nothing when disabled, and a smaller bound evicts at once", () => {
    const cache = new Cache.ResultCache({ enabled: false, maxBytes: 1000 })
    assert.isFalse(cache.put("a", 1, { tags: tags("s", "m"), ttlMs: 1000, bytes: 1, now: 0 }))
    cache.configure({ enabled: true, maxBytes: 1000 })
    cache.put("a", 1, { tags: tags("s", "m"), ttlMs: 1000, bytes: 600, now: 0 })
    cache.put("b", 2, { tags: tags("s", "m"), ttlMs: 1000, bytes: 300, now: 0 })
    cache.configure({ enabled: true, maxBytes: 500 })
    assert.deepStrictEqual([cache.get("a", 0), cache.get("b", 0)], [undefined, 2])
    cache.configure({ enabled: false, maxBytes: 500 })
    assert.strictEqual(cache.stats().entries, 0)
  })
})

describe("SetCache.through", () => {
  const make = (partitions: Record<string, string> = { s: "p1" }, maxBytes = 10_000) => {
    const store = new Cache.ResultCache({ enabled: true, maxBytes })
    return { store, set: new Cache.SetCache(store, 1, new Map(Object.entries(partitions))) }
  }
  /** A fetch that counts its runs and answers `result`. */
  const counted = <A>(result: A) => {
    const runs = { n: 0 }
    const fetch = Effect.sync(() => {
      runs.n += 1
      return result
    })
    return { runs, fetch }
  }

  it.effect("keeps an answer for the server's ttlMs on its connection, and fetches again after it", () =>
    Effect.gen(function* () {
      const { set } = make()
      const connection = {}
      const { runs, fetch } = counted({ ttlMs: 100, contents: [] })
      const read = Cache.readRequest("x://a", undefined, 0)
      yield* set.through("s", connection, read, fetch)
      yield* TestClock.adjust("99 millis")
      yield* set.through("s", connection, read, fetch)
      assert.strictEqual(runs.n, 1)
      yield* set.through("s", {}, read, fetch)
      assert.strictEqual(runs.n, 2)
      yield* TestClock.adjust("1 millis")
      yield* set.through("s", connection, read, fetch)
      assert.strictEqual(runs.n, 3)
    })
  )

  it.effect("shares a public answer across partitions, keeps any other to its own partition", () =>
    Effect.gen(function* () {
      const connection = {}
      const store = new Cache.ResultCache({ enabled: true, maxBytes: 10_000 })
      const first = new Cache.SetCache(store, 1, new Map([["s", "p1"]]))
      const second = new Cache.SetCache(store, 1, new Map([["s", "p2"]]))
      const shared = counted({ ttlMs: 1000, cacheScope: "public", contents: [] })
      const own = counted({ ttlMs: 1000, contents: [] })
      for (const set of [first, second]) {
        yield* set.through("s", connection, Cache.readRequest("x://shared", undefined, 0), shared.fetch)
        yield* set.through("s", connection, Cache.readRequest("x://own", undefined, 0), own.fetch)
      }
      assert.deepStrictEqual([shared.runs.n, own.runs.n], [1, 2])
    })
  )

  it.effect("a default kept time applies only when the server sent no ttlMs, and such reads are keyed apart", () =>
    Effect.gen(function* () {
      const { set } = make()
      const connection = {}
      const plain = counted({ contents: [] })
      const zero = counted({ ttlMs: 0, contents: [] })
      for (let i = 0; i < 2; i++) {
        yield* set.through("s", connection, Cache.readRequest("x://a", undefined, 500), plain.fetch)
        yield* set.through("s", connection, Cache.readRequest("x://z", undefined, 500), zero.fetch)
      }
      yield* set.through("s", connection, Cache.readRequest("x://a", undefined, 0), plain.fetch)
      assert.deepStrictEqual([plain.runs.n, zero.runs.n], [2, 2])
    })
  )

  it.effect("a refused cursor drops every cached page of that list", () =>
    Effect.gen(function* () {
      const { set, store } = make()
      const connection = {}
      const first = counted({ value: { resources: [] }, raw: { ttlMs: 1000 } })
      const page = (fetched: { readonly value: unknown; readonly raw: unknown }) => fetched
      yield* set.through("s", connection, Cache.pageRequest("resources/list", undefined), first.fetch, page)
      assert.strictEqual(store.stats().entries, 1)
      const refused = yield* set
        .through(
          "s",
          connection,
          Cache.pageRequest("resources/list", "c1"),
          Effect.fail({ _tag: "ServerError", code: -32602 }),
          page
        )
        .pipe(Effect.flip)
      assert.strictEqual(refused.code, -32602)
      assert.strictEqual(store.stats().entries, 0)
    })
  )

  it.effect("with the cache off, every request is fetched and nothing is kept", () =>
    Effect.gen(function* () {
      const store = new Cache.ResultCache({ enabled: false, maxBytes: 10_000 })
      const set = new Cache.SetCache(store, 1, new Map())
      const { runs, fetch } = counted({ ttlMs: 1000, contents: [] })
      yield* set.through("s", {}, Cache.readRequest("x://a", undefined, 0), fetch)
      yield* set.through("s", {}, Cache.readRequest("x://a", undefined, 0), fetch)
      assert.deepStrictEqual([runs.n, store.stats().entries], [2, 0])
    })
  )
})

describe("authorization partitions", () => {
  const hosted: ServerEntry.ServerEntry = {
    name: "hosted",
    transport: { _tag: "http", url: "http://127.0.0.1:1/mcp", bearerTokenEnvVar: "RC_CACHE_TOKEN", httpHeaders: {} },
    enabled: true,
    startupTimeoutSec: 10,
    toolTimeoutSec: 300,
    maxMessageBytes: 1024
  }
  const withToken = (token: string) =>
    partitionOf(hosted).pipe(Effect.withConfigProvider(ConfigProvider.fromMap(new Map([["RC_CACHE_TOKEN", token]]))))

  it.effect("another bearer token gives another partition, and the partition does not hold the token", () =>
    Effect.gen(function* () {
      const a = yield* withToken("secret-token-a")
      const b = yield* withToken("secret-token-b")
      assert.notStrictEqual(a, b)
      assert.strictEqual(a, yield* withToken("secret-token-a"))
      assert.isFalse(a.includes("secret"))
    })
  )
})

const ttlRead = (uri: string, ttlMs: number, extra: Record<string, unknown> = {}) => ({
  uri,
  result: { ttlMs, ...extra, contents: [{ uri, mimeType: "text/plain", text: `body of ${uri}` }] }
})

const count = (requests: ReadonlyArray<{ readonly method: string }>, method: string) =>
  requests.filter((r) => r.method === method).length

/**
 * Repeats `action`, letting in-memory I/O run between tries, until the fixture received `sent`
 * requests of `method` (bounded: the invalidation of a notification runs on its own fiber, and a
 * `resources/updated` of a uri nobody subscribed to publishes no update to await).
 */
const repeatUntilSent = <A, E>(
  requests: ReadonlyArray<{ readonly method: string }>,
  method: string,
  sent: number,
  action: Effect.Effect<A, E>
) =>
  Effect.gen(function* () {
    for (let i = 0; i < 200 && count(requests, method) < sent; i++) {
      yield* action
      yield* Effect.promise(() => new Promise<void>((resolve) => setImmediate(resolve)))
    }
    assert.strictEqual(count(requests, method), sent)
  })

const setupWith = (
  servers: ReadonlyArray<ServerEntry.ServerEntry>,
  cache: Partial<Config.CacheConfig> = {}
): ServerEntry.Setup => ({
  config: { ...Config.empty, cache: { ...Config.cacheDefaults, ...cache } },
  servers
})

const settled = (client: ResourceClient.Service) => Effect.flatMap(client.latest, (set) => set.awaitAllSettled)

layer(McpTransport.layerMemory)("the result cache through the client", (it) => {
  it.scoped("a repeated read within ttlMs sends no request and answers the same result; after expiry it does", () =>
    Effect.gen(function* () {
      const f = yield* fixture({ reads: [ttlRead("x://a", 1000)] })
      const client = yield* ResourceClient.make(setupWith([entry("srv", f)]))
      yield* settled(client)
      const first = yield* client.readResource("srv", "x://a")
      const second = yield* client.readResource("srv", "x://a")
      assert.deepStrictEqual(second, first)
      assert.strictEqual(JSON.stringify(second), JSON.stringify(first))
      assert.strictEqual(count(f.requests, "resources/read"), 1)
      yield* TestClock.adjust("999 millis")
      yield* client.readResource("srv", "x://a")
      assert.strictEqual(count(f.requests, "resources/read"), 1)
      yield* TestClock.adjust("1 millis")
      yield* client.readResource("srv", "x://a")
      assert.strictEqual(count(f.requests, "resources/read"), 2)
    })
  )

  it.scoped("without ttlMs (or with 0), and with [cache] enabled = false, every read is sent", () =>
    Effect.gen(function* () {
      const f = yield* fixture({
        reads: [ttlRead("x://zero", 0), { uri: "x://none", result: { contents: [] } }, ttlRead("x://ttl", 1000)]
      })
      const client = yield* ResourceClient.make(setupWith([entry("srv", f)]))
      yield* settled(client)
      for (const uri of ["x://zero", "x://none", "x://zero", "x://none"]) yield* client.readResource("srv", uri)
      assert.strictEqual(count(f.requests, "resources/read"), 4)
      const off = yield* fixture({ reads: [ttlRead("x://ttl", 1000)] })
      const disabled = yield* ResourceClient.make(setupWith([entry("srv", off)], { enabled: false }))
      yield* settled(disabled)
      yield* disabled.readResource("srv", "x://ttl")
      yield* disabled.readResource("srv", "x://ttl")
      assert.strictEqual(count(off.requests, "resources/read"), 2)
    })
  )

  it.scoped("reads with other params (uri, _meta) are cached apart", () =>
    Effect.gen(function* () {
      const f = yield* fixture({ reads: [ttlRead("x://a", 1000), ttlRead("x://b", 1000)] })
      const client = yield* ResourceClient.make(setupWith([entry("srv", f)]))
      yield* settled(client)
      yield* client.readResource("srv", "x://a")
      yield* client.readResource("srv", "x://b")
      yield* client.readResource("srv", "x://a", { connector: "one" })
      yield* client.readResource("srv", "x://a", { connector: "one" })
      yield* client.readResource("srv", "x://a", { connector: "two" })
      assert.strictEqual(count(f.requests, "resources/read"), 4)
    })
  )

  it.scoped("list and template pages are cached per cursor, also under the aggregate list", () =>
    Effect.gen(function* () {
      const f = yield* fixture({
        resourcePages: [
          { result: { resources: [resource("x://1", "1")], nextCursor: "p2", ttlMs: 1000 } },
          { cursor: "p2", result: { resources: [resource("x://2", "2")], ttlMs: 1000 } }
        ],
        templatePages: [{ result: { resourceTemplates: [{ uriTemplate: "x://{id}", name: "t" }], ttlMs: 1000 } }]
      })
      const client = yield* ResourceClient.make(setupWith([entry("srv", f)]))
      yield* settled(client)
      const aggregate = yield* client.listAllResources(() => true)
      assert.deepStrictEqual(yield* client.listAllResources(() => true), aggregate)
      assert.deepStrictEqual(yield* client.listResources("srv", "p2"), { resources: [resource("x://2", "2")] })
      assert.deepStrictEqual(yield* client.listResources("srv"), {
        resources: [resource("x://1", "1")],
        nextCursor: "p2"
      })
      assert.strictEqual(count(f.requests, "resources/list"), 2)
      yield* client.listResourceTemplates("srv")
      yield* client.listAllResourceTemplates(() => true)
      assert.strictEqual(count(f.requests, "resources/templates/list"), 1)
    })
  )

  it.scoped("resources/updated for a uri drops its read; list_changed drops the list pages", () =>
    Effect.gen(function* () {
      const f = yield* fixture({
        resourcePages: [{ result: { resources: [resource("x://a", "a")], ttlMs: 60_000 } }],
        reads: [ttlRead("x://a", 60_000), ttlRead("x://b", 60_000)]
      })
      const client = yield* ResourceClient.make(setupWith([entry("srv", f)]))
      yield* settled(client)
      yield* client.readResource("srv", "x://a")
      yield* client.readResource("srv", "x://b")
      yield* client.listResources("srv")
      yield* Effect.promise(() => f.notify("notifications/resources/updated", { uri: "x://a" }))
      yield* repeatUntilSent(f.requests, "resources/read", 3, client.readResource("srv", "x://a"))
      yield* client.readResource("srv", "x://b")
      yield* client.listResources("srv")
      assert.deepStrictEqual([count(f.requests, "resources/read"), count(f.requests, "resources/list")], [3, 1])
      yield* awaitUpdate(
        client,
        listChangedOf("srv"),
        Effect.promise(() => f.notify("notifications/resources/list_changed"))
      )
      yield* client.listResources("srv")
      assert.strictEqual(count(f.requests, "resources/list"), 2)
      yield* client.readResource("srv", "x://b")
      assert.strictEqual(count(f.requests, "resources/read"), 3)
    })
  )

  it.scoped("a reload (a new generation, even with the same connection) and a reconnect send the request again", () =>
    Effect.gen(function* () {
      const f = yield* fixture({ reads: [ttlRead("x://a", 60_000)] })
      const setup = setupWith([entry("srv", f)])
      const client = yield* ResourceClient.make(setup)
      yield* settled(client)
      yield* client.readResource("srv", "x://a")
      yield* client.readResource("srv", "x://a")
      yield* client.reload(setup)
      yield* settled(client)
      assert.strictEqual(f.stats.opened, 1)
      yield* client.readResource("srv", "x://a")
      yield* client.readResource("srv", "x://a")
      yield* client.reconnect
      yield* settled(client)
      yield* client.readResource("srv", "x://a")
      assert.strictEqual(count(f.requests, "resources/read"), 3)
    })
  )

  it.scoped("a refused cursor drops the cached pages of that list", () =>
    Effect.gen(function* () {
      const f = yield* fixture({
        resourcePages: [
          { result: { resources: [resource("x://1", "1")], nextCursor: "p2", ttlMs: 60_000 } },
          { cursor: "p2", error: { code: -32602, message: "invalid cursor" } }
        ]
      })
      const client = yield* ResourceClient.make(setupWith([entry("srv", f)]))
      yield* settled(client)
      yield* client.listResources("srv")
      yield* client.listResources("srv")
      assert.strictEqual(count(f.requests, "resources/list"), 1)
      const refused = yield* Effect.either(client.listResources("srv", "p2"))
      assert.isTrue(Either.isLeft(refused))
      yield* client.listResources("srv")
      assert.strictEqual(count(f.requests, "resources/list"), 3)
    })
  )

  it.scoped("the byte bound evicts the least recently used read", () =>
    Effect.gen(function* () {
      const big = (uri: string) => ({
        uri,
        result: { ttlMs: 60_000, contents: [{ uri, text: "x".repeat(600) }] }
      })
      const f = yield* fixture({ reads: [big("x://a"), big("x://b")] })
      const client = yield* ResourceClient.make(setupWith([entry("srv", f)], { maxBytes: 1000 }))
      yield* settled(client)
      yield* client.readResource("srv", "x://a")
      yield* client.readResource("srv", "x://a")
      assert.strictEqual(count(f.requests, "resources/read"), 1)
      yield* client.readResource("srv", "x://b")
      yield* client.readResource("srv", "x://a")
      assert.strictEqual(count(f.requests, "resources/read"), 3)
    })
  )
})
