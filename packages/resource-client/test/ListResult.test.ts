import { assert, describe, it } from "@effect/vitest"
import { Mcp } from "@mcp-resources/protocol"
import { Arbitrary, Either, FastCheck as fc, Schema } from "effect"
import {
  resourcesPage as fastListResources,
  templatesPage as fastListResourceTemplates
} from "../src/internal/fastPaths.js"

const decodeResources = Schema.decodeUnknownEither(Mcp.ListResourcesResult)
const decodeTemplates = Schema.decodeUnknownEither(Mcp.ListResourceTemplatesResult)

/** Keys in order at every level, and the values: what the fast path must reproduce exactly. */
const shape = (u: unknown): unknown =>
  Array.isArray(u)
    ? u.map(shape)
    : typeof u === "object" && u !== null
      ? Object.keys(u).map((key) => [key, shape((u as Record<string, unknown>)[key])])
      : u

/** The fast path either defers, or gives what the schema gives (same keys, same order, same values). */
const agreesWith =
  (fast: (raw: unknown) => unknown, slow: (raw: unknown) => Either.Either<unknown, unknown>) =>
  (raw: unknown): void => {
    const decoded = fast(raw)
    if (decoded === undefined) return
    const expected = slow(raw)
    assert.isTrue(Either.isRight(expected), `the schema refuses what the fast path accepts: ${JSON.stringify(raw)}`)
    if (Either.isRight(expected)) assert.deepStrictEqual(shape(decoded), shape(expected.right))
  }
const resourcesAgree = agreesWith(fastListResources, decodeResources)
const templatesAgree = agreesWith(fastListResourceTemplates, decodeTemplates)

const field = fc.oneof(
  fc.string(),
  fc.integer(),
  fc.double(),
  fc.constant(undefined),
  fc.constant(null),
  fc.constant([]),
  fc.array(fc.jsonValue(), { maxLength: 3 }),
  fc.dictionary(fc.string(), fc.jsonValue())
)
const keys = ["uri", "uriTemplate", "name", "title", "description", "mimeType", "size", "icons", "_meta", "annotations"]
const item = fc.record(Object.fromEntries([...keys, "extra"].map((key) => [key, field])), { requiredKeys: [] })
const loose = (listKey: string) =>
  fc.record(
    { extra: field, [listKey]: fc.oneof(fc.array(item, { maxLength: 4 }), field), nextCursor: field },
    { requiredKeys: [] }
  )

describe("fast list result decoding", () => {
  it("gives exactly the schema's result on valid pages", () => {
    fc.assert(fc.property(Arbitrary.make(Mcp.ListResourcesResult), resourcesAgree), { numRuns: 300 })
    fc.assert(fc.property(Arbitrary.make(Mcp.ListResourceTemplatesResult), templatesAgree), { numRuns: 300 })
  })

  it("gives exactly the schema's result, or defers, on any object", () => {
    fc.assert(fc.property(loose("resources"), resourcesAgree), { numRuns: 2000 })
    fc.assert(fc.property(loose("resourceTemplates"), templatesAgree), { numRuns: 2000 })
  })

  it("takes the common page, keeping the schema's field order and dropping unknown fields", () => {
    const raw = {
      extra: 1,
      nextCursor: "next",
      resources: [{ size: 3, extra: true, name: "a", _meta: { k: 1 }, uri: "memo://a", icons: [{ src: "i" }] }]
    }
    const decoded = fastListResources(raw)
    assert.deepStrictEqual(shape(decoded), [
      [
        "resources",
        [
          [
            ["uri", "memo://a"],
            ["name", "a"],
            ["size", 3],
            ["icons", [[["src", "i"]]]],
            ["_meta", [["k", 1]]]
          ]
        ]
      ],
      ["nextCursor", "next"]
    ])
    // the icons array is a copy, as the schema's is
    assert.notStrictEqual(decoded?.resources[0]?.icons, raw.resources[0]?.icons)
    resourcesAgree(raw)
  })

  it("defers every mismatch to the schema, which names the failing path", () => {
    assert.isUndefined(fastListResources({ resources: [{ uri: "u" }] }))
    assert.isUndefined(fastListResources({ resources: [{ uri: "u", name: "n", size: "3" }] }))
    assert.isUndefined(fastListResources({ resources: [{ uri: "u", name: "n", title: undefined }] }))
    assert.isUndefined(fastListResources({ resources: [], nextCursor: 2 }))
    assert.isUndefined(
      fastListResourceTemplates({ resourceTemplates: [{ uriTemplate: "u/{x}", name: "n", _meta: [] }] })
    )
    assert.isUndefined(fastListResourceTemplates({ resources: [] }))
  })
})
