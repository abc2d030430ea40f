/** The digest of a resource body: SHA-256 hex and byte size, per content item and whole. */
import { assert, describe, it } from "@effect/vitest"
import { Digest } from "../src/index.js"

const abc = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"

describe("Digest", () => {
  it("a text's digest is the SHA-256 of its UTF-8 bytes, its size their count", () => {
    assert.deepStrictEqual(Digest.ofText("abc"), { digest: abc, size: 3 })
    assert.strictEqual(Digest.ofText("é€").size, 5)
  })

  it("a blob's digest is that of its decoded bytes; one item's whole is the item's", () => {
    const blob = { uri: "x://b", blob: Buffer.from("abc").toString("base64") }
    assert.deepStrictEqual(Digest.ofContents([blob]), { digest: abc, size: 3, items: [{ digest: abc, size: 3 }] })
  })

  it("several items: sizes summed, the whole digest changes when any item does", () => {
    const a = { uri: "x://a", text: "abc" }
    const whole = Digest.ofContents([a, { uri: "x://b", text: "de" }])
    assert.strictEqual(whole.size, 5)
    assert.deepStrictEqual(whole.items, [Digest.ofText("abc"), Digest.ofText("de")])
    assert.notStrictEqual(Digest.ofContents([a, { uri: "x://b", text: "df" }]).digest, whole.digest)
  })
})
