/**
 * The origin-store cases of acceptance-examples.md section 9 through each ThreadStore layer (memory,
 * SQLite, PostgreSQL): events are appended to a thread, loaded back ("newest compaction + later
 * records") and replayed, and the rebuilt state is compared with the state applied live.
 */
import { assert, describe, it } from "@effect/vitest"
import type { ThreadEvent } from "@mcp-resources/protocol"
import { ThreadStore } from "@mcp-resources/thread-store"
import { Effect, Either, type Layer, Option } from "effect"
import { randomUUID } from "node:crypto"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, inject } from "vitest"
import * as OriginState from "../src/OriginState.js"
import { compacted, item, options, rollback, turn } from "./utils/events.js"

declare module "vitest" {
  /** Provided by tooling/config/pgGlobalSetup.ts. */
  interface ProvidedContext {
    pgCluster: { readonly url: string } | { readonly skipped: string }
  }
}

/** A step of a script: an event, or "compact" = a `compacted` event holding the live checkpoint at that point. */
type Step = ThreadEvent.ThreadEvent | "compact"

const live = (steps: ReadonlyArray<Step>) => {
  let state = OriginState.empty
  const events: Array<ThreadEvent.ThreadEvent> = []
  for (const step of steps) {
    const event = step === "compact" ? compacted(Option.getOrUndefined(OriginState.checkpoint(state))) : step
    state = OriginState.apply(state, event, options)
    events.push(event)
  }
  return { state, events }
}

/** Appends the events to a new thread of the store, loads it back and rebuilds the origin state. */
const persistAndRebuild = (events: ReadonlyArray<ThreadEvent.ThreadEvent>) =>
  Effect.gen(function* () {
    const store = yield* ThreadStore.ThreadStore
    const id = randomUUID()
    yield* store.create({ id, createdAt: new Date(0).toISOString(), config: null })
    let seq = 0
    for (const event of events) seq = yield* store.append(id, seq, event)
    const loaded = yield* store.load(id)
    assert.strictEqual(loaded.lastSeq, events.length)
    return OriginState.rebuild(
      loaded.records.map((r) => r.event),
      options
    )
  })

const callIds = (state: OriginState.State) => state.origins.map((o) => o.callId)

// A deterministic long script: turns, apps and other items, rollbacks and compactions.
const longScript = (): Array<Step> => {
  let seed = 7
  const next = () => {
    seed = (seed * 1103515245 + 12345) % 2147483648
    return seed / 2147483648
  }
  const steps: Array<Step> = []
  let turnNo = 0
  let callNo = 0
  for (let i = 0; i < 600; i++) {
    const r = next()
    if (r < 0.1) steps.push(turn(`t${++turnNo}`))
    else if (r < 0.5) steps.push(item(`c${++callNo}`, { turnId: `t${turnNo}` }))
    else if (r < 0.9) steps.push(item(`c${++callNo}`, { turnId: `t${turnNo}`, server: "srv" }))
    else if (r < 0.97) steps.push(rollback(1))
    else steps.push("compact")
  }
  steps.push("compact", turn("t-last"), item("c-last", { turnId: "t-last" }))
  return steps
}

const suite = (name: string, layer: () => Layer.Layer<ThreadStore.ThreadStore, unknown>) =>
  describe(`origin cases on the ${name} thread store`, () => {
    const run = <A, E>(effect: Effect.Effect<A, E, ThreadStore.ThreadStore>) =>
      effect.pipe(Effect.provide(layer()), Effect.scoped)

    it.effect("O-21: checkpoint + later records rebuild the live state (c1 found, c2 not, current t1)", () =>
      run(
        Effect.gen(function* () {
          const { state, events } = live([
            turn("t1"),
            item("c1"),
            "compact",
            turn("t2"),
            item("c2", { turnId: "t2" }),
            rollback(1)
          ])
          const rebuilt = yield* persistAndRebuild(events)
          assert.deepStrictEqual(rebuilt, state)
          assert.isTrue(Either.isRight(OriginState.find(rebuilt, "c1")))
          assert.isTrue(Either.isLeft(OriginState.find(rebuilt, "c2")))
          assert.strictEqual(rebuilt.currentTurnId, "t1")
        })
      )
    )

    it.effect("O-22: a rollback past the checkpoint's turns clears the origins", () =>
      run(
        Effect.gen(function* () {
          const rebuilt = yield* persistAndRebuild([
            compacted({
              origins: [{ call_id: "c1", turn_id: "t1", tool: "t", connector_id: "k", uri: "ui://w" }],
              turns: ["t1"]
            }),
            turn("t2"),
            rollback(2)
          ])
          assert.deepStrictEqual(callIds(rebuilt), [])
          assert.isTrue(Option.isNone(OriginState.checkpoint(rebuilt)))
        })
      )
    )

    it.effect("O-23: a compaction without a checkpoint starts from empty: only c5 is loaded", () =>
      run(
        Effect.gen(function* () {
          const rebuilt = yield* persistAndRebuild([
            turn("t1"),
            item("c1"),
            compacted(),
            turn("t5"),
            item("c5", { turnId: "t5" })
          ])
          assert.deepStrictEqual(callIds(rebuilt), ["c5"])
        })
      )
    )

    it.effect("a 600-event script with rollbacks and several compactions rebuilds to the live state", () =>
      run(
        Effect.gen(function* () {
          const { state, events } = live(longScript())
          const rebuilt = yield* persistAndRebuild(events)
          assert.deepStrictEqual(rebuilt, state)
          assert.isAbove(state.origins.length, 0)
        })
      )
    )
  })

suite("memory", () => ThreadStore.layerMemory)

const sqliteDir = mkdtempSync(join(tmpdir(), "origins-sqlite-"))
afterAll(() => rmSync(sqliteDir, { recursive: true, force: true }))
suite("SQLite", () => ThreadStore.layerSqlite({ filename: join(sqliteDir, `${randomUUID()}.sqlite`) }))

const cluster = inject("pgCluster")
if ("url" in cluster) {
  suite("PostgreSQL", () => ThreadStore.layerPg({ url: cluster.url }))
} else {
  console.warn(`PostgreSQL origin cases skipped: ${cluster.skipped}`)
  describe.skip(`origin cases on the PostgreSQL thread store (skipped: ${cluster.skipped})`, () => {
    it("runs on PostgreSQL", () => {})
  })
}
