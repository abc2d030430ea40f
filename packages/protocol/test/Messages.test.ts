import { assert, describe, it } from "@effect/vitest"
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
})
