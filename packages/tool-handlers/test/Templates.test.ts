/**
 * Resource templates on the extended profile, against real v2 servers over stdio on both protocol
 * eras whose read handlers accept only the hand-expanded URI of each RFC 6570 vector: reads through
 * `uriTemplate` + `arguments`, the argument checks, the variables in the template list, and
 * `complete_mcp_resource_argument` on a server with completions and one without.
 */
import { assert, describe, layer } from "@effect/vitest"
import { templateStdioCommand, templateVectors, type Command } from "@mcp-resources/fixtures"
import { Config } from "@mcp-resources/protocol"
import { McpTransport, ResourceClient, type ServerEntry } from "@mcp-resources/resource-client"
import { Context, Effect, Layer } from "effect"
import { LifecycleSink, ToolHandlers, ToolSpecs } from "../src/index.js"
import { entryDefaults } from "./ServerMatrix.js"

const stdio = (
  name: string,
  command: Command,
  protocolVersion?: Config.ProtocolVersionSetting
): ServerEntry.ServerEntry => ({
  name,
  transport: { _tag: "stdio", command: command.command, args: command.args, env: {} },
  ...entryDefaults,
  ...(protocolVersion === undefined ? {} : { protocolVersion })
})

class Sets extends Context.Tag("test/TemplateSets")<
  Sets,
  {
    /** `modern` (auto: 2026-07-28) and `legacy` (pinned) with completions, `plain` without. */
    readonly all: ToolHandlers.ToolContext
    /** Only `plain`: no server offers completions. */
    readonly plainOnly: ToolHandlers.ToolContext
  }
>() {}

const contextOf = (servers: ReadonlyArray<ServerEntry.ServerEntry>) =>
  Effect.gen(function* () {
    const config = Config.empty
    const client = yield* ResourceClient.make({ config, servers }).pipe(Effect.provide(McpTransport.layer))
    const set = yield* client.acquire
    yield* set.awaitAllSettled
    return { set, config, orchestratorMcpEnabled: true, truncation: config.truncation } as ToolHandlers.ToolContext
  })

const setsLayer = Layer.scoped(
  Sets,
  Effect.gen(function* () {
    const [all, plainOnly] = yield* Effect.all(
      [
        contextOf([
          stdio("modern", templateStdioCommand()),
          stdio("legacy", templateStdioCommand(), "legacy"),
          stdio("plain", templateStdioCommand({ completions: false }))
        ]),
        contextOf([stdio("plain", templateStdioCommand({ completions: false }))])
      ],
      { concurrency: "unbounded" }
    )
    return { all, plainOnly }
  })
).pipe(Layer.merge(LifecycleSink.layerNoop))

const extended = (ctx: ToolHandlers.ToolContext): ToolHandlers.ToolContext => ({ ...ctx, profile: "extended" })

const call = (
  name: string,
  args: unknown,
  pick: (sets: Context.Tag.Service<Sets>) => ToolHandlers.ToolContext = (sets) => extended(sets.all)
) =>
  Effect.flatMap(Sets, (sets) =>
    ToolHandlers.callTool(pick(sets), { callId: "c-1", name, arguments: JSON.stringify(args) })
  )

const read = (args: unknown) => call("read_mcp_resource", args)
const complete = (args: unknown) => call("complete_mcp_resource_argument", args)

layer(setsLayer, { timeout: "120 seconds" })("extended profile: resource templates", (it) => {
  describe("reads through a template", () => {
    for (const server of ["modern", "legacy"] as const) {
      it.effect(`every RFC 6570 level expands as the server expects (${server})`, () =>
        Effect.gen(function* () {
          const levels = new Set<number>()
          for (const vector of templateVectors) {
            const out = yield* read({ server, uriTemplate: vector.uriTemplate, arguments: vector.values })
            assert.isTrue(out.success, `${vector.name}: ${out.output}`)
            assert.include(out.output, `template ${vector.name} expanded as expected: ${vector.uri}`)
            assert.include(out.output, `[resource ${vector.uri} of MCP server ${server}:`)
            levels.add(vector.level)
          }
          assert.deepStrictEqual([...levels].sort(), [1, 2, 3, 4])
        })
      )
    }

    it.effect("a missing or an extra variable is named, with the template's variables", () =>
      Effect.gen(function* () {
        const missing = yield* read({ server: "modern", uriTemplate: "tmpl://query{?q,lang}", arguments: { q: "x" } })
        assert.isFalse(missing.success)
        assert.strictEqual(
          missing.output,
          `resource template 'tmpl://query{?q,lang}' needs a value for variable "lang"; its variables: q, lang`
        )
        const extra = yield* read({
          server: "modern",
          uriTemplate: "tmpl://simple/{id}",
          arguments: { id: "1", page: "2" }
        })
        assert.strictEqual(
          extra.output,
          `resource template 'tmpl://simple/{id}' has no variable "page"; its variables: id`
        )
        const prefix = yield* read({ server: "modern", uriTemplate: "tmpl://prefix/{word:3}", arguments: {} })
        assert.strictEqual(
          prefix.output,
          `resource template 'tmpl://prefix/{word:3}' needs a value for variable "word"; its variables: word`
        )
      })
    )

    it.effect("the template must be one the server lists", () =>
      Effect.gen(function* () {
        const out = yield* read({ server: "modern", uriTemplate: "tmpl://other/{id}", arguments: { id: "1" } })
        assert.isFalse(out.success)
        assert.strictEqual(
          out.output,
          "MCP server 'modern' lists no resource template 'tmpl://other/{id}'; list_mcp_resource_templates gives the templates it lists"
        )
      })
    )

    it.effect("exactly one of uri and uriTemplate; arguments is an object of strings", () =>
      Effect.gen(function* () {
        const both = yield* read({ server: "modern", uri: "tmpl://simple/1", uriTemplate: "tmpl://simple/{id}" })
        assert.strictEqual(
          both.output,
          'failed to parse function arguments: give exactly one of "uri" and "uriTemplate", not both'
        )
        const neither = yield* read({ server: "modern" })
        assert.strictEqual(
          neither.output,
          'failed to parse function arguments: give exactly one of "uri" and "uriTemplate"'
        )
        const notObject = yield* read({ server: "modern", uriTemplate: "tmpl://simple/{id}", arguments: ["1"] })
        assert.strictEqual(
          notObject.output,
          'failed to parse function arguments: field "arguments" must be an object of strings, got array'
        )
        const notString = yield* read({ server: "modern", uriTemplate: "tmpl://simple/{id}", arguments: { id: 1 } })
        assert.strictEqual(
          notString.output,
          'failed to parse function arguments: field "arguments.id" must be a string, got number'
        )
        // a plain uri read still works, and the codex rules apply to it
        const plain = yield* read({ server: "modern", uri: templateVectors[0]!.uri })
        assert.isTrue(plain.success)
      })
    )

    it.effect("the extended template list names each template's variables; codex's does not", () =>
      Effect.gen(function* () {
        const out = yield* call("list_mcp_resource_templates", { server: "modern" })
        const listed = JSON.parse(out.output) as {
          resourceTemplates: Array<{ uriTemplate: string; variables: Array<string> }>
        }
        assert.deepStrictEqual(
          listed.resourceTemplates.map((t) => [t.uriTemplate, t.variables]),
          templateVectors.map((v) => [v.uriTemplate, Object.keys(v.values)])
        )
        assert.strictEqual(
          JSON.stringify(listed.resourceTemplates[0]),
          '{"server":"modern","uriTemplate":"tmpl://simple/{id}","variables":["id"],"name":"simple","mimeType":"text/plain"}'
        )
        const aggregate = yield* call("list_mcp_resource_templates", {})
        assert.include(aggregate.output, '"uriTemplate":"tmpl://path{/a,b}","variables":["a","b"]')
        const codex = yield* call("list_mcp_resource_templates", { server: "modern" }, (sets) => sets.all)
        assert.notInclude(codex.output, "variables")
      })
    )
  })

  describe("complete_mcp_resource_argument", () => {
    it.effect("listed right after the resource tools (search last) when a ready server offers completions", () =>
      Effect.gen(function* () {
        const sets = yield* Sets
        const tools = yield* ToolHandlers.listTools(extended(sets.all))
        assert.deepStrictEqual(
          tools.slice(0, 5).map((t) => t.name),
          [...ToolSpecs.resourceToolNames, "search_mcp_resources", "complete_mcp_resource_argument"]
        )
        assert.deepStrictEqual(tools[4], ToolSpecs.completeMcpResourceArgument)
        const without = yield* ToolHandlers.listTools(extended(sets.plainOnly))
        assert.isFalse(without.some((t) => t.name === "complete_mcp_resource_argument"))
        const codex = yield* ToolHandlers.listTools(sets.all)
        assert.isFalse(codex.some((t) => t.name === "complete_mcp_resource_argument"))
        assert.deepStrictEqual(codex.slice(0, 3), [...ToolSpecs.resourceToolSpecs])
      })
    )

    for (const server of ["modern", "legacy"] as const) {
      it.effect(`values, total and hasMore come from completion/complete (${server})`, () =>
        Effect.gen(function* () {
          const out = yield* complete({ server, uriTemplate: "tmpl://simple/{id}", argument: "id", value: "al" })
          assert.isTrue(out.success, out.output)
          assert.deepStrictEqual(JSON.parse(out.output), { values: ["alpha", "alpine"], total: 2, hasMore: false })
          const more = yield* complete({ server, uriTemplate: "tmpl://query{?q,lang}", argument: "lang", value: "e" })
          assert.deepStrictEqual(JSON.parse(more.output), { values: ["en", "en-GB"], total: 3, hasMore: true })
          // the other variables' values reach the server as context.arguments
          const withContext = yield* complete({
            server,
            uriTemplate: "tmpl://path{/a,b}",
            argument: "b",
            value: "",
            context: { a: "x y" }
          })
          assert.deepStrictEqual(JSON.parse(withContext.output), {
            values: ["x y-1", "x y-2"],
            total: 2,
            hasMore: false
          })
        })
      )
    }

    it.effect("a server without completions, an unknown argument, and codex are refused", () =>
      Effect.gen(function* () {
        const plain = yield* complete({ server: "plain", uriTemplate: "tmpl://simple/{id}", argument: "id", value: "" })
        assert.isFalse(plain.success)
        assert.strictEqual(plain.output, "MCP server 'plain' does not offer argument completion")
        const unknown = yield* complete({
          server: "modern",
          uriTemplate: "tmpl://simple/{id}",
          argument: "x",
          value: ""
        })
        assert.strictEqual(
          unknown.output,
          `resource template 'tmpl://simple/{id}' has no variable "x"; its variables: id`
        )
        const badContext = yield* complete({
          server: "modern",
          uriTemplate: "tmpl://simple/{id}",
          argument: "id",
          value: "",
          context: { id: 3 }
        })
        assert.strictEqual(
          badContext.output,
          'failed to parse function arguments: field "context.id" must be a string, got number'
        )
        const codex = yield* call(
          "complete_mcp_resource_argument",
          { server: "modern", uriTemplate: "tmpl://simple/{id}", argument: "id", value: "" },
          (sets) => sets.all
        )
        assert.deepStrictEqual(codex, { output: "unsupported call: complete_mcp_resource_argument", success: false })
      })
    )
  })
})
