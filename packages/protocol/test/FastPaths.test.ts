/**
 * Every fast path of `src/internal/fastPaths.ts` against its plain version: where a fast encoder
 * answers, its answer is the schema's encoding, key order included; what it does not answer is left
 * to the schema. The entry builders give what encoding through their entry schemas gives.
 */
import { createHash } from "node:crypto"
import { assert, describe, it } from "@effect/vitest"
import { Arbitrary, Either, FastCheck, Schema } from "effect"
import * as AppServer from "../src/AppServer.js"
import {
  digestChunkUnits,
  encodeReadResult,
  resourceEntry,
  resourceTemplateEntry,
  sha256OfUtf8
} from "../src/internal/fastPaths.js"
import * as Mcp from "../src/Mcp.js"
import * as ToolPayload from "../src/ToolPayload.js"

/** Keys in order, all the way down: what JSON.stringify would write. */
const shape = (u: unknown): unknown =>
  Array.isArray(u)
    ? u.map(shape)
    : typeof u === "object" && u !== null
      ? Object.entries(u).map(([k, v]) => [k, shape(v)])
      : u

describe("encodeReadResult (the read result's fast encoder)", () => {
  const schema = AppServer.McpResourceReadResult
  const encode = Schema.encodeUnknownEither(schema)

  /** Where the fast encoder answers, its answer is the schema's encoding, key order included. */
  const agrees = (value: unknown) => {
    const fast = encodeReadResult(value)
    if (fast === undefined) return
    const slow = encode(value)
    assert.isTrue(Either.isRight(slow), `the schema refuses what the fast encoder encoded: ${JSON.stringify(value)}`)
    if (Either.isRight(slow)) assert.deepStrictEqual(shape(fast), shape(slow.right))
  }

  it("gives the schema's encoding of every valid result, key order included", () => {
    FastCheck.assert(FastCheck.property(Arbitrary.make(schema), agrees), { numRuns: 300 })
  })

  it("answers the common results itself: text and blob items, with and without mimeType and _meta", () => {
    const value = {
      contents: [
        { text: "hello", uri: "memo://a", mimeType: "text/plain" },
        { uri: "memo://b", blob: "AAAA", _meta: { k: 1 }, extra: true }
      ],
      originCallId: null,
      more: 1
    }
    const fast = encodeReadResult(value)
    assert.deepStrictEqual(shape(fast), [
      [
        "contents",
        [
          [
            ["uri", "memo://a"],
            ["mimeType", "text/plain"],
            ["text", "hello"]
          ],
          [
            ["uri", "memo://b"],
            ["blob", "AAAA"],
            ["_meta", [["k", 1]]]
          ]
        ]
      ],
      ["originCallId", null]
    ])
    agrees(value)
  })

  it("leaves anything unusual to the schema, and agrees with it wherever it answers", () => {
    const item = FastCheck.oneof(
      FastCheck.anything(),
      FastCheck.record(
        {
          uri: FastCheck.oneof(FastCheck.string(), FastCheck.integer()),
          mimeType: FastCheck.oneof(FastCheck.string(), FastCheck.constant(null)),
          text: FastCheck.oneof(FastCheck.string(), FastCheck.boolean()),
          blob: FastCheck.string(),
          _meta: FastCheck.oneof(FastCheck.object(), FastCheck.array(FastCheck.integer()), FastCheck.constant(null))
        },
        { requiredKeys: [] }
      )
    )
    const value = FastCheck.record(
      {
        contents: FastCheck.oneof(FastCheck.array(item, { maxLength: 3 }), FastCheck.anything()),
        originCallId: FastCheck.oneof(FastCheck.string(), FastCheck.constant(null), FastCheck.integer())
      },
      { requiredKeys: [] }
    )
    FastCheck.assert(FastCheck.property(FastCheck.oneof(value, FastCheck.anything()), agrees), { numRuns: 1000 })
    // refused by the schema, so never answered here
    for (const refused of [
      { contents: [{ uri: "u", text: 1 }], originCallId: null },
      { contents: [{ uri: "u", text: "t", _meta: [] }], originCallId: null },
      { contents: [], originCallId: 1 },
      { contents: [{ uri: "u" }], originCallId: null }
    ]) {
      assert.strictEqual(encodeReadResult(refused), undefined)
      assert.isTrue(Either.isLeft(encode(refused)))
    }
  })
})

describe("resourceEntry and resourceTemplateEntry (the list payloads' entry builders)", () => {
  const plainEntry = Schema.encodeSync(ToolPayload.ResourceEntry)
  const plainTemplateEntry = Schema.encodeSync(ToolPayload.ResourceTemplateEntry)
  /** Keys the schemas do not know, which neither version keeps. */
  const extra = FastCheck.dictionary(
    FastCheck.string().filter((key) => !(key in Mcp.Resource.fields) && !(key in Mcp.ResourceTemplate.fields)),
    FastCheck.jsonValue(),
    { maxKeys: 2 }
  )

  it("a resource entry is its schema's encoding, key order included, for every resource", () => {
    FastCheck.assert(
      FastCheck.property(FastCheck.string(), Arbitrary.make(Mcp.Resource), extra, (server, resource, more) => {
        const given = { ...more, ...resource }
        assert.deepStrictEqual(shape(resourceEntry(server, given)), shape(plainEntry({ server, ...given })))
      }),
      { numRuns: 500 }
    )
  })

  it("a template entry is its schema's encoding, key order included, for every template", () => {
    FastCheck.assert(
      FastCheck.property(FastCheck.string(), Arbitrary.make(Mcp.ResourceTemplate), extra, (server, template, more) => {
        const given = { ...more, ...template }
        assert.deepStrictEqual(
          shape(resourceTemplateEntry(server, given)),
          shape(plainTemplateEntry({ server, ...given }))
        )
      }),
      { numRuns: 500 }
    )
  })

  it("puts server first and every field in the schema's order, whatever the resource's own order", () => {
    const resource = Schema.decodeUnknownSync(Mcp.Resource)({
      annotations: { audience: ["user"] },
      size: 3,
      mimeType: "text/plain",
      name: "memo",
      uri: "memo://a",
      title: "Memo"
    })
    const fast = resourceEntry("s", resource)
    assert.deepStrictEqual(Object.keys(fast), Object.keys(plainEntry({ server: "s", ...resource })))
    assert.deepStrictEqual(Object.keys(fast), ["server", "uri", "name", "title", "mimeType", "size", "annotations"])
  })
})

describe("sha256OfUtf8 (a text's digest, hashed a piece at a time)", () => {
  const plain = (text: string) => createHash("sha256").update(Buffer.from(text, "utf8")).digest("hex")
  /** Any UTF-16 unit, surrogates (paired or lone) often. */
  const unit = FastCheck.oneof(
    FastCheck.integer({ min: 0, max: 0xffff }),
    FastCheck.integer({ min: 0xd800, max: 0xdfff }),
    FastCheck.constantFrom(0x61, 0xe9, 0x4e2d)
  ).map((code) => String.fromCharCode(code))
  const text = FastCheck.array(unit, { maxLength: 64 }).map((units) => units.join(""))

  it("gives the plain version's digest for any text and any piece size, lone surrogates included", () =>
    FastCheck.assert(
      FastCheck.property(text, FastCheck.integer({ min: 1, max: 9 }), (value, chunk) => {
        assert.strictEqual(sha256OfUtf8(value, chunk), plain(value))
      }),
      { numRuns: 2000 }
    ))

  it("at the default piece size: a pair across the first boundary, a lone surrogate on it", () => {
    const before = "a".repeat(digestChunkUnits - 1)
    for (const value of [
      `${before}\u{1F600}tail`,
      `${before}\ud83dtail`,
      `${before}x\udc00`,
      "\u00e9".repeat(digestChunkUnits + 3)
    ]) {
      assert.strictEqual(sha256OfUtf8(value), plain(value))
    }
  })
})
