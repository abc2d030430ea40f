/**
 * The content pipeline (Content.ts) at its own seam: each profile's entry turns MCP content into the
 * model's text and items under a budget given as an input, and the kept form of a read held for
 * windows keeps large texts as their UTF-8 bytes only.
 */
import { assert, describe, it } from "@effect/vitest"
import type { Mcp } from "@mcp-resources/protocol"
import { Either } from "effect"
import { Content, Profile, Truncation } from "../src/index.js"
import * as Payloads from "../src/internal/payloads.js"

const bytes = (limit: number): Content.Budget => ({ truncation: { mode: "bytes", limit }, maxImageBytes: 1024 })
const large = (n: number) => "line é ✓ 😀 text\n".repeat(n)
const read = (text: string): Mcp.ReadResourceResult => ({ contents: [{ uri: "x://t", mimeType: "text/plain", text }] })
// a 1×1 PNG
const png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="

describe("the content pipeline", () => {
  it("each profile selects its entry", () => {
    assert.strictEqual(Profile.codex.content, Content.codex)
    assert.strictEqual(Profile.extended.content, Content.extended)
  })

  it("codex: a read is its payload's JSON text, middle-truncated under the budget given", () => {
    const result = read(large(200))
    for (const limit of [100, 1000, 100_000]) {
      const rendered = Content.codex.read(bytes(limit), "srv", "x://t", result)
      assert.isTrue(Either.isRight(rendered))
      const text = Either.isRight(rendered) ? rendered.right.text : ""
      assert.strictEqual(
        text,
        Truncation.truncateOutput(Payloads.read("srv", "x://t", result), { mode: "bytes", limit })
      )
      assert.deepStrictEqual(Content.codex.outcome({ text, images: [] }, false).output, text)
    }
  })

  it("extended: the budget decides between the whole text and a window", () => {
    const text = large(400)
    const result = read(text)
    const whole = Content.extended.read(bytes(100_000), "srv", "x://t", result)
    assert.isTrue(Either.isRight(whole) && whole.right.windowed === undefined)
    assert.include(Either.isRight(whole) ? whole.right.text : "", text)
    const window = Content.extended.read(bytes(2000), "srv", "x://t", result)
    assert.isTrue(Either.isRight(window) && window.right.windowed === true)
    const shown = Either.isRight(window) ? window.right.text : ""
    assert.isAtMost(Buffer.byteLength(shown), Content.budgetBytes({ mode: "bytes", limit: 2000 }))
    assert.match(shown, /\[window: bytes 0-\d+ of \d+; to continue, call read_mcp_resource with offset \d+\]$/)
    // a window asked for past the end is refused
    const past = Content.extended.read(bytes(2000), "srv", "x://t", result, { offset: Buffer.byteLength(text) + 1 })
    assert.isTrue(Either.isLeft(past))
  })

  it("extended: an image within max_image_bytes is an image item, over it it is described", () => {
    const result: Mcp.CallToolResult = { content: [{ type: "image", mimeType: "image/png", data: png }] }
    const sent = Content.extended.toolResult(bytes(10_000), "srv", result)
    assert.deepStrictEqual(sent.contentItems?.[1], { type: "image", mimeType: "image/png", data: png })
    assert.include(sent.output, "sent as image part 1")
    const described = Content.extended.toolResult({ ...bytes(10_000), maxImageBytes: 10 }, "srv", {
      content: [{ type: "image", mimeType: "image/png", data: png }]
    })
    assert.strictEqual(described.contentItems?.length, 1)
    assert.include(described.output, "over max_image_bytes (10), bytes not sent")
    // codex shows the same result as its JSON text
    assert.strictEqual(Content.codex.toolResult(bytes(10_000), "srv", result).output, JSON.stringify(result))
  })
})

describe("the kept form of a read held for windows", () => {
  it("keeps a large text as its UTF-8 bytes only; its JSON and text read the same", () => {
    const text = large(Content.bytesFormMinLength)
    const result = read(text)
    const { value, size } = Content.keptRead(result)
    assert.notStrictEqual(value, result)
    assert.strictEqual(JSON.stringify(value), JSON.stringify(result))
    const item = value.contents[0]!
    const kept = Content.textBytesOf(item)
    assert.strictEqual(kept?.toString("utf8"), text)
    // what the value holds: the body's bytes and the JSON of the rest
    const rest = Buffer.byteLength(JSON.stringify(read("")))
    assert.strictEqual(size, Buffer.byteLength(text) + rest)
    // the windows render from those bytes: the part's bytes are the kept ones
    const part = Content.contentsPart(item, { maxImageBytes: 0 })
    assert.strictEqual(Either.isRight(part) && part.right._tag === "text" ? part.right.bytes() : undefined, kept)
  })

  it("leaves a small text as it came, counted by its JSON", () => {
    const result = read("small é")
    const { value, size } = Content.keptRead(result)
    assert.strictEqual(value, result)
    assert.isUndefined(Content.textBytesOf(value.contents[0]!))
    assert.strictEqual(size, Buffer.byteLength(JSON.stringify(result)))
  })
})

describe("what a content object keeps of itself", () => {
  it("a blob is decided once per content object; what it keeps is invisible to JSON, keys and copies", () => {
    const item = { uri: "x://b", mimeType: "text/plain", blob: Buffer.from("héllo").toString("base64") }
    const json = JSON.stringify(item)
    const first = Content.blobPart(item, item.blob, item.mimeType, { maxImageBytes: 0 })
    const again = Content.blobPart(item, item.blob, item.mimeType, { maxImageBytes: 0 })
    assert.isTrue(Either.isRight(first) && Either.isRight(again) && first.right === again.right)
    // another object with the same blob decides for itself
    const other = { ...item }
    const third = Content.blobPart(other, other.blob, other.mimeType, { maxImageBytes: 0 })
    assert.isTrue(Either.isRight(first) && Either.isRight(third) && first.right !== third.right)
    assert.strictEqual(JSON.stringify(item), json)
    assert.deepStrictEqual(Object.keys(item), ["uri", "mimeType", "blob"])
    assert.deepStrictEqual(other, item)
    // a frozen content object keeps nothing and still gets its part
    const frozen = Object.freeze({ ...item })
    const part = Content.blobPart(frozen, frozen.blob, frozen.mimeType, { maxImageBytes: 0 })
    assert.isTrue(Either.isRight(part) && part.right._tag === "text" && part.right.text === "héllo")
  })

  it("a text content's UTF-8 bytes are built once", () => {
    const item = { uri: "x://t", text: "é ✓" }
    const part = Content.textPart(item, item.text)
    assert.strictEqual(part.bytes(), Content.textPart(item, item.text).bytes())
    assert.strictEqual(part.bytes().toString("utf8"), "é ✓")
    assert.isUndefined(Content.textBytesOf(item))
  })
})
