import type * as Sdk from "@modelcontextprotocol/sdk/types.js"
import { describe, expectTypeOf, it } from "vitest"
import type * as Mcp from "../src/Mcp.js"

/**
 * Type-level agreement with the SDK 1.32 types, checked by `tsc -p tsconfig.test.json`. Both sides are
 * compared field by field with optional markers and `undefined` removed (the SDK's zod-inferred types
 * write `x?: T | undefined`, ours `x?: T` under exactOptionalPropertyTypes). Pass-through fields are
 * deliberately looser in ours (`icons`, content blocks, `inputSchema` are kept as the server sent them),
 * so they are checked only in the SDK-to-ours direction.
 */
type Defined<T> = { -readonly [K in keyof T]-?: NonNullable<T[K]> }
type Fields<T, K extends keyof T> = Defined<Pick<T, K>>

type ResourceKeys = "uri" | "name" | "title" | "description" | "mimeType" | "size" | "_meta"
type TemplateKeys = "uriTemplate" | "name" | "title" | "description" | "mimeType" | "_meta"
type ToolKeys = "name" | "title" | "description" | "_meta"
type ResultKeys = "isError" | "structuredContent" | "_meta"

describe("Mcp types agree with the SDK's", () => {
  it("Resource: shared fields agree both ways; the SDK's resource fits ours", () => {
    expectTypeOf<Fields<Mcp.Resource, ResourceKeys>>().toExtend<Fields<Sdk.Resource, ResourceKeys>>()
    expectTypeOf<Fields<Sdk.Resource, ResourceKeys>>().toExtend<Fields<Mcp.Resource, ResourceKeys>>()
    expectTypeOf<Defined<Sdk.Resource>>().toExtend<Defined<Mcp.Resource>>()
  })

  it("ResourceTemplate: shared fields agree both ways; the SDK's template fits ours", () => {
    expectTypeOf<Fields<Mcp.ResourceTemplate, TemplateKeys>>().toExtend<Fields<Sdk.ResourceTemplate, TemplateKeys>>()
    expectTypeOf<Fields<Sdk.ResourceTemplate, TemplateKeys>>().toExtend<Fields<Mcp.ResourceTemplate, TemplateKeys>>()
    expectTypeOf<Defined<Sdk.ResourceTemplate>>().toExtend<Defined<Mcp.ResourceTemplate>>()
  })

  it("TextResourceContents and BlobResourceContents agree both ways", () => {
    expectTypeOf<Mcp.TextResourceContents>().toExtend<Sdk.TextResourceContents>()
    expectTypeOf<Mcp.BlobResourceContents>().toExtend<Sdk.BlobResourceContents>()
    expectTypeOf<Defined<Sdk.TextResourceContents>>().toExtend<Defined<Mcp.TextResourceContents>>()
    expectTypeOf<Defined<Sdk.BlobResourceContents>>().toExtend<Defined<Mcp.BlobResourceContents>>()
  })

  it("Tool: shared fields agree both ways; the SDK's tool fits ours", () => {
    expectTypeOf<Fields<Mcp.Tool, ToolKeys>>().toExtend<Fields<Sdk.Tool, ToolKeys>>()
    expectTypeOf<Fields<Sdk.Tool, ToolKeys>>().toExtend<Fields<Mcp.Tool, ToolKeys>>()
    expectTypeOf<Defined<Sdk.Tool>>().toExtend<Defined<Mcp.Tool>>()
  })

  it("CallToolResult: shared fields agree both ways; the SDK's result fits ours", () => {
    expectTypeOf<Fields<Mcp.CallToolResult, ResultKeys>>().toExtend<Fields<Sdk.CallToolResult, ResultKeys>>()
    expectTypeOf<Fields<Sdk.CallToolResult, ResultKeys>>().toExtend<Fields<Mcp.CallToolResult, ResultKeys>>()
    expectTypeOf<Defined<Sdk.CallToolResult>>().toExtend<Defined<Mcp.CallToolResult>>()
  })
})
