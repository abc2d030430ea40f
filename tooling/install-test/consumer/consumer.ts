/**
 * A small program of a user who installed the tarballs with npm: it is type-checked with strict `tsc`
 * (`skipLibCheck: false`) against the installed declarations, then run. It uses each package's main
 * API and prints one JSON line that the install test checks.
 */
import { AppOptions, MainLayer } from "@mcp-resources/app-server"
import { AppServerClient } from "@mcp-resources/app-server-client"
import { connectInMemory, exampleSpec, skillsSpec } from "@mcp-resources/fixtures"
import { AppServer, Config, Mcp } from "@mcp-resources/protocol"
import { ResourceClient, ServerEntry } from "@mcp-resources/resource-client"
import { OriginStore } from "@mcp-resources/resource-origins"
import { Catalog, Skills } from "@mcp-resources/skills"
import { ThreadStore } from "@mcp-resources/thread-store"
import { LifecycleSink, ToolHandlers } from "@mcp-resources/tool-handlers"
import { Effect, Either, Layer, Schema } from "effect"

const example = connectInMemory(exampleSpec())
const skills = connectInMemory(skillsSpec())
const setup: ServerEntry.Setup = {
  config: Config.empty,
  servers: [ServerEntry.memory("example", example.connect), ServerEntry.memory("codex_apps", skills.connect)]
}

const program = Effect.gen(function* () {
  const client = yield* ResourceClient.ResourceClient
  const set = yield* client.acquire
  yield* set.awaitAllSettled
  const ctx: ToolHandlers.ToolContext = {
    set,
    config: Config.empty,
    orchestratorMcpEnabled: true,
    truncation: Config.empty.truncation
  }
  const tools = yield* ToolHandlers.listTools(ctx)
  const listed = yield* ToolHandlers.callTool(ctx, {
    callId: "c-1",
    name: "list_mcp_resources",
    arguments: JSON.stringify({ server: "example" })
  })
  const catalog = yield* (yield* Skills.Skills).list("thread-1")
  yield* (yield* OriginStore.OriginStore).observe("thread-1", { _tag: "turnStarted", turnId: "turn-1" })
  const store = yield* ThreadStore.ThreadStore
  yield* store.create({ id: "th-1", createdAt: new Date(0).toISOString(), config: null })
  const seq = yield* store.append("th-1", 0, { _tag: "turnStarted", turnId: "t1" })
  const page: Mcp.ListResourcesResult = Schema.decodeUnknownSync(Mcp.ListResourcesResult)(JSON.parse(listed.output))
  return {
    tools: tools.map((tool) => tool.name),
    listed: listed.success,
    resources: page.resources.length,
    skills: Catalog.renderCatalog(catalog).length > 0,
    seq,
    params: Either.isLeft(AppServer.decodeParams("thread/resume", { threadId: 5 })),
    options: AppOptions.parseArgs(["--data-dir", "data"], {}, ".").dataDir
  }
})

const layer = Layer.mergeAll(OriginStore.layerFromResourceClient, Skills.layer).pipe(
  Layer.provideMerge(ResourceClient.layer(setup)),
  Layer.merge(ThreadStore.layerMemory),
  Layer.merge(LifecycleSink.layerNoop)
)

// The whole server's layer type-checks from the outside too (it is not run here).
const server = MainLayer.layer(AppOptions.parseArgs([], {}, "."))

// The typed client drives the installed app-server bin over stdio.
const driven = Effect.scoped(
  Effect.gen(function* () {
    const client = yield* AppServerClient.stdio({
      command: process.execPath,
      args: ["node_modules/@mcp-resources/app-server/dist/bundle/main.js", "--data-dir", "client-data"],
      stderr: "ignore"
    })
    const init = yield* client.initialize({ name: "consumer" })
    const { thread } = yield* client.request("thread/start", { ephemeral: true })
    return init.serverInfo.name === AppServer.serverName && thread.ephemeral
  })
)

const result = await Effect.runPromise(Effect.scoped(Effect.provide(program, layer)))
const client = await Effect.runPromise(Effect.timeout(driven, "60 seconds"))
await Promise.all([example.closeAll(), skills.closeAll()])
process.stdout.write(`${JSON.stringify({ ...result, server: Layer.isLayer(server), client })}\n`)
