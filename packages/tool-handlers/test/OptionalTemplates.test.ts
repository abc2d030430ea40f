/**
 * A server that does not implement the optional `resources/templates/list` (an SDK v1 server without
 * the handler, which answers `-32601` as server-postgres and other SDK-1.0-era servers do): the
 * extended profile lists no templates for it; the codex profile reports it failed, byte for byte.
 */
import { assert, describe, it, layer } from "@effect/vitest"
import { type Command, stdioCommand } from "@mcp-resources/fixtures"
import { Config } from "@mcp-resources/protocol"
import { McpTransport, ResourceClient, type ServerEntry } from "@mcp-resources/resource-client"
import { Context, Effect, Layer } from "effect"
import { LifecycleSink, OptionalTemplates, ToolHandlers } from "../src/index.js"
import { entryDefaults } from "./ServerMatrix.js"

const stdio = (name: string, command: Command): ServerEntry.ServerEntry => ({
  name,
  transport: { _tag: "stdio", command: command.command, args: command.args, env: {} },
  ...entryDefaults
})

class Ctx extends Context.Tag("test/OptionalTemplatesCtx")<Ctx, ToolHandlers.ToolContext>() {}

const ctxLayer = Layer.scoped(
  Ctx,
  Effect.gen(function* () {
    const config = Config.empty
    const servers = [
      // resources declared, no templates handler: the SDK answers -32601
      stdio(
        "pg",
        stdioCommand({
          name: "pg",
          resourcePages: [{ result: { resources: [{ uri: "pg://t/users", name: "users" }] } }],
          templatesList: false
        })
      ),
      stdio(
        "srv",
        stdioCommand({
          name: "srv",
          templatePages: [{ result: { resourceTemplates: [{ uriTemplate: "x://{id}", name: "byId" }] } }]
        })
      ),
      // a real failure of the method stays a failure in both profiles
      stdio(
        "broken",
        stdioCommand({
          name: "broken",
          templatePages: [{ error: { code: -32603, message: "database is down" } }]
        })
      )
    ]
    const client = yield* ResourceClient.make({ config, servers }).pipe(Effect.provide(McpTransport.layer))
    const set = yield* client.acquire
    yield* set.awaitAllSettled
    return { set, config, orchestratorMcpEnabled: true, truncation: config.truncation } as ToolHandlers.ToolContext
  })
).pipe(Layer.merge(LifecycleSink.layerNoop))

const templates = (profile: Config.ToolProfile, args: Record<string, unknown>) =>
  Effect.flatMap(Ctx, (ctx) =>
    ToolHandlers.callTool(
      { ...ctx, profile },
      { callId: "c-1", name: "list_mcp_resource_templates", arguments: JSON.stringify(args) }
    )
  )

const unimplemented = "resources/templates/list failed for `pg`: Mcp error: -32601: Method not found"
const broken = "resources/templates/list failed for `broken`: Mcp error: -32603: database is down"

layer(ctxLayer, { timeout: "120 seconds" })("a server without resources/templates/list", (it) => {
  it.effect("codex keeps reporting it failed, in the all-servers list and on its own", () =>
    Effect.gen(function* () {
      assert.deepStrictEqual(yield* templates("codex", {}), {
        output: JSON.stringify({
          resourceTemplates: [{ server: "srv", uriTemplate: "x://{id}", name: "byId" }],
          failedServers: [
            { server: "broken", error: broken },
            { server: "pg", error: unimplemented }
          ]
        }),
        success: true
      })
      assert.deepStrictEqual(yield* templates("codex", { server: "pg" }), {
        output: `resources/templates/list failed: ${unimplemented}`,
        success: false
      })
    })
  )

  it.effect("extended lists no templates for it, and still reports a server whose listing failed", () =>
    Effect.gen(function* () {
      const all = yield* templates("extended", {})
      assert.strictEqual(
        all.output,
        JSON.stringify({
          resourceTemplates: [{ server: "srv", uriTemplate: "x://{id}", variables: ["id"], name: "byId" }],
          failedServers: [{ server: "broken", error: broken }]
        })
      )
      assert.isTrue(all.success)
      const pg = yield* templates("extended", { server: "pg" })
      assert.strictEqual(pg.output, JSON.stringify({ server: "pg", resourceTemplates: [] }))
      assert.isTrue(pg.success)
      const down = yield* templates("extended", { server: "broken" })
      assert.strictEqual(down.output, `resources/templates/list failed: ${broken}`)
      assert.isFalse(down.success)
    })
  )
})

describe("OptionalTemplates", () => {
  it("recognises the -32601 answer of the named server only", () => {
    assert.isTrue(OptionalTemplates.isUnimplemented("pg", unimplemented))
    assert.isFalse(OptionalTemplates.isUnimplemented("other", unimplemented))
    assert.isFalse(OptionalTemplates.isUnimplemented("broken", broken))
    assert.isTrue(OptionalTemplates.isUnimplementedOutput("pg", `resources/templates/list failed: ${unimplemented}`))
    assert.isFalse(OptionalTemplates.isUnimplementedOutput("pg", unimplemented))
    // a startup failure that mentions -32601 is still a failure
    assert.isFalse(
      OptionalTemplates.isUnimplemented("pg", "failed to get client: initialize: Mcp error: -32601: Method not found")
    )
  })
})
