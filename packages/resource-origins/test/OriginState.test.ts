import { assert, describe, it } from "@effect/vitest"
import type { ThreadEvent } from "@mcp-resources/protocol"
import { Either, Option } from "effect"
import * as OriginState from "../src/OriginState.js"
import { compacted, ended, item, options, rollback, turn } from "./utils/events.js"

const run = (events: ReadonlyArray<ThreadEvent.ThreadEvent>, from: OriginState.State = OriginState.empty) =>
  events.reduce((state, event) => OriginState.apply(state, event, options), from)

const found = (state: OriginState.State, callId: string): OriginState.Origin => {
  const result = OriginState.find(state, callId)
  if (Either.isLeft(result)) return assert.fail(`${callId} not found`)
  return result.right
}

const notFound = (state: OriginState.State, callId: string) => {
  const result = OriginState.find(state, callId)
  assert.isTrue(Either.isLeft(result), `${callId} should not be found`)
  if (Either.isLeft(result)) {
    assert.strictEqual(result.left._tag, "AccessError")
    assert.strictEqual(result.left.message, "originating MCP tool call was not found or did not complete successfully")
  }
}

const callIds = (state: OriginState.State) => state.origins.map((o) => o.callId)

const checkpointJson = (state: OriginState.State) => Option.map(OriginState.checkpoint(state), (c) => JSON.stringify(c))

const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i)

describe("OriginState", () => {
  it("O-1: a completed apps-server item is found by its call id; an unknown id is not found", () => {
    const state = run([turn("t1"), item("c1")])
    assert.deepStrictEqual(found(state, "c1"), {
      callId: "c1",
      turnId: "t1",
      tool: "t",
      connectorId: "k",
      uri: "ui://w",
      ambiguousAccount: false
    })
    notFound(state, "zz")
  })

  it("O-2: other servers, blank connectors and missing uris are not stored; a blank uri is, a blank link is dropped", () => {
    const base = [turn("t1")]
    notFound(run([...base, item("c1", { server: "srv" })]), "c1")
    notFound(run([...base, item("c1", { connectorId: "  " })]), "c1")
    notFound(run([...base, item("c1", { connectorId: undefined })]), "c1")
    notFound(run([...base, item("c1", { uri: undefined })]), "c1")
    assert.strictEqual(found(run([...base, item("c1", { uri: "" })]), "c1").uri, "")
    const blankLink = found(run([...base, item("c1", { linkId: "  " })]), "c1")
    assert.isFalse("linkId" in blankLink)
  })

  it("O-2: the server must equal the apps server name exactly and the connector is stored untrimmed", () => {
    notFound(run([turn("t1"), item("c1", { server: "codex_apps " })]), "c1")
    assert.strictEqual(found(run([turn("t1"), item("c1", { connectorId: " k " })]), "c1").connectorId, " k ")
  })

  it("O-3: a link_id argument differing from the tool's link makes the origin ambiguous", () => {
    const state = run([turn("t1"), item("c1", { linkId: "link_walmart", arguments: { link_id: "link_other" } })])
    assert.isTrue(found(state, "c1").ambiguousAccount)
    assert.strictEqual(found(state, "c1").linkId, "link_walmart")
  })

  it("O-4: the same link, a non-string or blank link_id, or null arguments are not ambiguous", () => {
    for (const args of [{ link_id: "link_walmart" }, { link_id: 5 }, { link_id: "  " }, null]) {
      const state = run([turn("t1"), item("c1", { linkId: "link_walmart", arguments: args })])
      assert.isFalse(found(state, "c1").ambiguousAccount, JSON.stringify(args))
    }
  })

  it("O-5: without a tool link any non-blank link_id argument is ambiguous", () => {
    assert.isTrue(found(run([turn("t1"), item("c1", { arguments: { link_id: "x" } })]), "c1").ambiguousAccount)
  })

  it("ambiguity compares link ids exactly, untrimmed, and ignores link_id of non-object arguments", () => {
    const padded = run([turn("t1"), item("c1", { linkId: "L", arguments: { link_id: " L" } })])
    assert.isTrue(found(padded, "c1").ambiguousAccount)
    const array = run([turn("t1"), item("c1", { linkId: "L", arguments: ["x"] })])
    assert.isFalse(found(array, "c1").ambiguousAccount)
  })

  it("O-6: the 65th origin evicts the oldest; the checkpoint holds 64 origins starting at c2", () => {
    const state = run([turn("t1"), ...range(1, 65).map((n) => item(`c${n}`))])
    notFound(state, "c1")
    const checkpoint = Option.getOrThrow(OriginState.checkpoint(state))
    assert.strictEqual(checkpoint.origins.length, 64)
    assert.strictEqual(checkpoint.origins[0]!.call_id, "c2")
    assert.strictEqual(checkpoint.origins[63]!.call_id, "c65")
  })

  it("O-7: re-remembering a call id moves it to the back, so the next eviction takes the next oldest", () => {
    const state = run([turn("t1"), ...range(1, 64).map((n) => item(`c${n}`)), item("c1"), item("c65")])
    notFound(state, "c2")
    found(state, "c1")
    assert.deepStrictEqual(callIds(state).slice(-2), ["c1", "c65"])
    assert.strictEqual(state.origins.length, 64)
  })

  it("O-8: an origin of exactly 1024 bytes is stored, one of 1025 bytes is not", () => {
    // c1 (2) + t1 (2) + t (1) + k (1) + uri
    const uri1024 = `ui://${"x".repeat(1024 - 6 - 5)}`
    const exact = run([turn("t1"), item("c1", { uri: uri1024 })])
    assert.strictEqual(OriginState.originSize(found(exact, "c1")), 1024)
    notFound(run([turn("t1"), item("c1", { uri: `${uri1024}x` })]), "c1")
  })

  it("the size counts UTF-8 bytes, not UTF-16 units", () => {
    const uri = `ui://${"é".repeat(510)}` // 5 + 1020 bytes, 515 code units
    notFound(run([turn("t1"), item("c1", { uri })]), "c1")
    assert.strictEqual(
      OriginState.originSize({
        callId: "best-buy-call",
        turnId: "turn-1",
        tool: "best_buy_product_search",
        connectorId: "best_buy",
        linkId: "link_best_buy",
        uri: "ui://widget/checkout-session.html"
      }),
      96
    )
  })

  it("O-9: an oversize re-remember is dropped and keeps the old origin unchanged", () => {
    const state = run([turn("t1"), item("c1"), item("c2"), item("c1", { uri: `ui://${"x".repeat(1014)}` })])
    assert.strictEqual(found(state, "c1").uri, "ui://w")
    assert.deepStrictEqual(callIds(state), ["c1", "c2"])
  })

  it("O-10: a failed (or in-progress) item with a stored call id leaves the origin in place", () => {
    const state = run([
      turn("t1"),
      item("c1"),
      item("c1", { status: "failed", uri: "ui://other" }),
      item("c1", { status: "inProgress" })
    ])
    assert.strictEqual(found(state, "c1").uri, "ui://w")
    notFound(run([turn("t1"), item("c2", { status: "failed" })]), "c2")
  })

  it("itemStarted and compacted events change nothing live", () => {
    const state = run([turn("t1"), item("c1")])
    const completed = item("c2")
    if (completed._tag !== "itemCompleted") return assert.fail("expected an itemCompleted event")
    const started: ThreadEvent.ThreadEvent = { _tag: "itemStarted", turnId: "t1", item: completed.item }
    assert.strictEqual(OriginState.apply(state, started, options), state)
    assert.strictEqual(OriginState.apply(state, compacted(), options), state)
  })

  it("O-11: a turn id over 1024 bytes is ignored entirely", () => {
    const state = run([turn("t1"), turn("x".repeat(1025))])
    assert.deepStrictEqual(state, { origins: [], turns: ["t1"], currentTurnId: "t1" })
    assert.deepStrictEqual(run([turn("x".repeat(1024))]).turns, ["x".repeat(1024)])
  })

  it("O-12: a repeated turn is not appended again; 65 new turns keep the newest 64", () => {
    const repeated = run([turn("t1"), turn("t1")])
    assert.deepStrictEqual(repeated.turns, ["t1"])
    const state = run(
      range(1, 65).map((n) => turn(`n${n}`)),
      repeated
    )
    assert.strictEqual(state.turns.length, 64)
    assert.notInclude(state.turns, "t1")
    assert.notInclude(state.turns, "n1")
    assert.strictEqual(state.turns[0], "n2")
    assert.strictEqual(state.currentTurnId, "n65")
  })

  it("a turn that repeats a non-last id is appended again", () => {
    assert.deepStrictEqual(run([turn("a"), turn("b"), turn("a")]).turns, ["a", "b", "a"])
  })

  it("O-13: rolling back one turn drops that turn's origins and makes the previous turn current", () => {
    const state = run([turn("t1"), item("c1"), turn("t2"), item("c2", { turnId: "t2" }), rollback(1)])
    found(state, "c1")
    notFound(state, "c2")
    assert.strictEqual(state.currentTurnId, "t1")
    assert.deepStrictEqual(state.turns, ["t1"])
  })

  it("O-14: a rollback of 0 turns removes nothing and keeps the current turn", () => {
    const before = run([turn("t1"), item("c1"), turn("t2")])
    const state = run([rollback(0)], before)
    assert.deepStrictEqual(state, before)
    assert.strictEqual(state.currentTurnId, "t2")
  })

  it("a rollback of 0 turns sets the current turn to the last known turn", () => {
    const restored = OriginState.restore({ origins: [], turns: ["t1"], current_turn_id: "zz" }).state
    assert.strictEqual(run([rollback(0)], restored).currentTurnId, "t1")
  })

  it("O-15: rolling back past the start resets everything and the checkpoint is absent", () => {
    const state = run([turn("t1"), item("c1"), rollback(2)])
    assert.deepStrictEqual(state, OriginState.empty)
    assert.isTrue(Option.isNone(OriginState.checkpoint(state)))
  })

  it("a rollback removes only the popped turn's origins; rolling back past the start clears the rest", () => {
    const state = run([turn("t1"), item("c1", { turnId: "other" }), rollback(1)])
    found(state, "c1")
    assert.deepStrictEqual(state.turns, [])
    assert.isFalse("currentTurnId" in state)
    const cleared = run([rollback(1)], state)
    notFound(cleared, "c1")
    assert.deepStrictEqual(cleared, OriginState.empty)
  })

  it("O-16: origins without a turn id are dropped by a rollback of one turn", () => {
    const restored = OriginState.restore({
      origins: [
        { call_id: "c9", tool: "t", connector_id: "k", uri: "ui://w" },
        { call_id: "c1", turn_id: "t1", tool: "t", connector_id: "k", uri: "ui://w" }
      ],
      turns: ["t1", "t2"]
    })
    assert.isFalse(restored.discarded)
    found(restored.state, "c9")
    const state = run([rollback(1)], restored.state)
    notFound(state, "c9")
    found(state, "c1")
    assert.strictEqual(state.currentTurnId, "t1")
  })

  it("O-17: a turn without items has no checkpoint", () => {
    assert.isTrue(Option.isNone(OriginState.checkpoint(run([turn("t1")]))))
  })

  it("O-18: the checkpoint JSON is exactly the spec's, keys in order, snake_case", () => {
    const state = run([
      turn("turn-a"),
      turn("turn-b"),
      item("walmart-call", {
        turnId: "turn-b",
        tool: "walmart_product_search",
        connectorId: "walmart",
        linkId: "link_walmart",
        uri: "ui://widget/checkout-session.html",
        arguments: { query: "tv", link_id: "link_other" }
      })
    ])
    assert.deepStrictEqual(
      checkpointJson(state),
      Option.some(
        '{"origins":[{"call_id":"walmart-call","turn_id":"turn-b","tool":"walmart_product_search","connector_id":"walmart","link_id":"link_walmart","uri":"ui://widget/checkout-session.html","ambiguous_account":true}],"turns":["turn-a","turn-b"],"current_turn_id":"turn-b"}'
      )
    )
  })

  it("the checkpoint omits absent turn, link and current turn ids and a false ambiguous_account", () => {
    const restored = OriginState.restore({
      origins: [{ call_id: "c9", tool: "t", connector_id: "k", uri: "" }],
      turns: []
    })
    assert.deepStrictEqual(
      checkpointJson(restored.state),
      Option.some('{"origins":[{"call_id":"c9","tool":"t","connector_id":"k","uri":""}],"turns":[]}')
    )
    assert.isFalse(OriginState.find(restored.state, "c9").pipe(Either.getOrThrow).ambiguousAccount)
  })

  describe("O-19: restore discards the whole checkpoint when a bound or rule is broken", () => {
    const origin = (n: number) => ({ call_id: `c${n}`, turn_id: "t1", tool: "t", connector_id: "k", uri: "ui://w" })
    const cases: ReadonlyArray<readonly [string, unknown]> = [
      ["65 origins", { origins: range(1, 65).map(origin), turns: ["t1"] }],
      ["65 turns", { origins: [origin(1)], turns: range(1, 65).map((n) => `t${n}`) }],
      ["a 1025-byte turn id", { origins: [origin(1)], turns: ["t1", "x".repeat(1025)] }],
      ["a 1025-byte current_turn_id", { origins: [origin(1)], turns: ["t1"], current_turn_id: "x".repeat(1025) }],
      ["a 1025-byte origin", { origins: [origin(1), { ...origin(2), uri: "x".repeat(1025 - 6) }], turns: ["t1"] }],
      ["a blank connector_id", { origins: [origin(1), { ...origin(2), connector_id: "  " }], turns: ["t1"] }],
      ['origins: "x"', { origins: "x", turns: ["t1"] }],
      ["a missing turns key", { origins: [origin(1)] }],
      ["a non-boolean ambiguous_account", { origins: [{ ...origin(1), ambiguous_account: "yes" }], turns: [] }],
      ["a null turn_id", { origins: [{ ...origin(1), turn_id: null }], turns: [] }],
      ["not an object", "x"]
    ]
    for (const [name, input] of cases) {
      it(`restoring a checkpoint with ${name} gives the empty state`, () => {
        const result = OriginState.restore(input)
        assert.isTrue(result.discarded)
        assert.isString(result.reason)
        assert.deepStrictEqual(result.state, OriginState.empty)
        notFound(result.state, "c1")
        assert.isTrue(Option.isNone(OriginState.checkpoint(result.state)))
      })
    }

    it("64 origins, 64 turns and 1024-byte ids are accepted", () => {
      const turns = [...range(1, 63).map((n) => `t${n}`), "x".repeat(1024)]
      const result = OriginState.restore({
        origins: [...range(1, 63).map(origin), { ...origin(64), uri: "x".repeat(1024 - 7) }],
        turns,
        current_turn_id: "x".repeat(1024)
      })
      assert.isFalse(result.discarded)
      assert.strictEqual(result.state.origins.length, 64)
      assert.strictEqual(result.state.turns.length, 64)
    })
  })

  it("O-20: restore accepts duplicate call ids and origin turns that are not in turns, as given", () => {
    const input = {
      origins: [
        { call_id: "c1", turn_id: "t1", tool: "t", connector_id: "k", uri: "ui://a" },
        { call_id: "c1", turn_id: "t9", tool: "t", connector_id: "k", link_id: "  ", uri: "  " }
      ],
      turns: ["t1"],
      current_turn_id: "t1"
    }
    const result = OriginState.restore(input)
    assert.isFalse(result.discarded)
    assert.strictEqual(result.state.origins.length, 2)
    // find returns the newest of the duplicates
    assert.strictEqual(found(result.state, "c1").turnId, "t9")
    assert.deepStrictEqual(Option.getOrThrow(OriginState.checkpoint(result.state)), input)
  })

  it("a restore replaces the previous state wholesale", () => {
    const live = run([turn("t1"), item("c1")])
    const cp = Option.getOrThrow(OriginState.checkpoint(run([turn("t2"), item("c2", { turnId: "t2" })])))
    const restored = OriginState.restore(cp).state
    assert.notDeepEqual(restored, live)
    assert.deepStrictEqual(callIds(restored), ["c2"])
    assert.deepStrictEqual(restored.turns, ["t2"])
  })

  it("O-21: loading records with a compaction gives the live state", () => {
    const before = [turn("t1"), item("c1")]
    const after = [turn("t2"), item("c2", { turnId: "t2" }), rollback(1)]
    const live = run([...before, ...after])
    const records = [...before, compacted(Option.getOrThrow(OriginState.checkpoint(run(before)))), ...after]
    const loaded = OriginState.rebuild(records, options)
    found(loaded, "c1")
    notFound(loaded, "c2")
    assert.strictEqual(loaded.currentTurnId, "t1")
    assert.deepStrictEqual(loaded, live)
  })

  it("O-22: a rollback past the compaction's turns clears the loaded state", () => {
    const records = [
      compacted({
        origins: [{ call_id: "c1", turn_id: "t1", tool: "t", connector_id: "k", uri: "ui://w" }],
        turns: ["t1"]
      }),
      turn("t2"),
      rollback(2)
    ]
    const loaded = OriginState.rebuild(records, options)
    assert.strictEqual(loaded.origins.length, 0)
    assert.isTrue(Option.isNone(OriginState.checkpoint(loaded)))
  })

  it("O-23: a compaction without a checkpoint starts from the empty state", () => {
    const records = [turn("t1"), item("c1"), compacted(), turn("t5"), item("c5", { turnId: "t5" })]
    const loaded = OriginState.rebuild(records, options)
    assert.deepStrictEqual(callIds(loaded), ["c5"])
    assert.deepStrictEqual(loaded.turns, ["t5"])
  })

  it("loading uses only the newest compaction, and no compaction means replaying from empty", () => {
    const first = Option.getOrThrow(OriginState.checkpoint(run([turn("t1"), item("c1")])))
    const second = Option.getOrThrow(OriginState.checkpoint(run([turn("t2"), item("c2", { turnId: "t2" })])))
    assert.deepStrictEqual(callIds(OriginState.rebuild([compacted(first), compacted(second)], options)), ["c2"])
    const events = [turn("t1"), item("c1"), turn("t2")]
    assert.deepStrictEqual(OriginState.rebuild(events, options), run(events))
  })

  it("loading a compaction whose checkpoint does not decode starts from empty and reports the discard", () => {
    const result = OriginState.replay([compacted({ origins: "x", turns: [] }), turn("t1"), item("c1")], options)
    assert.deepStrictEqual(callIds(result.state), ["c1"])
    assert.isTrue(result.restored?.discarded)
  })

  it("O-24: a successful toolCallEnded is remembered with the current turn", () => {
    const state = run([turn("t1"), turn("t2"), ended("c7")])
    assert.strictEqual(found(state, "c7").turnId, "t2")
    assert.isFalse("turnId" in found(run([ended("c8")]), "c8"))
  })

  it("O-25: a toolCallEnded that failed or returned isError is not remembered", () => {
    notFound(run([turn("t1"), ended("c7", { ok: false })]), "c7")
    notFound(run([turn("t1"), ended("c7", { isError: true })]), "c7")
    found(run([turn("t1"), ended("c7", { isError: false })]), "c7")
  })

  it("O-26: a toolCallEnded after the completed item replaces it with the current turn and moves it last", () => {
    const state = run([turn("t1"), item("c1"), item("c2"), turn("t2"), ended("c1")])
    assert.deepStrictEqual(callIds(state), ["c2", "c1"])
    assert.strictEqual(found(state, "c1").turnId, "t2")
  })
})
