/** Builds a real ResourceClient over in-memory fixture servers and a ToolContext bound to its set. */
import { connectInMemory, type FixtureSpec, type InMemoryFixture } from "@mcp-resources/fixtures"
import { Config } from "@mcp-resources/protocol"
import { McpTransport, ResourceClient, ServerEntry } from "@mcp-resources/resource-client"
import { Chunk, Effect, type Scope, TestClock } from "effect"
import type { ToolHandlers } from "../../src/index.js"

/** One fixture server of a harness. */
export interface ServerSetup {
  readonly spec?: FixtureSpec
  /** Overrides of the entry (enabled, timeouts). */
  readonly options?: Partial<Omit<ServerEntry.ServerEntry, "name" | "transport">>
  /** A connect that rejects with this message instead of a fixture (a server failing at startup). */
  readonly failWith?: string
}

/** Options of a harness. */
export interface HarnessOptions {
  readonly config?: Partial<Config.Config>
  readonly orchestratorMcpEnabled?: boolean
}

/** The built context and the fixtures by server name. */
export interface Harness {
  readonly ctx: ToolHandlers.ToolContext
  readonly fixtures: Readonly<Record<string, InMemoryFixture>>
  readonly client: ResourceClient.Service
}

/** Starts every server, waits for startup to settle, and closes everything with the scope. */
export const harness = (
  servers: Readonly<Record<string, ServerSetup>>,
  options: HarnessOptions = {}
): Effect.Effect<Harness, never, Scope.Scope> =>
  Effect.gen(function* () {
    const config: Config.Config = { ...Config.empty, ...options.config }
    const fixtures: Record<string, InMemoryFixture> = {}
    const entries: Array<ServerEntry.ServerEntry> = []
    for (const [name, setup] of Object.entries(servers)) {
      if (setup.failWith !== undefined) {
        const message = setup.failWith
        entries.push(ServerEntry.memory(name, () => Promise.reject(new Error(message)), setup.options))
        continue
      }
      const fixture = connectInMemory({ name, ...setup.spec })
      fixtures[name] = fixture
      yield* Effect.addFinalizer(() => Effect.promise(() => fixture.closeAll()))
      entries.push(ServerEntry.memory(name, fixture.connect, setup.options))
    }
    const client = yield* ResourceClient.make({ config, servers: entries }).pipe(
      Effect.provide(McpTransport.layerMemory)
    )
    const set = yield* client.acquire
    yield* set.awaitAllSettled
    return {
      client,
      fixtures,
      ctx: {
        set,
        config,
        orchestratorMcpEnabled: options.orchestratorMcpEnabled ?? config.orchestrator.mcpEnabled,
        truncation: config.truncation
      }
    }
  })

/** A page spec answering one page of `resources/list` (no cursor). */
export const resources = (
  items: ReadonlyArray<Record<string, unknown>>,
  extra: Record<string, unknown> = {}
): FixtureSpec => ({ resourcePages: [{ result: { resources: items, ...extra } }] })

/** Lets pending in-memory messages be delivered (not time: TestClock does not move). */
export const settle = (rounds = 20): Effect.Effect<void> =>
  Effect.forEach(
    Array.from({ length: rounds }),
    () => Effect.promise(() => new Promise<void>((resolve) => setImmediate(resolve))),
    { discard: true }
  )

/**
 * Waits (without time) until a fiber sleeps on the TestClock until `at` (ms), at most `rounds` event-loop
 * turns: an adjust made before the sleep began would never wake it. (The connections' own timers sleep
 * from 0: a test that adjusts the clock by a millisecond first tells its sleep apart from theirs.)
 */
export const untilSleeping = (at: number, rounds = 20_000): Effect.Effect<void> =>
  Effect.gen(function* () {
    for (let i = 0; i < rounds; i++) {
      if (Chunk.some(yield* TestClock.sleeps(), (time) => time === at)) return
      yield* Effect.promise(() => new Promise<void>((resolve) => setImmediate(resolve)))
    }
    const sleeps = Chunk.toReadonlyArray(yield* TestClock.sleeps())
    return yield* Effect.dieMessage(
      `no fiber sleeps until ${at} ms after ${rounds} event-loop turns (sleeps until: ${sleeps.join(", ") || "none"})`
    )
  })

/** Waits (without time) until `predicate` holds, at most `rounds` event-loop turns. */
export const waitUntil = (predicate: () => boolean, rounds = 2000): Effect.Effect<void> =>
  Effect.gen(function* () {
    for (let i = 0; i < rounds && !predicate(); i++) {
      yield* Effect.promise(() => new Promise<void>((resolve) => setImmediate(resolve)))
    }
    if (!predicate()) return yield* Effect.dieMessage("condition not reached")
  })
