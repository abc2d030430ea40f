/**
 * Change detection on every server (`internal/detection.ts`), against real stdio servers (the changes
 * fixture: v1 SDK on the initialize era, v2 SDK on 2026-07-28; its documents say how often they were
 * read, so every read is a new body): a server that never declares subscriptions is polled (exactly
 * one read per watched resource per interval, the change carrying the new digest and size); one that
 * declares them but never pushes is found out by a verification poll and polled from then on; a legacy
 * server that pushes stays on `resources/subscribe` and is never polled; a 2026-07-28 server is on the
 * stream; a stream the server keeps dropping is reopened with backoff, then given up for polling.
 * Time is the TestClock's; each step awaits the event (an update, a log line) that says it happened.
 */
import { assert, describe, it } from "@effect/vitest"
import { brokenPrefix, changesStdioCommand, connectInMemory } from "@mcp-resources/fixtures"
import { Config, Digest } from "@mcp-resources/protocol"
import { Chunk, Effect, Layer, Logger, LogLevel, Queue, TestClock, TestServices } from "effect"
import { McpTransport, ResourceClient, ServerEntry } from "../src/index.js"
import { State } from "../src/internal/detection.js"

const docA = "changes://doc/a"

const server = (
  name: string,
  command: { command: string; args: Array<string> },
  pollChangesSec?: number
): ServerEntry.ServerEntry => ({
  name,
  transport: { _tag: "stdio", command: command.command, args: command.args, env: {} },
  enabled: true,
  startupTimeoutSec: 60,
  toolTimeoutSec: 30,
  maxMessageBytes: 67108864,
  ...(pollChangesSec === undefined ? {} : { pollChangesSec })
})

const configWith = (changes: Partial<Config.ChangesConfig>): Config.Config => ({
  ...Config.empty,
  changes: { ...Config.changesDefaults, ...changes }
})

/**
 * Awaits `effect` on the live clock, failing after 20 s: the events awaited here come from real
 * processes. (Reads are not run here: what they record is timed by the clock the client runs on.)
 */
const within = <A, E>(what: string, effect: Effect.Effect<A, E>) =>
  TestServices.provideLive(
    Effect.timeoutFail(effect, { duration: "20 seconds", onTimeout: () => new Error(`no ${what} came`) })
  )

/** The next log line matching `pattern` (the others are skipped). */
const nextLog = (logs: Queue.Dequeue<string>, pattern: RegExp) =>
  within(
    `log line ${pattern}`,
    Effect.gen(function* () {
      for (;;) {
        const line = yield* Queue.take(logs)
        const match = pattern.exec(line)
        if (match !== null) return [line, ...match.slice(1)] as const
      }
    })
  )

/** The next `updated` of `uri`. */
const nextUpdate = (updates: Queue.Dequeue<ResourceClient.ResourceUpdate>, uri: string) =>
  within(
    `update of ${uri}`,
    Effect.gen(function* () {
      for (;;) {
        const update = yield* Queue.take(updates)
        if (update._tag === "updated" && update.uri === uri) return update
      }
    })
  )

/** The update a poll gives when it finds the fixture's document after its `reads`-th read. */
const polledAfter = (server: string, uri: string, reads: number): ResourceClient.ResourceUpdate => {
  const { digest, size } = Digest.ofText(`${uri} read ${reads} times`)
  return { _tag: "updated", server, uri, digest, size }
}

const readText = (client: ResourceClient.Service, name: string, uri: string) =>
  Effect.map(client.readResource(name, uri), (result) => (result.contents[0] as { readonly text: string }).text)

/** Runs `body` with every log line (trace ones included) offered to a queue, over real transports. */
const withLogs = <A, E, R>(body: (logs: Queue.Dequeue<string>) => Effect.Effect<A, E, R>) =>
  Effect.gen(function* () {
    const logs = yield* Queue.unbounded<string>()
    const capture = Logger.make(({ message }) => {
      Queue.unsafeOffer(logs, Array.isArray(message) ? message.join(" ") : String(message))
    })
    return yield* body(logs).pipe(
      Effect.provide(Layer.merge(Logger.replace(Logger.defaultLogger, capture), Logger.minimumLogLevel(LogLevel.Trace)))
    )
  }).pipe(Effect.provide(McpTransport.layer))

const settled = (client: ResourceClient.Service) =>
  within(
    "startup",
    Effect.flatMap(client.latest, (set) => set.awaitAllSettled)
  )

describe("change detection", () => {
  it.scoped("a server that never declares subscriptions is polled: one read per watched resource per interval", () =>
    withLogs((logs) =>
      Effect.gen(function* () {
        const client = yield* ResourceClient.make({
          config: Config.empty,
          servers: [server("docs", changesStdioCommand({ subscribe: false }), 5)]
        })
        yield* settled(client)
        assert.strictEqual(client.changeDetection("docs"), "poll")
        const updates = yield* client.updates
        // the thread's read is the base the polls compare with
        assert.strictEqual(yield* readText(client, "docs", docA), `${docA} read 1 times`)
        // nothing is watched yet: no poll runs, whatever the time
        yield* TestClock.adjust("60 seconds")
        assert.isFalse((yield* Queue.takeAll(logs)).pipe(Chunk.some((line) => line.includes("polling every"))))
        assert.strictEqual(yield* within("subscribe", client.subscribe("docs", docA)), "subscribed")
        // the first watch starts the polls
        yield* nextLog(logs, /'docs': polling every 5000 ms/)
        for (let interval = 1; interval <= 3; interval++) {
          yield* TestClock.adjust("5 seconds")
          assert.deepStrictEqual(yield* nextUpdate(updates, docA), polledAfter("docs", docA, interval + 1))
        }
        // three intervals, three polls: this read is the fifth
        assert.strictEqual(yield* readText(client, "docs", docA), `${docA} read 5 times`)
        // the last watch gone, the next tick ends the polls (forgetting the base); the next watch,
        // after a read that is its base, starts them again
        yield* within("unsubscribe", client.unsubscribe("docs", docA))
        yield* TestClock.adjust("5 seconds")
        assert.strictEqual(yield* readText(client, "docs", docA), `${docA} read 6 times`)
        assert.strictEqual(yield* within("subscribe", client.subscribe("docs", docA)), "subscribed")
        yield* nextLog(logs, /'docs': polling every 5000 ms/)
        yield* TestClock.adjust("5 seconds")
        assert.deepStrictEqual(yield* nextUpdate(updates, docA), polledAfter("docs", docA, 7))
      })
    )
  )

  it.scoped("a poll read that ends late in its interval does not make the next interval skip the resource", () =>
    withLogs((logs) =>
      Effect.gen(function* () {
        const uri = "memo://slow"
        // the server takes a second (real time) over every read, while the test moves its own clock on
        const fixture = connectInMemory({
          name: "slow",
          reads: [{ uri, delayMs: 1000, result: { contents: [{ uri, mimeType: "text/plain", text: "same" }] } }]
        })
        yield* Effect.addFinalizer(() => Effect.promise(() => fixture.closeAll()))
        const client = yield* ResourceClient.make({
          config: Config.empty,
          servers: [ServerEntry.memory("slow", fixture.connect, { pollChangesSec: 5 })]
        })
        yield* settled(client)
        const reads = (count: number) =>
          within(
            `read ${count}`,
            Effect.promise(() => fixture.awaitRequest("resources/read", { count, timeoutMs: 20_000 }))
          )
        assert.strictEqual(yield* readText(client, "slow", uri), "same")
        yield* client.subscribe("slow", uri)
        yield* nextLog(logs, /'slow': polling every 5000 ms/)
        // the first tick (at 5 s at the latest) sends its read; the answer comes 1.5 s later on this clock
        yield* TestClock.adjust("5 seconds")
        yield* reads(2)
        yield* TestClock.adjust("1500 millis")
        // the second tick (at 10 s at the latest) reads it again: it is due from the first tick's time
        yield* TestClock.adjust("3500 millis")
        yield* reads(3)
      })
    )
  )

  it.scoped(
    "one interval reads at most 64 watched resources of a server; the rest, most overdue, come first in the next",
    () =>
      withLogs((logs) =>
        Effect.gen(function* () {
          const client = yield* ResourceClient.make({
            config: Config.empty,
            servers: [server("many", changesStdioCommand({ subscribe: false }), 5)]
          })
          yield* settled(client)
          const updates = yield* client.updates
          const uris = Array.from({ length: 70 }, (_, i) => `changes://doc/${i}`)
          for (const uri of uris) {
            yield* readText(client, "many", uri)
            yield* client.subscribe("many", uri)
          }
          yield* nextLog(logs, /'many': polling every 5000 ms/)
          yield* TestClock.adjust("5 seconds")
          const first = new Set<string>()
          while (first.size < 64) {
            const update = yield* within("update", Queue.take(updates))
            if (update._tag === "updated") first.add(update.uri)
          }
          // the six left over were not read in that interval (an interval reads its whole batch before
          // it reports a change): a read of one now is its second
          const leftOver = uris.filter((uri) => !first.has(uri))
          assert.strictEqual(leftOver.length, 6)
          const [checked, ...rest] = leftOver
          assert.strictEqual(yield* readText(client, "many", checked!), `${checked} read 2 times`)
          // the next interval starts with the others left over, the most overdue
          yield* TestClock.adjust("5 seconds")
          for (const uri of rest) {
            assert.deepStrictEqual(yield* nextUpdate(updates, uri), polledAfter("many", uri, 2))
          }
        })
      )
  )

  it.scoped("a failed poll skips intervals, twice as many after each failure in a row", () =>
    withLogs((logs) =>
      Effect.gen(function* () {
        const client = yield* ResourceClient.make({
          config: Config.empty,
          servers: [server("shaky", changesStdioCommand({ subscribe: false }), 5)]
        })
        yield* settled(client)
        const updates = yield* client.updates
        assert.strictEqual(yield* readText(client, "shaky", docA), `${docA} read 1 times`)
        yield* client.subscribe("shaky", docA)
        // every read of this one fails
        yield* client.subscribe("shaky", `${brokenPrefix}x`)
        yield* nextLog(logs, /'shaky': polling every 5000 ms/)
        yield* TestClock.adjust("5 seconds")
        assert.deepStrictEqual(yield* nextUpdate(updates, docA), polledAfter("shaky", docA, 2))
        yield* nextLog(logs, /'shaky': 1 failed poll in a row; the next in 2 intervals/)
        // the second interval has no poll; the third does
        yield* TestClock.adjust("5 seconds")
        yield* TestClock.adjust("5 seconds")
        assert.deepStrictEqual(yield* nextUpdate(updates, docA), polledAfter("shaky", docA, 3))
        yield* nextLog(logs, /'shaky': 2 failed polls in a row; the next in 4 intervals/)
      })
    )
  )

  it.scoped("a server that accepts subscriptions but never pushes is marked as not pushing and polled", () =>
    withLogs((logs) =>
      Effect.gen(function* () {
        const client = yield* ResourceClient.make({
          config: configWith({ verifyPushSec: 10 }),
          servers: [server("silent", changesStdioCommand(), 5)]
        })
        yield* settled(client)
        assert.strictEqual(client.changeDetection("silent"), "subscribe")
        const updates = yield* client.updates
        assert.strictEqual(yield* readText(client, "silent", docA), `${docA} read 1 times`)
        assert.strictEqual(yield* within("subscribe", client.subscribe("silent", docA)), "subscribed")
        yield* nextLog(logs, /'silent': verifying pushes every 10000 ms/)
        // the first check reads the base (read 2), the second finds a change nobody pushed (read 3)
        yield* TestClock.adjust("10 seconds")
        yield* TestClock.adjust("10 seconds")
        assert.deepStrictEqual(yield* nextUpdate(updates, docA), polledAfter("silent", docA, 3))
        yield* nextLog(logs, /'silent': polling every 5000 ms/)
        assert.strictEqual(client.changeDetection("silent"), "poll")
        yield* TestClock.adjust("5 seconds")
        assert.deepStrictEqual(yield* nextUpdate(updates, docA), polledAfter("silent", docA, 4))
      })
    )
  )

  it.scoped("a legacy server that pushes stays on resources/subscribe and is never polled", () =>
    withLogs(() =>
      Effect.gen(function* () {
        const client = yield* ResourceClient.make({
          config: configWith({ verifyPushSec: 0 }),
          servers: [server("pushing", changesStdioCommand(), 5)]
        })
        yield* settled(client)
        assert.strictEqual(client.changeDetection("pushing"), "subscribe")
        const updates = yield* client.updates
        assert.strictEqual(yield* readText(client, "pushing", docA), `${docA} read 1 times`)
        assert.strictEqual(yield* within("subscribe", client.subscribe("pushing", docA)), "subscribed")
        for (let round = 0; round < 2; round++) {
          yield* within("touch", client.callTool("pushing", "touch", { uri: docA }))
          // a pushed update: no digest, nobody read the body
          assert.deepStrictEqual(yield* nextUpdate(updates, docA), { _tag: "updated", server: "pushing", uri: docA })
          yield* TestClock.adjust("10 minutes")
        }
        assert.strictEqual(client.changeDetection("pushing"), "subscribe")
        assert.strictEqual(yield* readText(client, "pushing", docA), `${docA} read 2 times`)
      })
    )
  )

  it.scoped("a 2026-07-28 server is on the subscription stream", () =>
    withLogs(() =>
      Effect.gen(function* () {
        const client = yield* ResourceClient.make({
          config: configWith({ verifyPushSec: 0 }),
          servers: [server("modern", changesStdioCommand({ era: "modern" }))]
        })
        yield* settled(client)
        assert.strictEqual(client.changeDetection("modern"), "stream")
        const updates = yield* client.updates
        assert.strictEqual(yield* within("subscribe", client.subscribe("modern", docA)), "subscribed")
        yield* within("touch", client.callTool("modern", "touch", { uri: docA }))
        assert.deepStrictEqual(yield* nextUpdate(updates, docA), { _tag: "updated", server: "modern", uri: docA })
        assert.strictEqual(client.changeDetection("modern"), "stream")
      })
    )
  )

  it.scoped("a stream the server keeps dropping is reopened with backoff, then given up for polling", () =>
    withLogs((logs) =>
      Effect.gen(function* () {
        const client = yield* ResourceClient.make({
          config: configWith({ verifyPushSec: 0, streamReopenMax: 3 }),
          servers: [server("flaky", changesStdioCommand({ era: "modern", dropStreams: true }), 5)]
        })
        yield* settled(client)
        assert.strictEqual(client.changeDetection("flaky"), "stream")
        const updates = yield* client.updates
        assert.strictEqual(yield* within("subscribe", client.subscribe("flaky", docA)), "subscribed")
        // each reopening waits longer than the one before; the clock is moved by exactly that wait
        const delays: Array<number> = []
        for (;;) {
          const [line, delay] = yield* nextLog(logs, /opening it again in (\d+) ms|polling from now on/)
          if (delay === undefined) {
            assert.include(line, "dropped 4 times in a row")
            break
          }
          delays.push(Number(delay))
          yield* TestClock.adjust(Number(delay))
        }
        assert.deepStrictEqual(delays, [500, 1000, 2000])
        yield* nextLog(logs, /'flaky': polling every 5000 ms/)
        assert.strictEqual(client.changeDetection("flaky"), "poll")
        // the first poll reads the base; the fixture's reads say `ttlMs` 60 s, the floor of the
        // interval: nothing is read again within it, and the first poll after it finds the change
        yield* TestClock.adjust("5 seconds")
        yield* TestClock.adjust("60 seconds")
        assert.deepStrictEqual(yield* nextUpdate(updates, docA), polledAfter("flaky", docA, 2))
      })
    )
  )

  it("a read nobody watches is digested only once a watch needs it: the last four are kept, a large one at once", () => {
    const state = new State("poll", 5000)
    const read = (uri: string, text: string) => ({ contents: [{ uri, mimeType: "text/plain", text }] })
    for (let i = 0; i < 5; i++) state.observeRead(`x://${i}`, read(`x://${i}`, `body ${i}`), 0)
    assert.strictEqual(state.known.size, 0)
    // the oldest fell out of the kept four: its watch has no base (the first poll reads one)
    state.watching("x://0")
    assert.isFalse(state.known.has("x://0"))
    state.watching("x://4")
    assert.strictEqual(state.known.get("x://4")?.digest, Digest.ofContents(read("x://4", "body 4").contents).digest)
    assert.strictEqual(state.known.get("x://4")?.dueAt, 4000)
    // a poll's tick takes the kept reads of watched uris as bases and forgets the rest
    state.settleBases(["x://2", "x://4"])
    assert.deepStrictEqual([...state.known.keys()].sort(), ["x://2", "x://4"])
    // a body over 64 Ki characters is digested at once, not kept
    const large = read("x://large", "y".repeat(64 * 1024 + 1))
    state.observeRead("x://large", large, 10)
    assert.strictEqual(state.known.get("x://large")?.digest, Digest.ofContents(large.contents).digest)
  })
})
