import { assert, layer } from "@effect/vitest"
import { connectInMemory } from "@mcp-resources/fixtures"
import { Config } from "@mcp-resources/protocol"
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js"
import { Deferred, Effect, Either, Fiber, Option, TestClock } from "effect"
import { McpTransport, ResourceClient, ServerEntry } from "../src/index.js"
import { fixture } from "./utils/memory.js"
import { within } from "./utils/wait.js"

const setupWith = (
  servers: ReadonlyArray<ServerEntry.ServerEntry>,
  mcp: Partial<Config.McpLimits>
): ServerEntry.Setup => ({ config: { ...Config.empty, mcp: { ...Config.mcpDefaults, ...mcp } }, servers })

const status = (client: ResourceClient.Service, name: string) =>
  Effect.map(client.servers, (servers) => servers.find((s) => s.name === name)?.status)

layer(McpTransport.layerMemory)("bounded start-up and threadless connections", (it) => {
  it.scoped(
    "with [mcp] startup_concurrency = 1 a server waits its turn, and its startup timeout counts from its own start",
    () =>
      Effect.gen(function* () {
        const spec = { reads: [{ uri: "x://a", result: { contents: [] } }] }
        const slow = connectInMemory(spec)
        const fast = connectInMemory(spec)
        yield* Effect.addFinalizer(() => Effect.promise(() => Promise.all([slow.closeAll(), fast.closeAll()])))
        const gate = yield* Deferred.make<void>()
        const connects: Array<string> = []
        let slowStarted: () => void = () => {}
        const slowStart = new Promise<void>((resolve) => {
          slowStarted = resolve
        })
        const slowConnect = (): Promise<Transport> => {
          connects.push("slow")
          slowStarted()
          return Effect.runPromise(Deferred.await(gate)).then(() => slow.connect())
        }
        const fastConnect = (): Promise<Transport> => {
          connects.push("fast")
          return fast.connect()
        }
        const client = yield* ResourceClient.make(
          setupWith(
            [
              ServerEntry.memory("a-slow", slowConnect, { startupTimeoutSec: 100 }),
              ServerEntry.memory("b-fast", fastConnect, { startupTimeoutSec: 1 })
            ],
            { startupConcurrency: 1 }
          )
        )
        yield* Effect.promise(() => within(slowStart, "a-slow's connect"))
        // five seconds pass while b-fast waits: more than its own startup timeout, yet it is still starting
        yield* TestClock.adjust("5 seconds")
        assert.deepStrictEqual(connects, ["slow"])
        assert.strictEqual(yield* status(client, "b-fast"), "starting")
        yield* Deferred.succeed(gate, undefined)
        const set = yield* client.latest
        yield* set.awaitAllSettled
        assert.deepStrictEqual(connects, ["slow", "fast"])
        assert.deepStrictEqual([yield* status(client, "a-slow"), yield* status(client, "b-fast")], ["ready", "ready"])
      })
  )

  it.scoped(
    "at most [mcp] threadless_concurrency throw-away connections; the next waits, then is refused naming the cap",
    () =>
      Effect.gen(function* () {
        const f = yield* fixture({
          reads: [
            { uri: "x://hang", hang: true },
            { uri: "x://a", result: { contents: [] } }
          ]
        })
        const client = yield* ResourceClient.make(
          setupWith([ServerEntry.memory("srv", f.connect)], { threadlessConcurrency: 2, threadlessWaitSec: 1 })
        )
        yield* Effect.flatMap(client.latest, (set) => set.awaitAllSettled)
        const ofTheSet = f.stats.opened
        const hanging = yield* Effect.forkScoped(
          Effect.all(
            [0, 1].map(() => client.withServerConnection("srv", (c) => c.readResource("x://hang"))),
            { concurrency: "unbounded" }
          )
        )
        yield* Effect.promise(() => f.awaitRequest("resources/read", { count: 2 }))
        const third = yield* Effect.fork(
          Effect.either(client.withServerConnection("srv", (c) => c.readResource("x://a")))
        )
        yield* TestClock.adjust("500 millis")
        assert.isTrue(Option.isNone(yield* Fiber.poll(third)))
        yield* TestClock.adjust("500 millis")
        const refused = yield* Fiber.join(third)
        assert.deepStrictEqual(
          Either.mapLeft(refused, (error) => error.message),
          Either.left(
            "failed to get client: too many threadless connections: all 2 are in use ([mcp] threadless_concurrency = 2); waited 1s"
          )
        )
        assert.strictEqual(f.stats.opened - ofTheSet, 2)
        yield* Fiber.interrupt(hanging)
        // permits come back when the connections close: the next read runs
        const read = yield* client.withServerConnection("srv", (c) => c.readResource("x://a"))
        assert.deepStrictEqual(read, { contents: [] })
        assert.strictEqual(f.stats.opened - ofTheSet, 3)
      })
  )
})
