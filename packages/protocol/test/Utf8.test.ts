import { assert, describe, it } from "@effect/vitest"
import fc from "fast-check"
import * as Records from "../src/Records.js"
import * as Utf8 from "../src/Utf8.js"

const encoder = new TextEncoder()

const compareBytes = (a: Uint8Array, b: Uint8Array): number => {
  for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) return a[i]! < b[i]! ? -1 : 1
  return a.length === b.length ? 0 : a.length < b.length ? -1 : 1
}

describe("Utf8", () => {
  it("byteLength is the length of TextEncoder's encoding, lone surrogates as 3 bytes", () => {
    assert.strictEqual(Utf8.byteLength("a\udc00\ud800\udc00é"), 10)
    fc.assert(fc.property(fc.string({ unit: "binary" }), (s) => Utf8.byteLength(s) === encoder.encode(s).length))
  })

  it("compareBytewise orders by UTF-8 bytes, not UTF-16 units", () => {
    // U+FF61 sorts after U+1F600 by UTF-16 units (0xFF61 > 0xD83D) but before it by bytes (EF < F0)
    assert.strictEqual(Utf8.compareBytewise("\uff61", "\u{1f600}"), -1)
    assert.ok("\uff61" > "\u{1f600}")
    fc.assert(
      fc.property(fc.string({ unit: "grapheme" }), fc.string({ unit: "grapheme" }), (a, b) => {
        const expected = compareBytes(encoder.encode(a), encoder.encode(b))
        return Math.sign(Utf8.compareBytewise(a, b)) === expected
      })
    )
  })
})

describe("Records.isRecord", () => {
  it("accepts objects that are not arrays, refuses null, arrays and primitives", () => {
    assert.isTrue(Records.isRecord({}))
    assert.isTrue(Records.isRecord(Object.create(null)))
    assert.isFalse(Records.isRecord(null))
    assert.isFalse(Records.isRecord([]))
    assert.isFalse(Records.isRecord("x"))
    assert.isFalse(Records.isRecord(undefined))
  })
})
