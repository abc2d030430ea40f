/**
 * One server's notification flood stays that server's (#46 item 13): while a real v2 SDK server over
 * stdio (initialize era), or a streamable HTTP listener on its event stream, floods `resources/updated` for ever new uris, `resources/list_changed` and log messages as fast
 * as the pipe takes them, another server of the same client answers read after read; the flood's
 * changes are coalesced per server, the update stream carries only what was subscribed (an update of
 * any other uri has no taker and gives the consumers no work), and no change is dropped: the
 * subscribed uri's update arrives and the flooded uri's cached read is read again. Timing figures
 * are in RELIABILITY.md (tooling/reliability, the `flood` case); nothing here depends on the clock (the
 * coalescing bound holds by the bursts the servers write, below).
 */
import { assert, describe, it } from "@effect/vitest"
import { floodStdioCommand, startFloodHttp } from "@mcp-resources/fixtures"
import { Config } from "@mcp-resources/protocol"
import { Chunk, Effect, Queue } from "effect"
import { McpTransport, ResourceClient, type ServerEntry } from "../src/index.js"

const server = (name: string, transport?: ServerEntry.ServerEntry["transport"]): ServerEntry.ServerEntry => ({
  name,
  transport: transport ?? { _tag: "stdio", ...floodStdioCommand(), env: {} },
  enabled: true,
  startupTimeoutSec: 60,
  toolTimeoutSec: 60,
  maxMessageBytes: 1024 * 1024,
  // the initialize era: the server sends every notification (on 2026-07-28 it filters by the listen stream)
  protocolVersion: "legacy"
})

const readText = (client: ResourceClient.Service, name: string, uri: string) =>
  Effect.map(
    client.readResource(name, uri, undefined, { defaultTtlMs: 60_000 }),
    (result) => (result.contents[0] as { readonly text: string }).text
  )

/** Quiet reads made while the flood runs, at the least. */
const quietReads = 20

/** Notifications the flood sends, at the least, before it is stopped. */
const floodAtLeast = 1000

/** The flood through `flooder` while `quiet` (stdio) is read. */
const floodWhileReading = (flooder: ServerEntry.ServerEntry) =>
  Effect.gen(function* () {
    const client = yield* ResourceClient.make({
      config: Config.empty,
      servers: [flooder, server("quiet")]
    })
    yield* Effect.flatMap(client.latest, (set) => set.awaitAllSettled)
    const updates = yield* client.updates
    assert.strictEqual(yield* client.subscribe("flooder", "flood://watched"), "subscribed")
    // a cached read of a uri the flood names
    assert.strictEqual(yield* readText(client, "flooder", "flood://3"), "flood://3 read 1 times")
    assert.strictEqual(yield* readText(client, "flooder", "flood://3"), "flood://3 read 1 times")

    assert.strictEqual(yield* readText(client, "flooder", "flood://start"), "started")
    // the other server answers each of its reads while the flood goes on (it stops only below): at
    // least `quietReads` of them, and on until the flood has sent `floodAtLeast` notifications, however
    // fast this machine runs either side
    yield* Effect.gen(function* () {
      for (let i = 0; ; i++) {
        assert.strictEqual(yield* readText(client, "quiet", `quiet://${i}`), `quiet://${i} read 1 times`)
        if (i + 1 < quietReads) continue
        const sofar = JSON.parse(yield* readText(client, "flooder", `flood://sent/${i}`)) as { sent: number }
        if (sofar.sent > floodAtLeast) return
      }
    }).pipe(
      Effect.timeoutFail({
        duration: "60 seconds",
        onTimeout: () => new Error(`the flood did not reach ${floodAtLeast} notifications in 60 s`)
      })
    )
    const { sent } = JSON.parse(yield* readText(client, "flooder", "flood://stop")) as { sent: number }
    assert.isAbove(sent, floodAtLeast, "the flood ran while the quiet server was read")

    // every update up to the last of the subscribed uri (sent after the flood, before the stop's answer)
    const seen: Array<ResourceClient.ResourceUpdate> = []
    yield* Effect.gen(function* () {
      for (;;) {
        const update = yield* Queue.take(updates)
        seen.push(update, ...Chunk.toReadonlyArray(yield* Queue.takeAll(updates)))
        const updated = seen.filter((u) => u._tag === "updated")
        const last = updated[updated.length - 1]
        if (last?.uri === "flood://watched" && (yield* Queue.size(updates)) === 0) return
      }
    }).pipe(Effect.timeoutFail({ duration: "30 seconds", onTimeout: () => new Error("the watched update never came") }))
    const updatedUris = new Set(seen.flatMap((u) => (u._tag === "updated" ? [u.uri] : [])))
    assert.deepStrictEqual([...updatedUris], ["flood://watched"])
    assert.isTrue(seen.every((u) => u.server === "flooder"))
    // coalesced: far fewer updates than notifications. Uncoalesced, one list_changed in three would
    // give two updates each (2/3 of `sent`). The flood servers write their notifications in bursts
    // (30 over stdio, each burst one atomic pipe write; 64 over HTTP), and a read's notifications are
    // all applied before the change path takes them as one batch, so a batch holds a burst at the
    // least however the processes are scheduled: at most 2 updates per 10 list_changed over stdio
    assert.isBelow(seen.length, sent / 3)
    // not dropped: the flooded uri's cached read was invalidated
    assert.strictEqual(yield* readText(client, "flooder", "flood://3"), "flood://3 read 2 times")
  }).pipe(Effect.provide(McpTransport.layer))

describe("a notification flood of one server", () => {
  it.scopedLive(
    "leaves another server's reads answered during it, coalesced per server, with only subscribed uris on the update stream and nothing dropped",
    () => floodWhileReading(server("flooder")),
    120_000
  )

  it.scopedLive(
    "over a streamable HTTP event stream, the same: its changes are applied before the SDK's transport parses them",
    () =>
      Effect.gen(function* () {
        const http = yield* Effect.acquireRelease(
          Effect.promise(() => startFloodHttp()),
          (listener) => Effect.promise(() => listener.close())
        )
        yield* floodWhileReading(server("flooder", { _tag: "http", url: http.url, httpHeaders: {} }))
      }),
    120_000
  )
})
