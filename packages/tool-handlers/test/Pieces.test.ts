import { assert, describe, it } from "@effect/vitest"
import { Mcp, ToolPayload } from "@mcp-resources/protocol"
import { Arbitrary, FastCheck, Schema } from "effect"
import fc from "fast-check"
import { Truncation } from "../src/index.js"
import * as Payloads from "../src/internal/payloads.js"

const unit = fc.oneof(
  fc.constantFrom("a", "é", "€", "😀", "\ud83d", "\ude00", "\ud800", "\udc00", "\n", '"'),
  fc.string({ unit: "binary", minLength: 1, maxLength: 1 })
)
const text = fc.string({ unit, maxLength: 80 })
const policy = fc.record({ mode: fc.constantFrom("bytes" as const, "tokens" as const), limit: fc.nat({ max: 40 }) })

describe("truncatePieces", () => {
  it("is truncateText of the concatenation (pairs split across pieces included)", () => {
    fc.assert(
      fc.property(fc.array(text, { maxLength: 5 }), policy, (pieces, p) => {
        assert.strictEqual(Truncation.truncatePieces(pieces, p), Truncation.truncateText(pieces.join(""), p))
      }),
      { numRuns: 3000 }
    )
  })
})

const encoded = (server: string, uri: string, result: Mcp.ReadResourceResult) =>
  ToolPayload.toJsonText(ToolPayload.ReadPayload, ToolPayload.readPayload(server, uri, result))

describe("read payload pieces", () => {
  it("join to the schema-encoded payload", () => {
    const arbitrary = Arbitrary.make(Mcp.ReadResourceResult)
    // effect's own fast-check, which its Arbitrary is built for
    FastCheck.assert(
      FastCheck.property(FastCheck.string(), FastCheck.string(), arbitrary, (server, uri, result) => {
        const decoded = Schema.decodeUnknownSync(Mcp.ReadResourceResult)(result)
        assert.strictEqual(Payloads.read(server, uri, decoded), encoded(server, uri, decoded))
      }),
      { numRuns: 300 }
    )
  })

  it("keep a long unescaped text as its own piece and escape the others", () => {
    const plain = "x".repeat(5000)
    const quoted = `${"y".repeat(5000)}"\n`
    const result: Mcp.ReadResourceResult = {
      resultType: "complete",
      contents: [
        { uri: "a", mimeType: "text/plain", text: plain, _meta: { k: 1 } },
        { uri: "b", blob: "QUJD".repeat(2000) },
        { uri: "c", text: quoted }
      ],
      _meta: { m: [1, "two"] }
    }
    const pieces = Payloads.readPieces("srv", "a", result)
    assert.isTrue(pieces.includes(plain))
    assert.isFalse(pieces.includes(quoted))
    assert.strictEqual(pieces.join(""), encoded("srv", "a", result))
    for (const p of [
      { mode: "tokens" as const, limit: 100 },
      { mode: "bytes" as const, limit: 1000 }
    ]) {
      assert.strictEqual(Truncation.truncatePieces(pieces, p), Truncation.truncateText(pieces.join(""), p))
    }
  })
})
