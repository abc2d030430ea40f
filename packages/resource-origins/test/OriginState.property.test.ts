import { assert, describe, it } from "@effect/vitest"
import type { ThreadEvent } from "@mcp-resources/protocol"
import * as fc from "fast-check"
import { Option } from "effect"
import * as OriginState from "../src/OriginState.js"
import { apps, options } from "./utils/events.js"

/** A step of a generated thread: a recorded event, or a compaction taken of the live state at that point. */
type Step = ThreadEvent.ThreadEvent | { readonly _tag: "compact" }

const optional = <A>(arb: fc.Arbitrary<A>) => fc.option(arb, { nil: undefined, freq: 4 })

const turnId = fc.oneof(
  { weight: 8, arbitrary: fc.integer({ min: 1, max: 40 }).map((n) => `t${n}`) },
  { weight: 1, arbitrary: fc.constantFrom("x".repeat(1024), "x".repeat(1025), "é".repeat(513)) },
  { weight: 1, arbitrary: fc.string({ unit: "grapheme", maxLength: 4 }) }
)
const callId = fc.integer({ min: 0, max: 90 }).map((n) => `c${n}`)
const server = fc.oneof(
  { weight: 6, arbitrary: fc.constant(apps) },
  { weight: 1, arbitrary: fc.constantFrom("srv", "codex") }
)
const connectorId = fc.oneof(
  { weight: 6, arbitrary: fc.constant("k") },
  { weight: 1, arbitrary: fc.constantFrom("  ", "", " k ") },
  { weight: 1, arbitrary: fc.constant(undefined) }
)
const linkId = fc.constantFrom(undefined, "L1", "L2", "  ")
const uri = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom("ui://w", "ui://v", "") },
  { weight: 1, arbitrary: fc.integer({ min: 990, max: 1030 }).map((n) => `ui://${"x".repeat(n)}`) },
  { weight: 1, arbitrary: fc.integer({ min: 490, max: 520 }).map((n) => `ui://${"é".repeat(n)}`) },
  { weight: 1, arbitrary: fc.constant(undefined) }
)
const args = fc.constantFrom<unknown>(null, { link_id: "L1" }, { link_id: "L3" }, { link_id: 5 }, { link_id: "  " }, [
  "x"
])
const status = fc.oneof(
  { weight: 6, arbitrary: fc.constant("completed" as const) },
  { weight: 1, arbitrary: fc.constantFrom("failed" as const, "inProgress" as const) }
)
const tag = fc.oneof(
  { weight: 6, arbitrary: fc.constant("itemCompleted" as const) },
  { weight: 1, arbitrary: fc.constant("itemStarted" as const) }
)

const itemCompleted: fc.Arbitrary<ThreadEvent.ThreadEvent> = fc
  .record({ turnId, callId, server, connectorId, linkId, uri, args, status, tag })
  .map((r) => ({
    _tag: r.tag,
    turnId: r.turnId,
    item: {
      type: "mcpToolCall" as const,
      id: r.callId,
      server: r.server,
      tool: "t",
      arguments: r.args,
      status: r.status,
      result: null,
      error: null,
      durationMs: null,
      ...(r.connectorId !== undefined ? { connectorId: r.connectorId } : {}),
      ...(r.linkId !== undefined ? { linkId: r.linkId } : {}),
      ...(r.uri !== undefined ? { mcpAppResourceUri: r.uri } : {})
    }
  }))

const toolCallEnded: fc.Arbitrary<ThreadEvent.ThreadEvent> = fc
  .record({
    callId,
    server,
    connectorId,
    linkId,
    uri,
    args: optional(args),
    ok: fc.boolean(),
    isError: optional(fc.boolean())
  })
  .map((r) => ({
    _tag: "toolCallEnded" as const,
    callId: r.callId,
    server: r.server,
    tool: "t",
    arguments: r.args,
    ...(r.connectorId !== undefined ? { connectorId: r.connectorId } : {}),
    ...(r.linkId !== undefined ? { linkId: r.linkId } : {}),
    ...(r.uri !== undefined ? { mcpAppResourceUri: r.uri } : {}),
    ok: r.ok,
    ...(r.isError !== undefined ? { isError: r.isError } : {})
  }))

const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 3, arbitrary: turnId.map((id): Step => ({ _tag: "turnStarted", turnId: id })) },
  { weight: 20, arbitrary: itemCompleted },
  { weight: 2, arbitrary: toolCallEnded },
  {
    weight: 1,
    arbitrary: fc
      .oneof(
        { weight: 20, arbitrary: fc.integer({ min: 0, max: 3 }) },
        { weight: 1, arbitrary: fc.integer({ min: 0, max: 80 }) }
      )
      .map((n): Step => ({ _tag: "threadRolledBack", numTurns: n }))
  },
  { weight: 1, arbitrary: fc.constant<Step>({ _tag: "compact" }) }
)
/** Many successful calls in a row, so that runs do reach the 64-origin bound. */
const burst: fc.Arbitrary<ReadonlyArray<Step>> = fc
  .record({ start: fc.integer({ min: 0, max: 90 }), count: fc.integer({ min: 50, max: 80 }), turnId })
  .map(({ start, count, turnId }) =>
    Array.from({ length: count }, (_, i) => ({
      _tag: "itemCompleted" as const,
      turnId,
      item: {
        type: "mcpToolCall" as const,
        id: `c${start + i}`,
        server: apps,
        tool: "t",
        arguments: null,
        status: "completed" as const,
        result: null,
        error: null,
        durationMs: null,
        connectorId: "k",
        mcpAppResourceUri: "ui://w"
      }
    }))
  )
const steps = fc
  .array(fc.oneof({ weight: 40, arbitrary: step.map((s) => [s]) }, { weight: 1, arbitrary: burst }), {
    maxLength: 150,
    size: "max"
  })
  .map((chunks) => chunks.flat())

const apply = (state: OriginState.State, event: ThreadEvent.ThreadEvent) => OriginState.apply(state, event, options)

/** Runs the steps live and returns the live state and the records a thread store would hold. */
const record = (generated: ReadonlyArray<Step>) => {
  let live = OriginState.empty
  const records: Array<ThreadEvent.ThreadEvent> = []
  const states: Array<OriginState.State> = []
  for (const s of generated) {
    if (s._tag === "compact") {
      const checkpoint = OriginState.checkpoint(live)
      records.push({
        _tag: "compacted",
        state: Option.isSome(checkpoint) ? { mcp_resource_origins: checkpoint.value } : {}
      })
    } else {
      records.push(s)
      live = apply(live, s)
    }
    states.push(live)
  }
  return { live, records, states }
}

/** The first broken bound of a state, if any (plain checks: this runs for every state of every run). */
const violation = (state: OriginState.State): string | undefined => {
  if (state.origins.length > 64) return `${state.origins.length} origins`
  if (state.turns.length > 64) return `${state.turns.length} turns`
  const ids = new Set<string>()
  for (const origin of state.origins) {
    if (OriginState.originSize(origin) > 1024) return `origin ${origin.callId} over 1024 bytes`
    if (origin.connectorId.trim() === "") return `origin ${origin.callId} with a blank connector`
    if (ids.has(origin.callId)) return `two origins ${origin.callId}`
    ids.add(origin.callId)
  }
  for (const t of state.turns) if (OriginState.byteLength(t) > 1024) return "a turn id over 1024 bytes"
  return undefined
}

const params = { numRuns: 100 }

describe("OriginState properties", () => {
  it("the store never holds more than 64 origins or turns, an origin over 1024 bytes, or a blank connector", () => {
    let mostOrigins = 0
    let mostTurns = 0
    fc.assert(
      fc.property(steps, (generated) => {
        for (const state of record(generated).states) {
          mostOrigins = Math.max(mostOrigins, state.origins.length)
          mostTurns = Math.max(mostTurns, state.turns.length)
          const problem = violation(state)
          if (problem !== undefined) assert.fail(problem)
        }
      }),
      params
    )
    // The generator does reach the bounds, so the property is not vacuous.
    assert.strictEqual(mostOrigins, 64)
    assert.isAtLeast(mostTurns, 5)
  })

  it("restore(checkpoint(s)) reproduces s, also through JSON; no checkpoint means no origins", () => {
    fc.assert(
      fc.property(steps, (generated) => {
        const { states } = record(generated)
        // Every 8th state and the last one: deep comparisons of 64 origins are the slow part.
        for (const state of states.filter((_, i) => i % 8 === 0 || i === states.length - 1)) {
          const checkpoint = OriginState.checkpoint(state)
          if (Option.isNone(checkpoint)) {
            assert.strictEqual(state.origins.length, 0)
            continue
          }
          const restored = OriginState.restore(checkpoint.value)
          assert.isFalse(restored.discarded)
          assert.deepStrictEqual(restored.state, state)
          assert.deepStrictEqual(OriginState.restore(JSON.parse(JSON.stringify(checkpoint.value))).state, state)
        }
      }),
      params
    )
  })

  it("rebuilding from the newest checkpoint and the later records equals the live state", () => {
    fc.assert(
      fc.property(steps, (generated) => {
        const { live, records } = record(generated)
        let last = -1
        records.forEach((r, i) => {
          if (r._tag === "compacted") last = i
        })
        const newest = records[last]
        const rebuilt = OriginState.rebuild(records, options)
        if (newest === undefined || (newest._tag === "compacted" && newest.state.mcp_resource_origins !== undefined)) {
          assert.deepStrictEqual(rebuilt, live)
        } else {
          // A compaction without a checkpoint forgets the turns known before it (section 7).
          assert.deepStrictEqual(rebuilt, records.slice(last + 1).reduce(apply, OriginState.empty))
        }
      }),
      params
    )
  })

  it("a replayer fed every record from the first, one at a time, gives replay's result at every prefix", () => {
    fc.assert(
      fc.property(steps, (generated) => {
        const { records } = record(generated)
        const r = OriginState.replayer(options)
        let earlier: { readonly result: OriginState.ReplayResult; readonly at: number } | undefined
        records.forEach((event, i) => {
          r.add(event)
          // Every 8th prefix and the last: a whole replay per prefix is the slow part.
          if (i % 8 !== 0 && i !== records.length - 1) return
          const result = r.result()
          assert.deepStrictEqual(result, OriginState.replay(records.slice(0, i + 1), options))
          // A result handed out earlier is not changed by the records added since.
          if (earlier !== undefined)
            assert.deepStrictEqual(earlier.result, OriginState.replay(records.slice(0, earlier.at + 1), options))
          earlier = { result, at: i }
        })
      }),
      params
    )
  })
})

describe("byteLength", () => {
  it("equals the length of TextEncoder's UTF-8 encoding for any string, lone surrogates included", () => {
    const encoder = new TextEncoder()
    fc.assert(
      fc.property(fc.string({ unit: "binary" }), (s) => {
        assert.strictEqual(OriginState.byteLength(s), encoder.encode(s).length)
      }),
      { numRuns: 500 }
    )
    for (const s of ["\ud800", "\udc00x", "a\ud83d\ude00b", "\ud83d"]) {
      assert.strictEqual(OriginState.byteLength(s), encoder.encode(s).length)
    }
  })
})
