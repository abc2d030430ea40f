/**
 * Keys such as `__proto__`, `constructor` and `prototype` in records that come from the wire stay
 * plain own data and never reach a prototype, on every path the protocol decodes: app-server params
 * and elicitation answers, config files (TOML and JSON), hook output, MCP results and `_meta`, skill
 * frontmatter, and the records the thread store keeps.
 */
import { assert, describe, it } from "@effect/vitest"
import { Either, JSONSchema, ParseResult, Schema } from "effect"
import * as AppServer from "../src/AppServer.js"
import * as Config from "../src/Config.js"
import * as Mcp from "../src/Mcp.js"
import * as McpSkills from "../src/McpSkills.js"
import * as Records from "../src/Records.js"
import * as ThreadEvent from "../src/ThreadEvent.js"
import * as ToolHook from "../src/ToolHook.js"
import * as ToolPayload from "../src/ToolPayload.js"

/** Parsed JSON with the three keys: `JSON.parse` makes each an own property (`__proto__` too). */
const wire = <A = Record<string, unknown>>(text: string): A => JSON.parse(text) as A

/** The record keeps exactly these own keys, in order, and its prototype is the ordinary one. */
const ownOnly = (value: unknown, keys: ReadonlyArray<string>) => {
  assert.isTrue(typeof value === "object" && value !== null, `expected an object, got ${String(value)}`)
  const record = value as Record<string, unknown>
  assert.deepStrictEqual(Object.keys(record), keys)
  const proto: unknown = Object.getPrototypeOf(record)
  assert.isTrue(proto === Object.prototype || proto === null, "the prototype was replaced")
  assert.strictEqual((record as { polluted?: unknown }).polluted, undefined, "a value reached the prototype")
}

const polluting = '{"__proto__":{"polluted":true},"constructor":"c","prototype":"p"}'

describe("Records.record", () => {
  const strings = Records.record(Schema.String)
  const plain = Schema.Record({ key: Schema.String, value: Schema.String })

  it("decodes and encodes every key as an own property, __proto__ included, in the input's order", () => {
    const input = wire('{"b":"1","__proto__":"x","constructor":"c","prototype":"p","a":"2"}')
    const decoded = Schema.decodeUnknownSync(strings)(input)
    ownOnly(decoded, ["b", "__proto__", "constructor", "prototype", "a"])
    assert.strictEqual(Object.getOwnPropertyDescriptor(decoded, "__proto__")?.value, "x")
    const encoded = Schema.encodeSync(strings)(decoded)
    ownOnly(encoded, ["b", "__proto__", "constructor", "prototype", "a"])
    assert.strictEqual(JSON.stringify(encoded), JSON.stringify(input))
  })

  it("an object under __proto__ stays a value: the record inherits nothing from it", () => {
    const decoded = Schema.decodeUnknownSync(Records.record(Schema.Unknown))(wire(polluting))
    ownOnly(decoded, ["__proto__", "constructor", "prototype"])
    assert.deepStrictEqual(Object.getOwnPropertyDescriptor(decoded, "__proto__")?.value, { polluted: true })
    assert.strictEqual(({} as { polluted?: unknown }).polluted, undefined)
  })

  it("refuses what Schema.Record refuses, with the same paths and messages", () => {
    for (const bad of [{ a: 1 }, "text", null, { a: "x", b: [1] }]) {
      const ours = Schema.decodeUnknownEither(strings, { errors: "all" })(bad)
      const theirs = Schema.decodeUnknownEither(plain, { errors: "all" })(bad)
      assert.isTrue(Either.isLeft(ours) && Either.isLeft(theirs))
      if (Either.isLeft(ours) && Either.isLeft(theirs)) {
        assert.deepStrictEqual(
          ParseResult.ArrayFormatter.formatErrorSync(ours.left),
          ParseResult.ArrayFormatter.formatErrorSync(theirs.left)
        )
      }
    }
    // An array is not a record (Schema.Record would read its indexes as keys).
    assert.isTrue(Either.isLeft(Schema.decodeUnknownEither(strings)(["a"])))
  })

  it("has the JSON Schema of Schema.Record, annotations included", () => {
    const ours = Schema.Struct({ m: strings.annotations({ description: "d" }) })
    const theirs = Schema.Struct({ m: plain.annotations({ description: "d" }) })
    assert.deepStrictEqual(JSONSchema.make(ours), JSONSchema.make(theirs))
  })
})

describe("Records.passThrough", () => {
  it("hands on the peer's own object after validating it, and refuses as its shape does", () => {
    const input = wire<object>(`{"name":"n","description":"d","__proto__":{"polluted":true},"x":1}`)
    const decoded = Schema.decodeUnknownSync(McpSkills.Frontmatter)(input)
    assert.strictEqual(decoded, input)
    ownOnly(decoded, ["name", "description", "__proto__", "x"])
    const refused = Schema.decodeUnknownEither(McpSkills.Frontmatter)({ name: 1, description: "d" })
    assert.isTrue(Either.isLeft(refused))
    if (Either.isLeft(refused)) {
      assert.deepStrictEqual(
        ParseResult.ArrayFormatter.formatErrorSync(refused.left).map((i) => i.path),
        [["name"]]
      )
    }
  })
})

describe("every record that comes from the wire keeps __proto__, constructor and prototype as own data", () => {
  it("app-server params: mcp/resource/complete context", () => {
    const params = wire(
      `{"server":"s","uriTemplate":"t","argument":"a","value":"","context":${polluting.replace('{"polluted":true}', '"x"')}}`
    )
    const decoded = AppServer.decodeParams("mcp/resource/complete", params)
    assert.isTrue(Either.isRight(decoded))
    if (Either.isRight(decoded)) ownOnly(decoded.right.context, ["__proto__", "constructor", "prototype"])
    // The counterexample of the failing property run round-trips.
    const schema = AppServer.methods["mcp/resource/complete"]
    const value = Schema.decodeUnknownSync(schema)(
      wire('{"server":"","uriTemplate":"","argument":"","value":"","context":{"__proto__":""}}')
    )
    assert.deepStrictEqual(Schema.decodeUnknownSync(schema)(Schema.encodeSync(schema)(value)), value)
    ownOnly(value.context, ["__proto__"])
  })

  it("a client's elicitation answer and the server's elicitation params", () => {
    const answer = Schema.decodeUnknownSync(AppServer.ElicitationRequestResult)(
      wire('{"action":"accept","content":{"__proto__":"x","constructor":["c"],"prototype":1}}')
    )
    assert.strictEqual(answer.action, "accept")
    if (answer.action === "accept") ownOnly(answer.content, ["__proto__", "constructor", "prototype"])
    const request = Schema.decodeUnknownSync(AppServer.ElicitationRequestParams)(
      wire(`{"threadId":"t","server":"s","params":${polluting}}`)
    )
    ownOnly(request.params, ["__proto__", "constructor", "prototype"])
  })

  it("config files: server names, env, http_headers, connectors and their tools (TOML and JSON)", () => {
    const toml = [
      "[mcp_servers.__proto__]",
      'command = "node"',
      'env = { __proto__ = "x", constructor = "c", prototype = "p" }',
      "[mcp_servers.web]",
      'url = "https://example.com/mcp"',
      'http_headers = { __proto__ = "x", constructor = "c" }',
      "[apps.connectors.__proto__.tools.__proto__]",
      "enabled = false",
      "[apps.connectors.constructor]",
      "enabled = false"
    ].join("\n")
    const json = `{
      "mcp_servers": {
        "__proto__": { "command": "node", "env": { "__proto__": "x", "constructor": "c", "prototype": "p" } },
        "web": { "url": "https://example.com/mcp", "http_headers": { "__proto__": "x", "constructor": "c" } }
      },
      "apps": {
        "connectors": {
          "__proto__": { "tools": { "__proto__": { "enabled": false } } },
          "constructor": { "enabled": false }
        }
      }
    }`
    const fromJson = Config.parse(json, "c.json")
    for (const parsed of [Config.parse(toml, "c.toml"), fromJson]) {
      assert.isTrue(Either.isRight(parsed), JSON.stringify(parsed))
      if (Either.isLeft(parsed)) continue
      const config = parsed.right
      assert.deepStrictEqual(
        config.mcpServers.map((s) => s.name),
        ["__proto__", "web"]
      )
      const stdio = config.mcpServers[0]!.transport
      assert.strictEqual(stdio._tag, "stdio")
      if (stdio._tag === "stdio") ownOnly(stdio.env, ["__proto__", "constructor", "prototype"])
      const http = config.mcpServers[1]!.transport
      if (http._tag === "http") ownOnly(http.httpHeaders, ["__proto__", "constructor"])
      ownOnly(config.apps.connectors, ["__proto__", "constructor"])
      const connector = Object.getOwnPropertyDescriptor(config.apps.connectors, "__proto__")?.value as
        | Config.ConnectorConfig
        | undefined
      ownOnly(connector?.tools, ["__proto__"])
      assert.deepStrictEqual(Object.getOwnPropertyDescriptor(connector?.tools, "__proto__")?.value, { enabled: false })
    }
  })

  it("hook output: a before_tool rewrite's arguments", () => {
    const decision = Schema.decodeUnknownSync(Schema.parseJson(ToolHook.BeforeToolDecision))(
      `{"decision":"rewrite","arguments":${polluting}}`
    )
    assert.strictEqual(decision.decision, "rewrite")
    if (decision.decision === "rewrite") {
      ownOnly(decision.arguments, ["__proto__", "constructor", "prototype"])
      // what the call goes on with
      assert.strictEqual(JSON.stringify(decision.arguments), polluting)
    }
  })

  it("MCP results: listed resources and templates, read results, tool results and their _meta", () => {
    const listed = Schema.decodeUnknownSync(Mcp.ListResourcesResult)(
      wire(`{"resources":[{"uri":"u","name":"n","_meta":${polluting},"annotations":${polluting}}]}`)
    )
    ownOnly(listed.resources[0]!._meta, ["__proto__", "constructor", "prototype"])
    ownOnly(listed.resources[0]!.annotations, ["__proto__", "constructor", "prototype"])
    const templates = Schema.decodeUnknownSync(Mcp.ListResourceTemplatesResult)(
      wire(`{"resourceTemplates":[{"uriTemplate":"u/{x}","name":"n","_meta":${polluting}}]}`)
    )
    ownOnly(templates.resourceTemplates[0]!._meta, ["__proto__", "constructor", "prototype"])
    const read = Schema.decodeUnknownSync(Mcp.ReadResourceResult)(
      wire(`{"contents":[{"uri":"u","text":"t","_meta":${polluting}}],"_meta":${polluting}}`)
    )
    ownOnly(read._meta, ["__proto__", "constructor", "prototype"])
    ownOnly(read.contents[0]!._meta, ["__proto__", "constructor", "prototype"])
    const called = Mcp.decodeCallToolResult(
      wire(
        `{"content":[{"type":"text","text":"x","_meta":${polluting}}],"structuredContent":${polluting},"__proto__":{"polluted":true}}`
      )
    )
    assert.isTrue(Either.isRight(called))
    if (Either.isRight(called)) {
      ownOnly(called.right, ["content", "structuredContent", "__proto__"])
      ownOnly(called.right.structuredContent, ["__proto__", "constructor", "prototype"])
    }
    const tools = Schema.decodeUnknownSync(Mcp.ListToolsResult)(
      wire(`{"tools":[{"name":"t","inputSchema":{"type":"object","properties":${polluting}},"_meta":${polluting}}]}`)
    )
    ownOnly(tools.tools[0]!._meta, ["__proto__", "constructor", "prototype"])
    ownOnly((tools.tools[0]!.inputSchema as { properties: unknown }).properties, [
      "__proto__",
      "constructor",
      "prototype"
    ])
  })

  it("skill entries of the skills extension: the frontmatter", () => {
    const skill = Schema.decodeUnknownSync(McpSkills.Skill)(
      wire(
        `{"uri":"skill://a/SKILL.md","frontmatter":{"name":"a","description":"d","__proto__":{"polluted":true}},"resources":"dynamic"}`
      )
    )
    ownOnly(skill.frontmatter, ["name", "description", "__proto__"])
  })

  it("an Anthropic tool's input schema", () => {
    const tool = Schema.decodeUnknownSync(ToolPayload.AnthropicTool)(
      wire(`{"name":"t","description":"d","input_schema":{"type":"object","__proto__":{"polluted":true}}}`)
    )
    ownOnly(tool.input_schema, ["type", "__proto__"])
  })

  it("the thread store's records: an audited rewrite and a tool call's arguments, read back", () => {
    const audit = {
      callId: "c",
      tool: "t",
      rules: [],
      hidden: 0,
      listed: [],
      before: [{ hook: "before_tool[0]", decision: "rewrite", arguments: wire(polluting) }],
      after: [],
      serverRequest: true,
      success: true
    }
    const stored = JSON.stringify({ _tag: "toolAudited", turnId: "t1", audit })
    const event = Schema.decodeUnknownSync(Schema.parseJson(ThreadEvent.ThreadEvent))(stored)
    assert.strictEqual(event._tag, "toolAudited")
    if (event._tag === "toolAudited")
      ownOnly(event.audit.before[0]!.arguments, ["__proto__", "constructor", "prototype"])
    assert.strictEqual(
      JSON.stringify(Schema.encodeSync(Schema.parseJson(ThreadEvent.ThreadEvent))(event)),
      JSON.stringify(stored)
    )
  })
})
