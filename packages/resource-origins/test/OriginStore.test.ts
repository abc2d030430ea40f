import { assert, describe, it } from "@effect/vitest"
import { Config } from "@mcp-resources/protocol"
import { ResourceClient } from "@mcp-resources/resource-client"
import { Effect, Layer, Logger, Option, Ref } from "effect"
import * as OriginState from "../src/OriginState.js"
import { OriginStore, layer, layerFromResourceClient } from "../src/OriginStore.js"
import { compacted, item, rollback, turn } from "./utils/events.js"

const storeLayer = layer({ appsServerName: Effect.succeed("codex_apps") })

const callIds = (state: OriginState.State) => state.origins.map((o) => o.callId)

describe("OriginStore", () => {
  it.effect("O-1: the service finds a remembered call and fails with the exact message for an unknown one", () =>
    Effect.gen(function* () {
      const store = yield* OriginStore
      yield* store.observe("th", turn("t1"))
      yield* store.observe("th", item("c1"))
      assert.strictEqual((yield* store.find("th", "c1")).uri, "ui://w")
      const error = yield* Effect.flip(store.find("th", "zz"))
      assert.strictEqual(error._tag, "AccessError")
      assert.strictEqual(error.message, "originating MCP tool call was not found or did not complete successfully")
    }).pipe(Effect.provide(storeLayer))
  )

  it.effect("each thread has its own state; an unknown thread is empty", () =>
    Effect.gen(function* () {
      const store = yield* OriginStore
      yield* store.observe("a", turn("t1"))
      yield* store.observe("a", item("c1"))
      yield* store.observe("b", turn("t1"))
      yield* store.observe("b", rollback(1))
      assert.deepStrictEqual(callIds(yield* store.state("a")), ["c1"])
      assert.isTrue(Option.isNone(yield* store.checkpoint("b")))
      yield* Effect.flip(store.find("b", "c1"))
      assert.deepStrictEqual(yield* store.state("unknown"), OriginState.empty)
      assert.isFalse(yield* store.isLoaded("unknown"))
      assert.isTrue(yield* store.isLoaded("b"))
    }).pipe(Effect.provide(storeLayer))
  )

  it.effect("O-17, O-18: the service's checkpoint is absent without origins and snake_case with them", () =>
    Effect.gen(function* () {
      const store = yield* OriginStore
      yield* store.observe("th", turn("turn-a"))
      assert.isTrue(Option.isNone(yield* store.checkpoint("th")))
      yield* store.observe("th", item("c1", { turnId: "turn-a", linkId: "L1" }))
      assert.deepStrictEqual(
        Option.map(yield* store.checkpoint("th"), (c) => JSON.stringify(c)),
        Option.some(
          '{"origins":[{"call_id":"c1","turn_id":"turn-a","tool":"t","connector_id":"k","link_id":"L1","uri":"ui://w"}],"turns":["turn-a"],"current_turn_id":"turn-a"}'
        )
      )
    }).pipe(Effect.provide(storeLayer))
  )

  it.effect("O-21: load rebuilds a thread from its records and replaces its live state", () =>
    Effect.gen(function* () {
      const store = yield* OriginStore
      yield* store.observe("th", turn("t1"))
      yield* store.observe("th", item("c1"))
      const checkpoint = Option.getOrThrow(yield* store.checkpoint("th"))
      yield* store.observe("th", turn("t2"))
      yield* store.observe("th", item("c2", { turnId: "t2" }))
      yield* store.observe("th", rollback(1))
      const live = yield* store.state("th")
      yield* store.observe("th", item("stale"))
      const loaded = yield* store.load("th", [
        compacted(checkpoint),
        turn("t2"),
        item("c2", { turnId: "t2" }),
        rollback(1)
      ])
      assert.deepStrictEqual(loaded, live)
      assert.deepStrictEqual(yield* store.state("th"), live)
      assert.strictEqual((yield* store.find("th", "c1")).turnId, "t1")
      yield* Effect.flip(store.find("th", "c2"))
      yield* Effect.flip(store.find("th", "stale"))
    }).pipe(Effect.provide(storeLayer))
  )

  it.effect("load logs a warning and starts from empty when the newest checkpoint is discarded", () =>
    Effect.gen(function* () {
      const logs: Array<string> = []
      const logger = Logger.make(({ logLevel, message }) => {
        logs.push(`${logLevel.label}: ${String(message)}`)
      })
      const state = yield* Effect.gen(function* () {
        const store = yield* OriginStore
        return yield* store.load("th", [
          compacted({ origins: "x", turns: ["t1"] }),
          turn("t2"),
          item("c2", { turnId: "t2" })
        ])
      }).pipe(Effect.provide(Layer.merge(storeLayer, Logger.replace(Logger.defaultLogger, logger))))
      assert.deepStrictEqual(callIds(state), ["c2"])
      assert.deepStrictEqual(state.turns, ["t2"])
      assert.deepStrictEqual(logs, ["WARN: discarded the resource-origin checkpoint of thread th"])
    })
  )

  it.effect("a loader fed records one at a time commits what load of the same records gives, and warns the same", () =>
    Effect.gen(function* () {
      const logs: Array<string> = []
      const logger = Logger.make(({ logLevel, message }) => {
        logs.push(`${logLevel.label}: ${String(message)}`)
      })
      const records = [
        turn("t0"),
        item("c0", { turnId: "t0" }),
        compacted({ origins: "x", turns: ["t1"] }),
        turn("t2"),
        item("c2", { turnId: "t2" })
      ]
      const [loaded, committed, state, untouched] = yield* Effect.gen(function* () {
        const store = yield* OriginStore
        const loaded = yield* store.load("a", records)
        const loader = yield* store.loader("b")
        for (const event of records) loader.add(event)
        // Nothing changes before the commit.
        const untouched = yield* store.isLoaded("b")
        const committed = yield* loader.commit
        return [loaded, committed, yield* store.state("b"), untouched] as const
      }).pipe(Effect.provide(Layer.merge(storeLayer, Logger.replace(Logger.defaultLogger, logger))))
      assert.isFalse(untouched)
      assert.deepStrictEqual(committed, loaded)
      assert.deepStrictEqual(state, loaded)
      assert.deepStrictEqual(callIds(state), ["c2"])
      assert.deepStrictEqual(logs, [
        "WARN: discarded the resource-origin checkpoint of thread a",
        "WARN: discarded the resource-origin checkpoint of thread b"
      ])
    })
  )

  it.effect("forget drops a thread's state", () =>
    Effect.gen(function* () {
      const store = yield* OriginStore
      yield* store.observe("th", turn("t1"))
      yield* store.observe("th", item("c1"))
      yield* store.forget("th")
      assert.isFalse(yield* store.isLoaded("th"))
      yield* Effect.flip(store.find("th", "c1"))
    }).pipe(Effect.provide(storeLayer))
  )

  it.effect("the apps server name is read at every event, so only the current apps server's calls are remembered", () =>
    Effect.gen(function* () {
      const name = yield* Ref.make("codex_apps")
      const store = yield* Effect.provide(OriginStore, layer({ appsServerName: Ref.get(name) }))
      yield* store.observe("th", turn("t1"))
      yield* store.observe("th", item("c1"))
      yield* Ref.set(name, "apps")
      yield* store.observe("th", item("c2"))
      yield* store.observe("th", item("c3", { server: "apps" }))
      assert.deepStrictEqual(callIds(yield* store.state("th")), ["c1", "c3"])
    })
  )

  it.scoped("layerFromResourceClient remembers calls of the configured apps.server_name", () =>
    Effect.gen(function* () {
      const store = yield* OriginStore
      yield* store.observe("th", turn("t1"))
      yield* store.observe("th", item("c1"))
      yield* store.observe("th", item("c2", { server: "apps" }))
      assert.deepStrictEqual(callIds(yield* store.state("th")), ["c2"])
    }).pipe(
      Effect.provide(
        layerFromResourceClient.pipe(
          Layer.provide(
            ResourceClient.layer({
              config: { ...Config.empty, apps: { serverName: "apps", connectors: {} } },
              servers: []
            })
          )
        )
      )
    )
  )
})
