/** Body digests: SHA-256 (hex) and size of a text's UTF-8 bytes and of a blob's decoded bytes. */
import { createHash } from "node:crypto"
import { assert, describe, it } from "@effect/vitest"
import * as Digest from "../src/Digest.js"

const sha = (bytes: Uint8Array | string) => createHash("sha256").update(bytes).digest("hex")

describe("Digest", () => {
  it("a text is measured by its UTF-8 bytes, a blob by its decoded bytes, one entry per content item", () => {
    const text = "héllo 😀\r\n"
    const blob = Buffer.from([0, 255, 1, 2])
    assert.deepStrictEqual(Digest.ofText(text), { digest: sha(Buffer.from(text, "utf8")), size: 13 })
    assert.deepStrictEqual(
      Digest.ofContents([
        { uri: "a://t", text },
        { uri: "a://b", mimeType: "application/octet-stream", blob: blob.toString("base64") }
      ]),
      [
        { digest: sha(Buffer.from(text, "utf8")), size: 13 },
        { digest: sha(blob), size: 4 }
      ]
    )
    assert.deepStrictEqual(Digest.ofBytes(new Uint8Array()), { digest: sha(""), size: 0 })
  })
})
