/**
 * Profiles as values: the two built-in ones, and a host's own built through the public API from
 * them (a renamed description, no completion tool, a tool of its own) without touching either.
 */
import { assert, describe, it } from "@effect/vitest"
import { Messages } from "@mcp-resources/protocol"
import { Effect } from "effect"
import { Extended, LifecycleSink, Profile, ToolHandlers, ToolSpecs } from "../src/index.js"
import { harness } from "./utils/harness.js"

const hostDescription = "Read one resource of the host's MCP servers."

/** The host's profile: extended reads under its own description, no completion tool, and a `ping` tool. */
const host: Profile.Profile = {
  ...Profile.withoutCompletion(
    Profile.withTool(Profile.extended, "read_mcp_resource", (spec) => ({ ...spec, description: hostDescription }))
  ),
  name: "host"
}
const withPing: Profile.Profile = {
  ...host,
  resourceTools: [
    ...host.resourceTools,
    {
      spec: { type: "function", name: "ping", description: "Answers pong.", strict: false, parameters: {} },
      run: (_, call) => Effect.succeed({ output: `pong ${call.arguments}`, success: true })
    }
  ]
}

const call = (ctx: ToolHandlers.ToolContext, name: string, args: Record<string, unknown>) =>
  ToolHandlers.callTool(ctx, { callId: "c-1", name, arguments: JSON.stringify(args) }).pipe(
    Effect.provide(LifecycleSink.layerNoop)
  )

describe("profiles as values", () => {
  it("a config name resolves to its profile; a value is taken as it is", () => {
    assert.strictEqual(Profile.of(undefined), Profile.codex)
    assert.strictEqual(Profile.of("codex"), Profile.codex)
    assert.strictEqual(Profile.of("extended"), Profile.extended)
    assert.strictEqual(Profile.of(host), host)
  })

  it("the extended specs are the codex specs overridden; the built-in profiles offer them", () => {
    assert.deepStrictEqual(
      Profile.codex.resourceTools.map((tool) => tool.spec),
      [...ToolSpecs.resourceToolSpecs]
    )
    assert.deepStrictEqual(
      Profile.extended.resourceTools.map((tool) => tool.spec),
      [...ToolSpecs.extendedResourceToolSpecs]
    )
    assert.strictEqual(Profile.extended.completion?.spec, ToolSpecs.completeMcpResourceArgument)
    assert.isUndefined(Profile.codex.completion)
    const [list, templates, read, search] = ToolSpecs.extendedResourceToolSpecs
    assert.strictEqual(search, ToolSpecs.searchMcpResources)
    assert.isTrue(list!.description.startsWith(ToolSpecs.listMcpResources.description))
    assert.strictEqual(templates, ToolSpecs.listMcpResourceTemplates)
    assert.deepStrictEqual(Object.keys(read!), Object.keys(ToolSpecs.readMcpResource))
    assert.deepStrictEqual(Object.keys(read!.parameters), Object.keys(ToolSpecs.readMcpResource.parameters))
  })

  it.scoped("a host's profile lists its own specs; codex and extended are unchanged", () =>
    Effect.gen(function* () {
      const { ctx } = yield* harness({ srv: { spec: { reads: [] } } })
      const tools = yield* ToolHandlers.listTools({ ...ctx, profile: host })
      const read = tools.find((t) => t.name === "read_mcp_resource")!
      assert.strictEqual(read.description, hostDescription)
      assert.deepStrictEqual(read.parameters, ToolSpecs.extended.readMcpResource.parameters)
      assert.isFalse(tools.some((t) => t.name === ToolSpecs.completeMcpResourceArgument.name))
      const extended = yield* ToolHandlers.listTools({ ...ctx, profile: "extended" })
      assert.deepStrictEqual(extended.slice(0, 4), [...ToolSpecs.extendedResourceToolSpecs])
      assert.deepStrictEqual(Profile.extended.completion?.spec, ToolSpecs.completeMcpResourceArgument)
      const codex = yield* ToolHandlers.listTools(ctx)
      assert.deepStrictEqual(codex.slice(0, 3), [...ToolSpecs.resourceToolSpecs])
    })
  )

  it.scoped("a call is routed by the profile: its own tool runs, a dropped tool is unsupported", () =>
    Effect.gen(function* () {
      const { ctx } = yield* harness({
        srv: { spec: { reads: [{ uri: "a://1", result: { contents: [{ uri: "a://1", text: "hello" }] } }] } }
      })
      const pinged = yield* call({ ...ctx, profile: withPing }, "ping", { n: 1 })
      assert.deepStrictEqual(pinged, { output: 'pong {"n":1}', success: true })
      // not a tool of codex
      const codexPing = yield* call(ctx, "ping", {})
      assert.deepStrictEqual(codexPing, { output: Messages.unsupportedCall("ping"), success: false })
      // the host dropped completion: unsupported, where extended answers for the server
      const args = { server: "srv", uriTemplate: "a://{id}", argument: "id", value: "" }
      const dropped = yield* call({ ...ctx, profile: host }, ToolSpecs.completeMcpResourceArgument.name, args)
      assert.deepStrictEqual(dropped, {
        output: Messages.unsupportedCall(ToolSpecs.completeMcpResourceArgument.name),
        success: false
      })
      const extended = yield* call({ ...ctx, profile: "extended" }, ToolSpecs.completeMcpResourceArgument.name, args)
      assert.deepStrictEqual(extended, { output: Extended.messages.noCompletions("srv"), success: false })
      // the host's read is the extended read
      const hostRead = yield* call({ ...ctx, profile: host }, "read_mcp_resource", { server: "srv", uri: "a://1" })
      const extendedRead = yield* call({ ...ctx, profile: "extended" }, "read_mcp_resource", {
        server: "srv",
        uri: "a://1"
      })
      assert.deepStrictEqual(hostRead, extendedRead)
      assert.isTrue(hostRead.success)
    })
  )
})
