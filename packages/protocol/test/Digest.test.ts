/** The digest of a resource body: SHA-256 hex and byte size, per content item and whole. */
import { assert, describe, it } from "@effect/vitest"
import { createHash } from "node:crypto"
import { Digest } from "../src/index.js"

const sha = (bytes: Uint8Array | string) => createHash("sha256").update(bytes).digest("hex")

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

describe("Digest per content item", () => {
  it("a text is measured by its UTF-8 bytes, a blob by its decoded bytes, one entry per content item", () => {
    const text = "héllo 😀\r\n"
    const blob = Buffer.from([0, 255, 1, 2])
    assert.deepStrictEqual(Digest.ofText(text), { digest: sha(Buffer.from(text, "utf8")), size: 13 })
    assert.deepStrictEqual(
      Digest.ofContents([
        { uri: "a://t", text },
        { uri: "a://b", mimeType: "application/octet-stream", blob: blob.toString("base64") }
      ]).items,
      [
        { digest: sha(Buffer.from(text, "utf8")), size: 13 },
        { digest: sha(blob), size: 4 }
      ]
    )
    assert.deepStrictEqual(Digest.ofBytes(new Uint8Array()), { digest: sha(""), size: 0 })
  })
})
