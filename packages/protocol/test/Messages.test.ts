import { assert, describe, it } from "@effect/vitest"
import { FastCheck as fc } from "effect"
import * as Mcp from "../src/Mcp.js"
import * as Messages from "../src/Messages.js"

describe("Messages", () => {
  it("formatDuration renders whole seconds as {n}s and anything else as {n}ms", () => {
    assert.deepStrictEqual([300_000, 30_000, 10_000, 500, 1_500].map(Messages.formatDuration), [
      "300s",
      "30s",
      "10s",
      "500ms",
      "1500ms"
    ])
  })

  it("P-16: the per-request timeout message", () => {
    assert.strictEqual(Messages.timedOutAwaiting("resources/read", 1000), "timed out awaiting resources/read after 1s")
    assert.strictEqual(
      Messages.pagination.timedOut("resources/list", 30_000),
      "resources/list pagination timed out after 30s"
    )
  })

  it("jsonKind names the JSON kind of a value", () => {
    assert.deepStrictEqual([null, true, 1, "s", [], {}].map(Messages.jsonKind), [
      "null",
      "boolean",
      "number",
      "string",
      "array",
      "object"
    ])
  })
})

describe("Mcp.isBase64", () => {
  it("accepts padded and unpadded base64 and refuses other text", () => {
    for (const ok of ["", "AA==", "AAE=", "AAE", "AAEC", "AAECAw", "+/+/", "SGVsbG8sIHdvcmxk"]) {
      assert.isTrue(Mcp.isBase64(ok), ok)
    }
    for (const bad of ["not base64!", "A", "AAAAA", "AA=A", "AA===", "A=", "A A=", "AA\n=="]) {
      assert.isFalse(Mcp.isBase64(bad), bad)
    }
  })

  /** The definition, as a regular expression and the length rules. */
  const reference = (s: string): boolean => {
    const match = /^([A-Za-z0-9+/]*)(={0,2})$/.exec(s)
    if (match === null) return false
    const body = match[1]!.length
    return match[2]!.length > 0 ? s.length % 4 === 0 : body % 4 !== 1
  }
  // URL-safe characters, white space, non-ASCII text and padding anywhere
  const piece = fc.constantFrom(..."AQz09+/=-_ *\n\t\u00e9\u4e00".split(""), "\ud83d\ude00", "\ud83d", "AAAA")

  it("agrees with the definition on short text and on long text (the native decoder's path)", () => {
    // a valid prefix of a multiple of four characters keeps the verdict and takes the long path
    const prefix = "QUJD".repeat(100)
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 16 }), (pieces) => {
        const s = pieces.join("")
        assert.strictEqual(Mcp.isBase64(s), reference(s), JSON.stringify(s))
        assert.strictEqual(Mcp.isBase64(prefix + s), reference(s), `long: ${JSON.stringify(s)}`)
        assert.strictEqual(Mcp.isBase64(s + prefix), reference(s + prefix), `suffix: ${JSON.stringify(s)}`)
      }),
      { numRuns: 20000 }
    )
  })

  it("accepts a 1 MiB blob and refuses it with one character changed", () => {
    const bytes = Buffer.alloc(1024 * 1024, 7)
    const blob = bytes.toString("base64")
    assert.isTrue(Mcp.isBase64(blob))
    for (const bad of ["-", "_", " ", "=", "*", "\u00e9"]) {
      assert.isFalse(Mcp.isBase64(`${blob.slice(0, 1000)}${bad}${blob.slice(1001)}`), JSON.stringify(bad))
    }
  })
})
