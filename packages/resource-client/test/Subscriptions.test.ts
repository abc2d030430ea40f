/**
 * Resource subscriptions on both protocol eras, against real stdio servers (the v1 SDK on the
 * initialize era, the v2 SDK on 2026-07-28 only): a subscription is counted per server (one request
 * for two holders, none until the last lets go), an update reaches `updates` and drops the cached
 * read, a `list_changed` is one update per list, a reconnection sends every held subscription to the
 * new server process, and a server without subscriptions is told nothing.
 */
import { assert, describe, it } from "@effect/vitest"
import { type ChangesLog, type ChangesRequest, changesStdioCommand } from "@mcp-resources/fixtures"
import { Config } from "@mcp-resources/protocol"
import { Effect, Queue } from "effect"
import { McpTransport, ResourceClient, type ServerEntry } from "../src/index.js"

const docA = "changes://doc/a"
const docB = "changes://doc/b"

const server = (name: string, command: { command: string; args: Array<string> }): ServerEntry.ServerEntry => ({
  name,
  transport: { _tag: "stdio", command: command.command, args: command.args, env: {} },
  enabled: true,
  startupTimeoutSec: 60,
  toolTimeoutSec: 30,
  maxMessageBytes: 67108864
})

const text = (result: { readonly content?: ReadonlyArray<unknown> }): string =>
  (result.content?.[0] as { readonly text?: string } | undefined)?.text ?? ""

/** The fixture's log; with `until`, once the fixture has seen that uri subscribed (it waits at most 10 s). */
const logOf = (client: ResourceClient.Service, name: string, until?: string) =>
  Effect.map(
    client.callTool(name, "subscriptions", until === undefined ? {} : { until }),
    (result) => JSON.parse(text(result)) as ChangesLog
  )

const readText = (client: ResourceClient.Service, name: string, uri: string) =>
  Effect.map(
    client.readResource(name, uri, undefined, { defaultTtlMs: 60_000 }),
    (result) => (result.contents[0] as { readonly text: string }).text
  )

/** The next update of the queue that satisfies `wanted` (the others are skipped); at most 20 s. */
const nextUpdate = (
  updates: Queue.Dequeue<ResourceClient.ResourceUpdate>,
  wanted: (update: ResourceClient.ResourceUpdate) => boolean
) =>
  Effect.gen(function* () {
    for (;;) {
      const update = yield* Queue.take(updates)
      if (wanted(update)) return update
    }
  }).pipe(Effect.timeoutFail({ duration: "20 seconds", onTimeout: () => new Error("no such update came") }))

describe.each(["legacy", "modern"] as const)("resource subscriptions (%s era, stdio)", (era) => {
  /** What the fixture saw for a change of the set to `uris`: a legacy request, or a listen of the whole set. */
  const request = (change: "subscribe" | "unsubscribe", uri: string, uris: ReadonlyArray<string>): ChangesRequest =>
    era === "legacy" ? { method: change, uri } : { method: "listen", uris }

  it.scopedLive("counted per server, updates reach the queue and the cache, restored after a reconnect", () =>
    Effect.gen(function* () {
      const client = yield* ResourceClient.make({
        config: Config.empty,
        servers: [server("docs", changesStdioCommand({ era }))]
      })
      const set = yield* client.latest
      yield* set.awaitAllSettled
      assert.isTrue(client.supports("docs", "subscribe"))
      const updates = yield* client.updates

      assert.strictEqual(yield* client.subscribe("docs", docA), "subscribed")
      assert.strictEqual(yield* client.subscribe("docs", docA), "subscribed")
      assert.strictEqual(yield* client.subscribe("docs", docB), "subscribed")
      const held = yield* logOf(client, "docs")
      assert.deepStrictEqual(held.subscribed, [docA, docB])
      if (era === "legacy") {
        // two holders of A, one request
        assert.deepStrictEqual(held.requests, [request("subscribe", docA, []), request("subscribe", docB, [])])
      } else {
        assert.deepStrictEqual(held.requests.at(-1), request("subscribe", docB, [docA, docB]))
      }

      // an update: on the queue, and the cached read is dropped
      assert.strictEqual(yield* readText(client, "docs", docA), `${docA} read 1 times`)
      assert.strictEqual(yield* readText(client, "docs", docA), `${docA} read 1 times`)
      yield* client.callTool("docs", "touch", { uri: docA })
      const updated = yield* nextUpdate(updates, (u) => u._tag === "updated")
      assert.deepStrictEqual(updated, { _tag: "updated", server: "docs", uri: docA })
      assert.strictEqual(yield* readText(client, "docs", docA), `${docA} read 2 times`)

      // list_changed: one update per list
      yield* client.callTool("docs", "touch", { list: true })
      const lists = [
        yield* nextUpdate(updates, (u) => u._tag === "listChanged"),
        yield* nextUpdate(updates, (u) => u._tag === "listChanged")
      ]
      assert.sameDeepMembers(lists, [
        { _tag: "listChanged", server: "docs", list: "resources" },
        { _tag: "listChanged", server: "docs", list: "templates" }
      ])

      // one of A's two holders lets go: nothing sent; B's only one: sent
      yield* client.unsubscribe("docs", docA)
      yield* client.unsubscribe("docs", docB)
      const after = yield* logOf(client, "docs")
      assert.deepStrictEqual(after.subscribed, [docA])
      assert.deepStrictEqual(after.requests.at(-1), request("unsubscribe", docB, [docA]))
      if (era === "legacy") assert.notDeepInclude(after.requests, request("unsubscribe", docA, []))

      // a new server process keeps nothing: the held subscription is sent to it again (in the
      // background once the server is ready; the fixture answers once it has seen it)
      yield* client.reconnect
      yield* Effect.flatMap(client.latest, (next) => next.awaitAllSettled)
      const restored = yield* logOf(client, "docs", docA)
      assert.deepStrictEqual(restored.subscribed, [docA])
      yield* client.callTool("docs", "touch", { uri: docA })
      assert.deepStrictEqual(yield* nextUpdate(updates, (u) => u._tag === "updated"), {
        _tag: "updated",
        server: "docs",
        uri: docA
      })
    }).pipe(Effect.provide(McpTransport.layer))
  )

  it.scopedLive(
    "a server without subscriptions is sent nothing (watched by polling, or not at all with polling off)",
    () =>
      Effect.gen(function* () {
        const client = yield* ResourceClient.make({
          config: Config.empty,
          servers: [
            { ...server("plain", changesStdioCommand({ era, subscribe: false })), pollChangesSec: 0 },
            server("polled", changesStdioCommand({ era, subscribe: false }))
          ]
        })
        yield* Effect.flatMap(client.latest, (set) => set.awaitAllSettled)
        assert.isFalse(client.supports("plain", "subscribe"))
        assert.strictEqual(yield* client.subscribe("plain", docA), "unsupported")
        yield* client.unsubscribe("plain", docA)
        assert.deepStrictEqual(yield* logOf(client, "plain"), { subscribed: [], requests: [] })
        // with polling on (the default), the uri is watched: held, and still nothing goes on the wire
        assert.strictEqual(yield* client.subscribe("polled", docA), "subscribed")
        yield* client.unsubscribe("polled", docA)
        assert.deepStrictEqual(yield* logOf(client, "polled"), { subscribed: [], requests: [] })
      }).pipe(Effect.provide(McpTransport.layer))
  )
})
