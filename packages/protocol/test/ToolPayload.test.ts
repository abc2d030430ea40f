import { assert, describe, it } from "@effect/vitest"
import { Arbitrary, FastCheck as fc, Schema } from "effect"
import * as Mcp from "../src/Mcp.js"
import * as ToolPayload from "../src/ToolPayload.js"

const decodeList = Schema.decodeUnknownSync(Mcp.ListResourcesResult)
const decodeTemplates = Schema.decodeUnknownSync(Mcp.ListResourceTemplatesResult)
const decodeRead = Schema.decodeUnknownSync(Mcp.ReadResourceResult)
const text = ToolPayload.toJsonText

describe("ToolPayload", () => {
  it("the entry builders give the JSON text of encoding through the entry schemas", () => {
    fc.assert(
      fc.property(fc.string(), Arbitrary.make(Mcp.Resource), (server, resource) => {
        assert.strictEqual(
          JSON.stringify(ToolPayload.resourceEntry(server, resource)),
          text(ToolPayload.ResourceEntry, { server, ...resource })
        )
      }),
      { numRuns: 500 }
    )
    fc.assert(
      fc.property(fc.string(), Arbitrary.make(Mcp.ResourceTemplate), (server, template) => {
        assert.strictEqual(
          JSON.stringify(ToolPayload.resourceTemplateEntry(server, template)),
          text(ToolPayload.ResourceTemplateEntry, { server, ...template })
        )
      }),
      { numRuns: 500 }
    )
  })

  it("P-1: a resource entry puts server first", () => {
    const [resource] = decodeList({ resources: [{ uri: "memo://id", name: "memo" }] }).resources
    assert.strictEqual(
      text(ToolPayload.ResourceEntry, { server: "test", ...resource! }),
      '{"server":"test","uri":"memo://id","name":"memo"}'
    )
  })

  it("P-2: a single-server list keeps nextCursor", () => {
    const page = decodeList({ resources: [{ uri: "memo://id", name: "memo" }], nextCursor: "cursor-1" })
    assert.strictEqual(
      text(ToolPayload.SingleServerResources, ToolPayload.singleServerResources("srv", page)),
      '{"server":"srv","resources":[{"server":"srv","uri":"memo://id","name":"memo"}],"nextCursor":"cursor-1"}'
    )
  })

  it("P-3: an absent or blank nextCursor and the result's _meta are omitted", () => {
    const expected = '{"server":"srv","resources":[{"server":"srv","uri":"memo://id","name":"memo"}]}'
    for (const extra of [{ _meta: { x: 1 } }, { nextCursor: "" }, { nextCursor: "  " }]) {
      const page = decodeList({ resources: [{ uri: "memo://id", name: "memo" }], ...extra })
      assert.strictEqual(
        text(ToolPayload.SingleServerResources, ToolPayload.singleServerResources("srv", page)),
        expected
      )
    }
  })

  it("P-5: a single-server template list puts server first in each entry", () => {
    const page = decodeTemplates({ resourceTemplates: [{ uriTemplate: "memo://{id}", name: "memo" }] })
    assert.strictEqual(
      text(ToolPayload.SingleServerResourceTemplates, ToolPayload.singleServerResourceTemplates("srv", page)),
      '{"server":"srv","resourceTemplates":[{"server":"srv","uriTemplate":"memo://{id}","name":"memo"}]}'
    )
  })

  it("P-9: unknown fields are dropped and keys follow uri,name,mimeType,size,annotations", () => {
    const page = decodeList({
      resources: [{ foo: 1, annotations: { priority: 1 }, size: 3, mimeType: "text/plain", name: "n", uri: "u://1" }]
    })
    assert.strictEqual(
      text(ToolPayload.ResourceEntry, { server: "srv", ...page.resources[0]! }),
      '{"server":"srv","uri":"u://1","name":"n","mimeType":"text/plain","size":3,"annotations":{"priority":1}}'
    )
  })

  it("P-10: read contents keep text before blob, in the server's order", () => {
    const result = decodeRead({
      contents: [
        { uri: "test://x", mimeType: "text/plain", text: "hi" },
        { uri: "test://x.bin", blob: "AAE=" }
      ]
    })
    assert.strictEqual(
      text(ToolPayload.ReadPayload, ToolPayload.readPayload("srv", "test://x", result)),
      '{"server":"srv","uri":"test://x","contents":[{"uri":"test://x","mimeType":"text/plain","text":"hi"},{"uri":"test://x.bin","blob":"AAE="}]}'
    )
  })

  it("P-10: an item with both text and blob is a text item", () => {
    const result = decodeRead({ contents: [{ blob: "AAE=", text: "hi", uri: "test://x" }] })
    assert.strictEqual(text(Mcp.ReadResourceResult, result), '{"contents":[{"uri":"test://x","text":"hi"}]}')
    assert.isTrue(Mcp.isTextContents(result.contents[0]!))
  })

  it("nested _meta and annotations pass through unchanged, even an own __proto__ key", () => {
    const meta = JSON.parse('{"__proto__":{"a":1},"b":2}') as Record<string, unknown>
    const page = decodeList({ resources: [{ uri: "u", name: "n", _meta: meta }] })
    assert.strictEqual(page.resources[0]?._meta, meta)
    assert.strictEqual(
      text(ToolPayload.ResourceEntry, { server: "s", ...page.resources[0]! }),
      '{"server":"s","uri":"u","name":"n","_meta":{"__proto__":{"a":1},"b":2}}'
    )
  })

  it("a read result with a wrongly typed newer field is refused", () => {
    assert.throws(() => decodeRead({ contents: [], ttlMs: -1 }))
    assert.throws(() => decodeRead({ contents: [], resultType: 5 }))
  })

  it("decodeCallToolResult keeps the server's object, unknown fields and key order included", () => {
    const raw = { isError: false, content: [{ type: "text", text: "ok" }], extra: 1 }
    const decoded = Mcp.decodeCallToolResult(raw)
    assert.isTrue(decoded._tag === "Right" && decoded.right === raw)
    assert.strictEqual(Mcp.decodeCallToolResult({ content: "x" })._tag, "Left")
  })

  it("derives the Chat Completions and Anthropic forms from a ToolSpec", () => {
    const spec: ToolPayload.ToolSpec = {
      type: "function",
      name: "read_mcp_resource",
      description: "d",
      strict: false,
      parameters: { type: "object" }
    }
    assert.deepStrictEqual(ToolPayload.toChatCompletions(spec), {
      type: "function",
      function: { name: "read_mcp_resource", description: "d", parameters: { type: "object" }, strict: false }
    })
    assert.deepStrictEqual(ToolPayload.toAnthropic(spec), {
      name: "read_mcp_resource",
      description: "d",
      input_schema: { type: "object" }
    })
  })
})
