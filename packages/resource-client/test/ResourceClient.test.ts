import { assert, describe, it, layer } from "@effect/vitest"
import { directReadSpec } from "@mcp-resources/fixtures"
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js"
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js"
import { Clock, Effect, Either, Exit, Fiber, Option, Queue, Scope, TestClock } from "effect"
import { McpTransport, ResourceClient } from "../src/index.js"
import { entry, fixture, type Overlap, resource, setupOf } from "./utils/memory.js"

const message = <A>(either: Either.Either<A, { readonly message: string }>): string =>
  Either.match(either, { onLeft: (error) => error.message, onRight: () => "succeeded" })

const settled = (client: ResourceClient.Service) => Effect.flatMap(client.latest, (set) => set.awaitAllSettled)

// In-memory servers only: McpTransport.layerMemory spawns nothing and opens no socket.
layer(McpTransport.layerMemory)("ResourceClient (in-memory servers)", (it) => {
  it.scoped("P-7: aggregate list reports a failing server in failedServers", () =>
    Effect.gen(function* () {
      const alpha = yield* fixture({ resourcePages: [{ result: { resources: [resource("memo://a-1", "a-1")] } }] })
      const beta = yield* fixture({ resourcePages: [{ error: { code: -32603, message: "boom" } }] })
      const client = yield* ResourceClient.make(setupOf([entry("beta", beta), entry("alpha", alpha)]))
      yield* settled(client)
      const result = yield* client.listAllResources(() => true)
      assert.deepStrictEqual(result, {
        servers: [{ server: "alpha", items: [{ uri: "memo://a-1", name: "a-1" }] }],
        failures: [{ server: "beta", error: "resources/list failed for `beta`: Mcp error: -32603: boom" }]
      })
    })
  )

  it.scoped("P-8: aggregate list follows every page in order", () =>
    Effect.gen(function* () {
      const alpha = yield* fixture({
        resourcePages: [
          { result: { resources: [resource("memo://1", "1")], nextCursor: "p2" } },
          { cursor: "p2", result: { resources: [resource("memo://2", "2")], nextCursor: "p3" } },
          { cursor: "p3", result: { resources: [resource("memo://3", "3")] } }
        ]
      })
      const client = yield* ResourceClient.make(setupOf([entry("alpha", alpha)]))
      yield* settled(client)
      const result = yield* client.listAllResources(() => true)
      assert.deepStrictEqual(
        result.servers[0]?.items.map((r) => r.uri),
        ["memo://1", "memo://2", "memo://3"]
      )
      const lists = alpha.requests.filter((r) => r.method === "resources/list")
      assert.deepStrictEqual(lists, [
        { method: "resources/list" },
        { method: "resources/list", params: { cursor: "p2" } },
        { method: "resources/list", params: { cursor: "p3" } }
      ])
    })
  )

  it.scoped("P-9: a listed resource keeps only the MCP fields, in the spec's order", () =>
    Effect.gen(function* () {
      const srv = yield* fixture({
        resourcePages: [
          {
            result: {
              resources: [
                { foo: 1, annotations: { priority: 1 }, size: 3, mimeType: "text/plain", name: "n", uri: "u://1" }
              ]
            }
          }
        ]
      })
      const client = yield* ResourceClient.make(setupOf([entry("srv", srv)]))
      const page = yield* client.listResources("srv")
      assert.strictEqual(
        JSON.stringify(page.resources[0]),
        '{"uri":"u://1","name":"n","mimeType":"text/plain","size":3,"annotations":{"priority":1}}'
      )
    })
  )

  it.scoped("P-10: a read keeps text and blob contents; extra result fields are dropped, newer ones kept", () =>
    Effect.gen(function* () {
      const srv = yield* fixture({
        reads: [
          {
            uri: "test://x",
            result: {
              extra: true,
              contents: [
                { uri: "test://x", mimeType: "text/plain", text: "hi" },
                { uri: "test://x.bin", blob: "AAE=" }
              ],
              ttlMs: 5,
              resultType: "complete"
            }
          }
        ]
      })
      const client = yield* ResourceClient.make(setupOf([entry("srv", srv)]))
      const result = yield* client.readResource("srv", "test://x")
      assert.strictEqual(
        JSON.stringify(result),
        '{"resultType":"complete","ttlMs":5,"contents":[{"uri":"test://x","mimeType":"text/plain","text":"hi"},{"uri":"test://x.bin","blob":"AAE="}]}'
      )
      assert.deepStrictEqual(srv.requests.at(-1), { method: "resources/read", params: { uri: "test://x" } })
    })
  )

  it.scoped("P-13: a JSON-RPC error of a read renders as Mcp error with the server's own message", () =>
    Effect.gen(function* () {
      const srv = yield* fixture({
        reads: [{ uri: "test://x", error: { code: -32002, message: "resource not found: test://x" } }]
      })
      const client = yield* ResourceClient.make(setupOf([entry("srv", srv)]))
      const result = yield* Effect.either(client.readResource("srv", "test://x"))
      assert.strictEqual(
        message(result),
        "resources/read failed for `srv` (test://x): Mcp error: -32002: resource not found: test://x"
      )
    })
  )

  it.scoped("P-15: a cursor is sent as params, no cursor sends no params object", () =>
    Effect.gen(function* () {
      const srv = yield* fixture({
        resourcePages: [{ result: { resources: [] } }, { cursor: "c2", result: { resources: [] } }]
      })
      const client = yield* ResourceClient.make(setupOf([entry("srv", srv)]))
      yield* client.listResources("srv", "c2")
      yield* client.listResources("srv")
      assert.deepStrictEqual(
        srv.requests.filter((r) => r.method === "resources/list"),
        [{ method: "resources/list", params: { cursor: "c2" } }, { method: "resources/list" }]
      )
    })
  )

  it.scoped("P-16: a read that never answers times out after tool_timeout_sec and is cancelled", () =>
    Effect.gen(function* () {
      const srv = yield* fixture({ reads: [{ uri: "test://slow", hang: true }] })
      const client = yield* ResourceClient.make(setupOf([entry("srv", srv, { toolTimeoutSec: 1 })]))
      yield* settled(client)
      const fiber = yield* Effect.fork(Effect.either(client.readResource("srv", "test://slow")))
      yield* Effect.promise(() => srv.awaitRequest("resources/read"))
      yield* TestClock.adjust("1 second")
      assert.strictEqual(
        message(yield* Fiber.join(fiber)),
        "resources/read failed for `srv` (test://slow): timed out awaiting resources/read after 1s"
      )
      yield* Effect.promise(() => srv.awaitCancelled("resources/read"))
    })
  )

  it.scoped("a change of a server's status in the latest set is announced once, across reloads", () =>
    Effect.gen(function* () {
      const alpha = yield* fixture({})
      const client = yield* ResourceClient.make(setupOf([entry("alpha", alpha)]))
      yield* settled(client)
      const changes = yield* client.statusChanges
      const beta = { connect: () => Promise.reject(new Error("spawn failed")) }
      yield* client.reload(setupOf([entry("alpha", alpha, { enabled: false }), entry("beta", beta)]))
      const seen: Array<ResourceClient.ServerStatus> = []
      while (!seen.some((s) => s.name === "beta" && s.status === "failed")) {
        seen.push(
          yield* Queue.take(changes).pipe(
            Effect.timeoutFail({ duration: "10 seconds", onTimeout: () => seen }),
            Effect.withClock(Clock.make())
          )
        )
      }
      assert.deepStrictEqual(
        seen.filter((s) => s.name === "alpha"),
        [{ name: "alpha", transport: "memory", status: "disabled" }]
      )
      // beta: starting (unless it failed before the reload's announcement), then failed; never twice the same
      const betas = seen.filter((s) => s.name === "beta").map((s) => s.status)
      assert.include([["starting", "failed"].join(), "failed"], betas.join())
      assert.deepStrictEqual(seen.at(-1), {
        name: "beta",
        transport: "memory",
        status: "failed",
        error: "spawn failed"
      })
      // a reload that changes no status of the latest set announces nothing (it announces within the
      // reload); a server the new config drops is not announced
      yield* client.reload(setupOf([entry("alpha", alpha, { enabled: false })]))
      assert.strictEqual(yield* Queue.size(changes), 0)
    })
  )

  it.scoped("P-17: a server that failed at startup gets a failure entry, the others list", () =>
    Effect.gen(function* () {
      const alpha = yield* fixture({ resourcePages: [{ result: { resources: [resource("memo://a-1", "a-1")] } }] })
      const beta = { connect: () => Promise.reject(new Error("spawn failed")) }
      const client = yield* ResourceClient.make(setupOf([entry("alpha", alpha), entry("beta", beta)]))
      yield* settled(client)
      const result = yield* client.listAllResources(() => true)
      assert.deepStrictEqual(result.failures, [{ server: "beta", error: "failed to get client: spawn failed" }])
      assert.deepStrictEqual(
        result.servers.map((s) => s.server),
        ["alpha"]
      )
      assert.strictEqual(
        message(yield* Effect.either(client.listResources("beta"))),
        "failed to get client: spawn failed"
      )
      const servers = yield* client.servers
      assert.deepStrictEqual(servers, [
        { name: "alpha", transport: "memory", status: "ready", protocolVersion: "2025-11-25" },
        { name: "beta", transport: "memory", status: "failed", error: "spawn failed" }
      ])
    })
  )

  it.scoped("G-12: aggregate listing skips a server still starting; a single-server call waits for it", () =>
    Effect.gen(function* () {
      const pending = { connect: () => new Promise<never>(() => {}) }
      const client = yield* ResourceClient.make(setupOf([entry("pending-one", pending)]))
      const result = yield* client.listAllResources((name) => name === "pending-one")
      assert.deepStrictEqual(result, { servers: [], failures: [] })
      const fiber = yield* Effect.fork(client.listResources("pending-one"))
      yield* TestClock.adjust("1 millis")
      assert.isTrue(Option.isNone(yield* Fiber.poll(fiber)))
      yield* Fiber.interrupt(fiber)
    })
  )

  it.scoped("a server still starting fails with the startup timeout message once it expires", () =>
    Effect.gen(function* () {
      const pending = { connect: () => new Promise<never>(() => {}) }
      const client = yield* ResourceClient.make(setupOf([entry("slow", pending, { startupTimeoutSec: 10 })]))
      const fiber = yield* Effect.fork(Effect.either(client.listResources("slow")))
      yield* TestClock.adjust("10 seconds")
      assert.strictEqual(
        message(yield* Fiber.join(fiber)),
        "failed to get client: timed out awaiting initialize after 10s"
      )
      assert.deepStrictEqual(yield* client.servers, [
        { name: "slow", transport: "memory", status: "failed", error: "timed out awaiting initialize after 10s" }
      ])
    })
  )

  it.scoped("a single-server call on a starting server proceeds once it is ready", () =>
    Effect.gen(function* () {
      const srv = yield* fixture({ resourcePages: [{ result: { resources: [resource("memo://1", "1")] } }] })
      let open: () => void = () => {}
      const gate = new Promise<void>((resolve) => {
        open = resolve
      })
      const gated = { connect: () => gate.then(() => srv.connect()) }
      const client = yield* ResourceClient.make(setupOf([entry("srv", gated)]))
      assert.deepStrictEqual((yield* client.servers)[0]?.status, "starting")
      const fiber = yield* Effect.fork(client.listResources("srv"))
      // the list runs as far as it can without the server (it awaits the gated connection)
      yield* Effect.yieldNow()
      assert.isTrue(Option.isNone(yield* Fiber.poll(fiber)))
      open()
      const page = yield* Fiber.join(fiber)
      assert.deepStrictEqual(page.resources, [{ uri: "memo://1", name: "1" }])
    })
  )

  it.scoped("C-1: start, reload and reconnect report generations 1, 2, 3 and the cache key follows", () =>
    Effect.gen(function* () {
      const srv = yield* fixture({})
      const setup = setupOf([entry("srv", srv)])
      const client = yield* ResourceClient.make(setup)
      yield* settled(client)
      const keys = [yield* client.cacheKey]
      assert.strictEqual(yield* client.generation, 1)
      yield* client.reload(setup)
      keys.push(yield* client.cacheKey)
      assert.strictEqual(yield* client.generation, 2)
      // the unchanged ready server was carried over
      assert.strictEqual(srv.stats.opened, 1)
      yield* client.reconnect
      yield* settled(client)
      keys.push(yield* client.cacheKey)
      assert.strictEqual(yield* client.generation, 3)
      assert.strictEqual(srv.stats.opened, 2)
      assert.strictEqual(srv.stats.closed, 1)
      assert.strictEqual(new Set(keys).size, 3)
      assert.strictEqual(yield* client.cacheKey, keys[2])
    })
  )

  it.scoped("C-5: a held set keeps a removed server until its last holder lets go", () =>
    Effect.gen(function* () {
      const srv = yield* fixture({ resourcePages: [{ result: { resources: [resource("memo://1", "1")] } }] })
      const client = yield* ResourceClient.make(setupOf([entry("srv", srv)]))
      yield* settled(client)
      const binding = yield* Scope.make()
      const held = yield* Scope.extend(client.acquire, binding)
      yield* client.reload(setupOf([]))
      assert.strictEqual(yield* client.generation, 2)
      assert.isFalse(client.hasServers())
      assert.isTrue(held.hasServer("srv"))
      const page = yield* held.listResources("srv")
      assert.strictEqual(page.resources.length, 1)
      assert.strictEqual(srv.stats.closed, 0)
      yield* Scope.close(binding, Exit.void)
      assert.strictEqual(srv.stats.closed, 1)
    })
  )

  it.scoped("a read in flight holds its set: a removed server closes only once the read has ended", () =>
    Effect.gen(function* () {
      const contents = [{ uri: "memo://slow", mimeType: "text/plain", text: "late" }]
      const srv = yield* fixture({ reads: [{ uri: "memo://slow", delayMs: 100, result: { contents } }] })
      const client = yield* ResourceClient.make(setupOf([entry("srv", srv)]))
      yield* settled(client)
      const reading = yield* Effect.fork(client.readResource("srv", "memo://slow"))
      yield* Effect.promise(() => srv.awaitRequest("resources/read"))
      yield* client.reload(setupOf([]))
      assert.strictEqual(srv.stats.closed, 0)
      const result = yield* Fiber.join(reading)
      assert.deepStrictEqual(result.contents, contents)
      assert.strictEqual(srv.stats.closed, 1)
    })
  )

  it.scoped("an interrupted read lets go of its set: the removed server closes and the read is cancelled", () =>
    Effect.gen(function* () {
      const srv = yield* fixture({ reads: [{ uri: "memo://hang", hang: true }] })
      const client = yield* ResourceClient.make(setupOf([entry("srv", srv)]))
      yield* settled(client)
      const reading = yield* Effect.fork(client.readResource("srv", "memo://hang"))
      yield* Effect.promise(() => srv.awaitRequest("resources/read"))
      yield* client.reload(setupOf([]))
      assert.strictEqual(srv.stats.closed, 0)
      yield* Fiber.interrupt(reading)
      yield* Effect.promise(() => srv.awaitClosed(1))
      assert.strictEqual(srv.stats.closed, 1)
    })
  )

  it.scoped("C-6: a disabled server is listed as disabled and is unknown to operations", () =>
    Effect.gen(function* () {
      const off = yield* fixture({})
      const client = yield* ResourceClient.make(setupOf([entry("off", off, { enabled: false })]))
      assert.deepStrictEqual(yield* client.servers, [{ name: "off", transport: "memory", status: "disabled" }])
      assert.isFalse(client.hasServers())
      assert.isFalse(client.hasServer("off"))
      assert.strictEqual(message(yield* Effect.either(client.listResources("off"))), "unknown MCP server 'off'")
      assert.strictEqual(off.stats.opened, 0)
    })
  )

  it.scoped("C-7: a server without the resources capability answers lists empty without a request", () =>
    Effect.gen(function* () {
      const plain = yield* fixture({ capabilities: { resources: false } })
      const client = yield* ResourceClient.make(setupOf([entry("plain", plain)]))
      assert.deepStrictEqual(yield* client.listResources("plain"), { resources: [] })
      assert.deepStrictEqual(yield* client.listResourceTemplates("plain"), { resourceTemplates: [] })
      const all = yield* client.listAllResources(() => true)
      assert.deepStrictEqual(all, { servers: [{ server: "plain", items: [] }], failures: [] })
      assert.isFalse(plain.requests.some((r) => r.method.startsWith("resources/")))
    })
  )

  it.scoped("hasServers counts starting and failed servers; hasServer never waits", () =>
    Effect.gen(function* () {
      const pending = { connect: () => new Promise<never>(() => {}) }
      const broken = { connect: () => Promise.reject(new Error("nope")) }
      const client = yield* ResourceClient.make(setupOf([entry("a", pending), entry("b", broken)]))
      assert.isTrue(client.hasServers())
      assert.isTrue(client.hasServer("a"))
      assert.isTrue(client.hasServer("b"))
      assert.isFalse(client.hasServer("c"))
      const empty = yield* ResourceClient.make(setupOf([]))
      assert.isFalse(empty.hasServers())
    })
  )

  it.scoped("aggregate template listing sorts servers bytewise and skips excluded servers", () =>
    Effect.gen(function* () {
      const alpha = yield* fixture({
        templatePages: [{ result: { resourceTemplates: [{ uriTemplate: "memo://alpha/{id}", name: "alpha" }] } }]
      })
      const beta = yield* fixture({
        templatePages: [{ result: { resourceTemplates: [{ uriTemplate: "memo://beta/{id}", name: "beta" }] } }]
      })
      const apps = yield* fixture({})
      const client = yield* ResourceClient.make(
        setupOf([entry("beta", beta), entry("codex_apps", apps), entry("alpha", alpha)])
      )
      yield* settled(client)
      const result = yield* client.listAllResourceTemplates((name) => name !== "codex_apps")
      assert.deepStrictEqual(result, {
        servers: [
          { server: "alpha", items: [{ uriTemplate: "memo://alpha/{id}", name: "alpha" }] },
          { server: "beta", items: [{ uriTemplate: "memo://beta/{id}", name: "beta" }] }
        ],
        failures: []
      })
      assert.isFalse(apps.requests.some((r) => r.method.startsWith("resources/")))
    })
  )

  it.scoped("a result that does not match the MCP schema fails with a message naming the path", () =>
    Effect.gen(function* () {
      const srv = yield* fixture({ resourcePages: [{ result: { resources: [{ name: "no-uri" }] } }] })
      const client = yield* ResourceClient.make(setupOf([entry("srv", srv)]))
      const result = yield* Effect.either(client.listResources("srv"))
      assert.match(
        message(result),
        /^resources\/list failed for `srv`: invalid resources\/list result at resources\.0\.uri: /
      )
    })
  )

  it.scoped("a server that closes marks it failed; in-flight requests fail; reload starts it again", () =>
    Effect.gen(function* () {
      const srv = yield* fixture({
        reads: [{ uri: "test://hang", hang: true }],
        resourcePages: [{ result: { resources: [] } }]
      })
      const setup = setupOf([entry("srv", srv)])
      const client = yield* ResourceClient.make(setup)
      yield* settled(client)
      const fiber = yield* Effect.fork(Effect.either(client.readResource("srv", "test://hang")))
      yield* Effect.promise(() => srv.awaitRequest("resources/read"))
      yield* Effect.promise(() => srv.closeAll())
      assert.strictEqual(
        message(yield* Fiber.join(fiber)),
        "resources/read failed for `srv` (test://hang): connection closed"
      )
      assert.deepStrictEqual(yield* client.servers, [
        { name: "srv", transport: "memory", status: "failed", error: "connection closed" }
      ])
      assert.strictEqual(
        message(yield* Effect.either(client.listResources("srv"))),
        "failed to get client: connection closed"
      )
      yield* client.reload(setup)
      const page = yield* client.listResources("srv")
      assert.deepStrictEqual(page, { resources: [] })
    })
  )

  it.scoped("tools: the startup catalog with _meta, toolInfo by raw name, callTool keeps the server's result", () =>
    Effect.gen(function* () {
      const srv = yield* fixture({
        tools: [
          { name: "echo", description: "Echo.", _meta: { ui: { visibility: ["app"] } } },
          { name: "bad", error: { code: -32603, message: "tool broke" } },
          { name: "custom", result: { isError: false, content: [{ type: "text", text: "x" }], extra: 1 } }
        ]
      })
      const client = yield* ResourceClient.make(setupOf([entry("srv", srv)]))
      const tools = yield* client.listTools("srv")
      assert.deepStrictEqual(
        tools.map((t) => t.name),
        ["echo", "bad", "custom"]
      )
      assert.deepStrictEqual(tools[0]?._meta, { ui: { visibility: ["app"] } })
      assert.isTrue(Option.isSome(yield* client.toolInfo("srv", "echo")))
      assert.isTrue(Option.isNone(yield* client.toolInfo("srv", "missing")))
      const result = yield* client.callTool("srv", "custom", { a: 1 })
      assert.strictEqual(JSON.stringify(result), '{"isError":false,"content":[{"type":"text","text":"x"}],"extra":1}')
      assert.deepStrictEqual(srv.requests.at(-1), {
        method: "tools/call",
        params: { name: "custom", arguments: { a: 1 } }
      })
      yield* client.callTool("srv", "echo")
      assert.deepStrictEqual(srv.requests.at(-1), { method: "tools/call", params: { name: "echo" } })
      assert.strictEqual(
        message(yield* Effect.either(client.callTool("srv", "bad"))),
        "tools/call failed for `srv`: Mcp error: -32603: tool broke"
      )
    })
  )

  it.scoped(
    "keys named __proto__, constructor and prototype in a server's results stay its own data: listed _meta, a tool result with resultType, a read",
    () =>
      Effect.gen(function* () {
        // As parsed from the wire: JSON.parse makes `__proto__` an own key.
        const keys = JSON.parse('{"__proto__":{"polluted":true},"constructor":"c","prototype":"p"}') as object
        const raw = JSON.parse(
          '{"resultType":"complete","content":[{"type":"text","text":"x"}],"__proto__":{"polluted":true},"constructor":"c"}'
        ) as Record<string, unknown>
        const srv = yield* fixture({
          resourcePages: [{ result: { resources: [{ uri: "memo://a", name: "a", _meta: keys }] } }],
          reads: [
            { uri: "memo://a", result: { contents: [{ uri: "memo://a", text: "t", _meta: keys }], _meta: keys } }
          ],
          tools: [{ name: "raw", result: raw }]
        })
        const client = yield* ResourceClient.make(setupOf([entry("srv", srv)]))
        yield* settled(client)
        const own = (value: unknown, expected: ReadonlyArray<string>) => {
          assert.deepStrictEqual(Object.keys(value as object), expected)
          assert.strictEqual(Object.getPrototypeOf(value), Object.prototype)
          assert.strictEqual((value as { polluted?: unknown }).polluted, undefined)
        }
        const listed = yield* client.listAllResources(() => true)
        own(listed.servers[0]?.items[0]?._meta, ["__proto__", "constructor", "prototype"])
        const read = yield* client.readResource("srv", "memo://a")
        own(read._meta, ["__proto__", "constructor", "prototype"])
        own(read.contents[0]?._meta, ["__proto__", "constructor", "prototype"])
        // The guard carries `resultType` past the SDK under another name and back: every key is kept.
        const called = yield* client.callTool("srv", "raw")
        own(called, ["resultType", "content", "__proto__", "constructor"])
        assert.strictEqual(
          JSON.stringify(called),
          '{"resultType":"complete","content":[{"type":"text","text":"x"}],"__proto__":{"polluted":true},"constructor":"c"}'
        )
      })
  )

  it.scoped("notifications/tools/list_changed refreshes the tool catalog", () =>
    Effect.gen(function* () {
      const server = new McpServer(
        { name: "dynamic", version: "1.0.0" },
        { capabilities: { tools: { listChanged: true } } }
      )
      server.registerTool("first", { description: "First." }, () => ({ content: [] }))
      yield* Effect.addFinalizer(() => Effect.promise(() => server.close()))
      const connect = async () => {
        const [client, side] = InMemoryTransport.createLinkedPair()
        await server.connect(side)
        return client
      }
      const client = yield* ResourceClient.make(setupOf([entry("dynamic", { connect })]))
      yield* settled(client)
      assert.deepStrictEqual(
        (yield* client.listTools("dynamic")).map((t) => t.name),
        ["first"]
      )
      server.registerTool("second", { description: "Second." }, () => ({ content: [] }))
      let names: ReadonlyArray<string> = []
      // polled (bounded): the client drops its tool list on tools/list_changed and announces nothing
      // (its updates are about resources); each try lets the in-memory transport run once
      for (let i = 0; i < 2000 && names.length < 2; i++) {
        yield* Effect.promise(() => new Promise<void>((resolve) => setImmediate(resolve)))
        names = (yield* client.listTools("dynamic")).map((t) => t.name)
      }
      assert.deepStrictEqual(names, ["first", "second"])
    })
  )

  it.scoped("withServerConnection reads on a throw-away connection, declines elicitation and closes it", () =>
    Effect.gen(function* () {
      const apps = yield* fixture(directReadSpec())
      const client = yield* ResourceClient.make(setupOf([entry("codex_apps", apps)]))
      yield* settled(client)
      const result = yield* client.withServerConnection("codex_apps", (connection) =>
        connection.readResource("test://codex/elicitation")
      )
      assert.deepStrictEqual(result.contents, [
        { uri: "test://codex/elicitation", mimeType: "text/plain", text: "Threadless elicitation was declined." }
      ])
      assert.strictEqual(apps.stats.opened, 2)
      assert.strictEqual(apps.stats.closed, 1)
      const failed = yield* Effect.either(
        client.withServerConnection("codex_apps", () => Effect.fail(new Error("use failed")))
      )
      assert.strictEqual(message(failed), "use failed")
      assert.strictEqual(apps.stats.closed, 2)
      assert.strictEqual(
        message(yield* Effect.either(client.withServerConnection("nope", () => Effect.void))),
        "unknown MCP server 'nope'"
      )
    })
  )

  it.scoped("McpTransport.layerMemory refuses a stdio entry at startup and spawns nothing", () =>
    Effect.gen(function* () {
      const client = yield* ResourceClient.make({
        config: setupOf([]).config,
        servers: [
          {
            name: "proc",
            transport: { _tag: "stdio", command: "/nonexistent/never-spawned", args: [], env: {} },
            enabled: true,
            startupTimeoutSec: 10,
            toolTimeoutSec: 300,
            maxMessageBytes: 67108864
          }
        ]
      })
      yield* settled(client)
      const status = (yield* client.servers).find((s) => s.name === "proc")
      assert.strictEqual(status?.status, "failed")
      assert.strictEqual(
        status?.error,
        "stdio transports are not available (McpTransport.layerMemory connects in-memory servers only)"
      )
    })
  )
})

describe("ResourceClient (in-memory servers, live clock)", () => {
  it.live("P-16 on the live clock: the same timeout message, and the request is cancelled", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const srv = yield* fixture({ reads: [{ uri: "test://slow", hang: true }] })
        const client = yield* ResourceClient.make(setupOf([entry("srv", srv, { toolTimeoutSec: 1 })]))
        yield* settled(client)
        assert.strictEqual(
          message(yield* Effect.either(client.readResource("srv", "test://slow"))),
          "resources/read failed for `srv` (test://slow): timed out awaiting resources/read after 1s"
        )
        yield* Effect.promise(() => srv.awaitCancelled("resources/read"))
      })
    ).pipe(Effect.provide(McpTransport.layerMemory))
  )

  it.live("16 servers are listed concurrently: all 16 requests are outstanding at once", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const names = Array.from({ length: 16 }, (_, i) => `s${String(i).padStart(2, "0")}`)
        const overlap: Overlap = { method: "resources/list", inFlight: 0, maxInFlight: 0 }
        const fixtures = yield* Effect.forEach(names, (name) =>
          fixture(
            { resourcePages: [{ delayMs: 200, result: { resources: [resource(`memo://${name}`, name)] } }] },
            overlap
          )
        )
        const client = yield* ResourceClient.make(setupOf(names.map((name, i) => entry(name, fixtures[i]!))))
        yield* settled(client)
        const result = yield* client.listAllResources(() => true)
        assert.deepStrictEqual(
          result.servers.map((s) => s.server),
          names
        )
        assert.strictEqual(overlap.maxInFlight, 16)
        assert.strictEqual(overlap.inFlight, 0)
      })
    ).pipe(Effect.provide(McpTransport.layerMemory))
  )
})
