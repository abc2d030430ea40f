import { assert, describe, it } from "@effect/vitest"
import { Mcp } from "@mcp-resources/protocol"
import { Arbitrary, Either, FastCheck as fc, Schema } from "effect"
import { readResult as fastReadResult } from "../src/internal/fastPaths.js"

const schemaDecode = Schema.decodeUnknownEither(Mcp.ReadResourceResult)

/** Keys in order at every level, and the values: what the fast path must reproduce exactly. */
const shape = (u: unknown): unknown =>
  Array.isArray(u)
    ? u.map(shape)
    : typeof u === "object" && u !== null
      ? Object.keys(u).map((key) => [key, shape((u as Record<string, unknown>)[key])])
      : u

/** The fast path either defers, or gives what the schema gives (same keys, same order, same values). */
const agrees = (raw: unknown): void => {
  const fast = fastReadResult(raw)
  if (fast === undefined) return
  const slow = schemaDecode(raw)
  assert.isTrue(Either.isRight(slow), `the schema refuses what the fast path accepts: ${JSON.stringify(raw)}`)
  if (Either.isRight(slow)) assert.deepStrictEqual(shape(fast), shape(slow.right))
}

const field = fc.oneof(
  fc.string(),
  fc.integer(),
  fc.double(),
  fc.constant(undefined),
  fc.constant(null),
  fc.constant([]),
  fc.dictionary(fc.string(), fc.jsonValue())
)
const item = fc.record(
  { uri: field, mimeType: field, text: field, blob: field, _meta: field, extra: field },
  { requiredKeys: [] }
)
const loose = fc.record(
  {
    extra: field,
    resultType: field,
    ttlMs: field,
    cacheScope: field,
    contents: fc.oneof(fc.array(item), field),
    _meta: field
  },
  { requiredKeys: [] }
)

describe("fast read result decoding", () => {
  it("gives exactly the schema's result on valid results", () => {
    fc.assert(fc.property(Arbitrary.make(Mcp.ReadResourceResult), agrees), { numRuns: 500 })
  })

  it("gives exactly the schema's result, or defers, on any object", () => {
    fc.assert(fc.property(loose, agrees), { numRuns: 2000 })
  })

  it("takes the common text result, keeping the schema's field order", () => {
    const raw = {
      _meta: { a: 1 },
      extra: true,
      contents: [{ text: "hi", extra: 1, mimeType: "text/plain", uri: "memo://a" }],
      ttlMs: 0,
      resultType: "complete"
    }
    const fast = fastReadResult(raw)
    assert.deepStrictEqual(shape(fast), [
      ["resultType", "complete"],
      ["ttlMs", 0],
      [
        "contents",
        [
          [
            ["uri", "memo://a"],
            ["mimeType", "text/plain"],
            ["text", "hi"]
          ]
        ]
      ],
      ["_meta", [["a", 1]]]
    ])
    agrees(raw)
  })

  it("defers blob items, negative ttlMs and undefined optional fields to the schema", () => {
    assert.isUndefined(fastReadResult({ contents: [{ uri: "u", blob: "AA==" }] }))
    assert.isUndefined(fastReadResult({ contents: [], ttlMs: -1 }))
    assert.isUndefined(fastReadResult({ contents: [{ uri: "u", text: "t", mimeType: undefined }] }))
    assert.isUndefined(fastReadResult({ contents: [{ uri: "u", text: "t" }], _meta: [] }))
  })
})
