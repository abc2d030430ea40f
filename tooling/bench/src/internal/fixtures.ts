/** Shared set-up of the in-memory scenarios: fixture servers, our stack over them, and a raw SDK client. */
import { connectInMemory, type FixtureSpec, type InMemoryFixture } from "@mcp-resources/fixtures"
import { Config, Truncation } from "@mcp-resources/protocol"
import { ResourceClient, ServerEntry } from "@mcp-resources/resource-client"
import { LifecycleSink, ToolHandlers } from "@mcp-resources/tool-handlers"
import { Client as ClientV2 } from "@modelcontextprotocol/client"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { Effect, Layer, ManagedRuntime } from "effect"

/** The byte budget of the default policy as the tools apply it: tokens 10000 × 1.2 × 4 bytes = 48000. */
export const defaultBudgetBytes = Truncation.effective(Truncation.defaultPolicy).limit * 4

/** A text read result of `bytes` ASCII bytes (built once; the in-memory transport passes it by reference). */
export const textResult = (uri: string, bytes: number): Record<string, unknown> => ({
  contents: [{ uri, mimeType: "text/plain", text: "x".repeat(bytes) }]
})

/** Our stack over in-memory fixture servers: a ResourceClient set and the ToolContext of a thread on it. */
export interface Stack {
  readonly runtime: ManagedRuntime.ManagedRuntime<ResourceClient.ResourceClient | LifecycleSink.LifecycleSink, never>
  readonly set: ResourceClient.ConnectionSet
  readonly ctx: ToolHandlers.ToolContext
  /** Runs one model function call through `ToolHandlers.callTool`; the arguments are JSON text, as a model sends them. */
  readonly callTool: (name: string, argumentsText: string, callId: string) => Promise<ToolHandlers.ToolOutput>
  readonly dispose: () => Promise<void>
}

/** Builds our stack over named in-memory fixtures (every server ready before this returns). */
export const makeStack = (
  fixtures: ReadonlyArray<{ readonly name: string; readonly fixture: InMemoryFixture }>,
  maxMessageBytes?: number
): Promise<Stack> =>
  makeStackOf(
    fixtures.map(({ name, fixture }) =>
      ServerEntry.memory(name, fixture.connect, maxMessageBytes === undefined ? {} : { maxMessageBytes })
    )
  )

/** Builds our stack over any server entries and config (every server ready before this returns). */
export const makeStackOf = async (
  servers: ReadonlyArray<ServerEntry.ServerEntry>,
  config: Config.Config = Config.empty
): Promise<Stack> => {
  const runtime = ManagedRuntime.make(Layer.merge(ResourceClient.layer({ config, servers }), LifecycleSink.layerNoop))
  const set = await runtime.runPromise(
    Effect.gen(function* () {
      const client = yield* ResourceClient.ResourceClient
      const set = yield* client.latest
      yield* set.awaitAllSettled
      return set
    })
  )
  for (const status of set.servers()) {
    if (status.status !== "ready") throw new Error(`server ${status.name} is ${status.status}: ${status.error ?? ""}`)
  }
  const ctx: ToolHandlers.ToolContext = {
    set,
    config,
    orchestratorMcpEnabled: true,
    truncation: config.truncation
  }
  return {
    runtime,
    set,
    ctx,
    callTool: (name, argumentsText, callId) =>
      runtime.runPromise(ToolHandlers.callTool(ctx, { callId, name, arguments: argumentsText })),
    dispose: () => runtime.dispose()
  }
}

/** A raw SDK client connected to a fixture, as a naive host would hold it. */
export const sdkClient = async (fixture: InMemoryFixture): Promise<Client> => {
  const client = new Client({ name: "naive-host", version: "1.0.0" })
  await client.connect(await fixture.connect())
  return client
}

/** A raw v2 SDK client (`@modelcontextprotocol/client`, the line our resource client runs on) connected to a fixture. */
export const sdkClientV2 = async (fixture: InMemoryFixture): Promise<ClientV2> => {
  const client = new ClientV2({ name: "naive-host-v2", version: "1.0.0" })
  await client.connect(await fixture.connect())
  return client
}

/** The naive host's truncation: cut the UTF-8 bytes at the budget. */
export const byteSlice = (text: string, budget: number): string =>
  Buffer.byteLength(text, "utf8") <= budget ? text : Buffer.from(text, "utf8").subarray(0, budget).toString("utf8")

export { connectInMemory, type FixtureSpec }
