import { assert, describe, it } from "@effect/vitest"
import { Arbitrary, Either, FastCheck, Schema } from "effect"
import * as AppServer from "../src/AppServer.js"
import * as Mcp from "../src/Mcp.js"
import * as OriginCheckpoint from "../src/OriginCheckpoint.js"
import * as ThreadEvent from "../src/ThreadEvent.js"
import * as ToolCallItem from "../src/ToolCallItem.js"
import * as ToolPayload from "../src/ToolPayload.js"

const roundTrips = (name: string, schema: Schema.Schema.AnyNoContext) =>
  it(`${name} round-trips: decode(encode(x)) equals x`, () => {
    const encode = Schema.encodeSync(schema)
    const decode = Schema.decodeUnknownSync(schema)
    FastCheck.assert(
      FastCheck.property(Arbitrary.make(schema), (value) => {
        assert.deepStrictEqual(decode(encode(value)), value)
      }),
      { numRuns: 50 }
    )
  })

describe("AppServer schemas", () => {
  for (const [method, schema] of Object.entries(AppServer.methods)) roundTrips(`params of ${method}`, schema)
  for (const [method, schema] of Object.entries(AppServer.results)) roundTrips(`result of ${method}`, schema)
  for (const [method, schema] of Object.entries(AppServer.notifications)) roundTrips(`notification ${method}`, schema)

  it("the methods table covers every method of the protocol, the alias included", () => {
    assert.deepStrictEqual(Object.keys(AppServer.methods), [
      "initialize",
      "thread/start",
      "thread/resume",
      "thread/list",
      "thread/delete",
      "turn/start",
      "tool/list",
      "tool/call",
      "mcp/resource/read",
      "mcpServer/resource/read",
      "mcp/resource/complete",
      "mcp/resource/search",
      "mcp/resource/subscribe",
      "mcp/resource/unsubscribe",
      "thread/rollback",
      "thread/compact",
      "config/mcpServer/reload",
      "mcpServer/list",
      "mcpServer/oauth/login",
      "skills/list",
      "skills/read",
      "skills/extension/list",
      "skills/extension/read",
      "mcp/widget/list",
      "mcp/widget/tools",
      "mcp/widget/read",
      "mcp/widget/callTool",
      "mcp/widget/readResource"
    ])
    assert.deepStrictEqual(Object.keys(AppServer.results), Object.keys(AppServer.methods))
    assert.isTrue(AppServer.isMethod("skills/read"))
    assert.isFalse(AppServer.isMethod("toString"))
  })

  const refused: Array<[AppServer.Method, unknown, string]> = [
    ["thread/resume", { threadId: 5 }, "threadId: expected string, got 5"],
    ["thread/resume", {}, 'missing field "threadId"'],
    ["thread/resume", undefined, 'missing field "threadId"'],
    ["thread/resume", 5, "expected object, got 5"],
    ["thread/rollback", { threadId: "t", numTurns: -1 }, "numTurns: expected integer >= 0, got -1"],
    ["thread/rollback", { threadId: "t", numTurns: 1.5 }, "numTurns: expected integer >= 0, got 1.5"],
    ["mcp/resource/read", { threadId: 5, server: "s", uri: "u" }, "threadId: expected string | null, got 5"],
    ["mcpServer/resource/read", { server: "s" }, 'missing field "uri"'],
    [
      "thread/start",
      { config: { truncation: { mode: "lines", limit: 1 } } },
      'config.truncation.mode: expected "bytes" | "tokens", got "lines"'
    ],
    ["thread/start", { config: { truncation: { mode: "bytes" } } }, 'missing field "config.truncation.limit"'],
    [
      "tool/call",
      { threadId: "t", turnId: "u", callId: "c", name: "n", arguments: {} },
      "arguments: expected string, got {}"
    ],
    ["initialize", { clientInfo: {} }, 'missing field "clientInfo.name"'],
    ["skills/read", { threadId: "t", resource: "r" }, 'missing field "package"']
  ]
  for (const [method, params, detail] of refused) {
    it(`${method} refuses ${JSON.stringify(params)} naming the field: ${detail}`, () => {
      const decoded = AppServer.decodeParams(method, params)
      assert.deepStrictEqual(decoded, Either.left(detail))
      assert.strictEqual(AppServer.messages.invalidParams(detail), `Invalid request: ${detail}`)
    })
  }

  it("absent params count as {} and unknown keys are ignored", () => {
    assert.deepStrictEqual(AppServer.decodeParams("thread/start", undefined), Either.right({}))
    assert.isTrue(Either.isRight(AppServer.decodeParams("thread/list", { extra: 1 })))
    assert.deepStrictEqual(
      AppServer.decodeParams("thread/resume", { threadId: "t", extra: 1 }),
      Either.right({ threadId: "t" })
    )
    assert.deepStrictEqual(
      AppServer.decodeParams("tool/call", { threadId: "t", turnId: "u", callId: "c", name: "n", arguments: "" }),
      Either.right({ threadId: "t", turnId: "u", callId: "c", name: "n", arguments: "" })
    )
  })

  it("formatParamsError works on a ParseError from any schema", () => {
    const result = Schema.decodeUnknownEither(AppServer.ThreadRollbackParams)({ threadId: "t" })
    assert.isTrue(Either.isLeft(result))
    if (Either.isLeft(result)) assert.strictEqual(AppServer.formatParamsError(result.left), 'missing field "numTurns"')
  })

  it("error messages are the exact strings of the protocol", () => {
    const m = AppServer.messages
    assert.deepStrictEqual(
      [
        m.parseError,
        m.requestTooLarge,
        m.invalidRequest,
        m.notInitialized,
        m.alreadyInitialized,
        m.methodNotFound("x/y"),
        m.requestCancelled,
        m.shuttingDown,
        m.threadNotFound("t1"),
        m.turnNotFound("u1"),
        m.duplicateCallId("c1"),
        m.originCallIdRequiresThreadId,
        m.modifiedConcurrently("t1")
      ],
      [
        "Parse error",
        "Request too large",
        "Invalid request",
        "Not initialized",
        "Already initialized",
        "Method not found: x/y",
        "Request cancelled",
        "server shutting down",
        "thread not found: t1",
        "turn not found: u1",
        "duplicate callId: c1",
        "originCallId requires threadId",
        "thread t1 was modified concurrently"
      ]
    )
    assert.deepStrictEqual(AppServer.ErrorCode, {
      parseError: -32700,
      invalidRequest: -32600,
      methodNotFound: -32601,
      internalError: -32603,
      requestCancelled: -32800
    })
  })
})

describe("shared wire schemas", () => {
  const schemas: Record<string, Schema.Schema.AnyNoContext> = {
    "Mcp.Resource": Mcp.Resource,
    "Mcp.ResourceTemplate": Mcp.ResourceTemplate,
    "Mcp.ResourceContents": Mcp.ResourceContents,
    "Mcp.ListResourcesResult": Mcp.ListResourcesResult,
    "Mcp.ListResourceTemplatesResult": Mcp.ListResourceTemplatesResult,
    "Mcp.ReadResourceResult": Mcp.ReadResourceResult,
    "Mcp.ListToolsResult": Mcp.ListToolsResult,
    "Mcp.CallToolResult": Mcp.CallToolResult,
    "ToolPayload.SingleServerResources": ToolPayload.SingleServerResources,
    "ToolPayload.SingleServerResourceTemplates": ToolPayload.SingleServerResourceTemplates,
    "ToolPayload.AggregateResources": ToolPayload.AggregateResources,
    "ToolPayload.AggregateResourceTemplates": ToolPayload.AggregateResourceTemplates,
    "ToolPayload.ReadPayload": ToolPayload.ReadPayload,
    "ToolPayload.ToolSpec": ToolPayload.ToolSpec,
    "ToolCallItem.McpToolCallItem": ToolCallItem.McpToolCallItem,
    "ThreadEvent.ThreadEvent": ThreadEvent.ThreadEvent,
    "OriginCheckpoint.OriginCheckpoint": OriginCheckpoint.OriginCheckpoint
  }
  for (const [name, schema] of Object.entries(schemas)) roundTrips(name, schema)

  it("a malformed resource is refused with the path of the bad field", () => {
    const result = Schema.decodeUnknownEither(Mcp.ListResourcesResult)({ resources: [{ uri: "u", name: 5 }] })
    assert.isTrue(Either.isLeft(result))
    if (Either.isLeft(result)) {
      assert.strictEqual(AppServer.formatParamsError(result.left), "resources[0].name: expected string, got 5")
    }
  })
})

describe("params nesting bound", () => {
  it("params nested deeper than 64 levels are refused with the path, without touching the stack limit", () => {
    const deep = (n: number): unknown => {
      let value: unknown = 1
      for (let i = 0; i < n; i++) value = [value]
      return value
    }
    const refused = AppServer.decodeParams("thread/start", { config: { truncation: deep(100_000) } })
    assert.deepStrictEqual(refused, Either.left("config.truncation.0: nested deeper than 64 levels"))
    assert.strictEqual(AppServer.tooDeep({ a: deep(61) }), undefined)
    assert.deepStrictEqual(AppServer.tooDeep({ a: deep(70) })?.length, 64)
  })
})
