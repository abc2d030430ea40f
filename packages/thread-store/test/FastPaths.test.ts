/**
 * Every fast path of `src/internal/fastPaths.ts` against its plain version: where `storedEvent`
 * answers, its answer is what decoding the stored text through the schema gives; what it does not
 * answer is left to the schema.
 */
import { assert, describe, it } from "@effect/vitest"
import { ThreadEvent } from "@mcp-resources/protocol"
import { Arbitrary, Either, FastCheck as fc, Schema } from "effect"
import { storedEvent } from "../src/internal/fastPaths.js"

const EventJson = Schema.parseJson(ThreadEvent.ThreadEvent)
const encode = Schema.encodeSync(EventJson)
const decode = Schema.decodeUnknownEither(EventJson)

/** Where the fast path answers, the schema decodes the same text to the same event. */
const agrees = (text: string) => {
  const fast = storedEvent(text)
  if (fast === undefined) return
  const plain = decode(text)
  assert.isTrue(Either.isRight(plain), `the schema refuses what the fast path decoded: ${text}`)
  if (Either.isRight(plain)) assert.deepStrictEqual(fast, plain.right)
}

describe("storedEvent", () => {
  it("gives the schema's decoding of every stored event it answers", () => {
    fc.assert(
      fc.property(Arbitrary.make(ThreadEvent.ThreadEvent), (event) => agrees(encode(event))),
      { numRuns: 300 }
    )
  })

  it("answers the common kinds as our encoder writes them", () => {
    for (const event of [
      { _tag: "turnStarted", turnId: "t1" },
      { _tag: "threadRolledBack", numTurns: 2 }
    ] as const) {
      const text = encode(event as ThreadEvent.ThreadEvent)
      assert.deepStrictEqual(storedEvent(text), event)
      agrees(text)
    }
  })

  it("leaves anything unusual to the schema, and agrees with it wherever it answers", () => {
    const tag = fc.constantFrom("turnStarted", "itemStarted", "itemCompleted", "threadRolledBack", "other")
    const value = fc.record(
      {
        _tag: tag,
        turnId: fc.oneof(fc.string(), fc.integer()),
        numTurns: fc.oneof(fc.integer(), fc.double(), fc.string()),
        item: fc.oneof(fc.anything(), fc.object()),
        extra: fc.anything()
      },
      { requiredKeys: ["_tag"] }
    )
    fc.assert(
      fc.property(
        fc.oneof(
          value.map((v) => JSON.stringify(v)),
          fc.string()
        ),
        agrees
      ),
      { numRuns: 1000 }
    )
  })
})
