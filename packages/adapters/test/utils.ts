/** A thread binding on a real fixture MCP server over streamable HTTP, for the adapter tests. */
import { type HttpFixture, type FixtureSpec, startHttp } from "@mcp-resources/fixtures"
import { Config } from "@mcp-resources/protocol"
import { McpTransport, ResourceClient, type ServerEntry } from "@mcp-resources/resource-client"
import type { LifecycleSink, ToolHandlers } from "@mcp-resources/tool-handlers"
import { Effect } from "effect"
import type { Binding } from "../src/Bridge.js"

/** A 1x1 PNG. */
export const pngBase64 = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP4//8/AAX+Av6n1qThAAAAAElFTkSuQmCC"

/** The fixture: one text resource, one image resource, an `echo` tool and a `slow` tool that never answers. */
export const spec = (): FixtureSpec => ({
  name: "srv",
  resourcePages: [
    {
      result: {
        resources: [
          { uri: "memo://note", name: "note", mimeType: "text/plain" },
          { uri: "img://pixel.png", name: "pixel", mimeType: "image/png" }
        ]
      }
    }
  ],
  reads: [
    {
      uri: "memo://note",
      result: { contents: [{ uri: "memo://note", mimeType: "text/plain", text: "remember the milk" }] }
    },
    {
      uri: "img://pixel.png",
      result: { contents: [{ uri: "img://pixel.png", mimeType: "image/png", blob: pngBase64 }] }
    }
  ],
  tools: [
    {
      name: "echo",
      description: "Echoes.",
      inputSchema: { type: "object", properties: { text: { type: "string" } } },
      result: { content: [{ type: "text", text: "echoed" }] }
    },
    { name: "slow", description: "Never answers.", hang: true }
  ]
})

/** Every listed MCP request name of the fixture in arrival order. */
export const methods = (fixture: HttpFixture): ReadonlyArray<string> => fixture.requests.map((r) => r.method)

/** Waits until `condition` holds, checking every few milliseconds (after `poll`); fails after `timeoutMs`. */
export const waitFor = async (
  condition: () => boolean,
  what: string,
  timeoutMs = 20000,
  poll: () => Promise<void> = async () => {}
): Promise<void> => {
  const deadline = Date.now() + timeoutMs
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 5))
    await poll()
  }
}

export interface Harness {
  readonly binding: Binding
  readonly context: ToolHandlers.ToolContext
  readonly events: Array<LifecycleSink.LifecycleEvent>
  readonly fixture: HttpFixture
}

const entry = (url: string): ServerEntry.ServerEntry => ({
  name: "srv",
  transport: { _tag: "http", url, httpHeaders: {} },
  enabled: true,
  startupTimeoutSec: 60,
  toolTimeoutSec: 60,
  maxMessageBytes: 67108864
})

/** Starts the fixture on HTTP, binds a thread to it (the given profile) and runs `use`; all closed after. */
export const withHarness = <A>(
  profile: "codex" | "extended",
  use: (harness: Harness) => Promise<A>,
  fixtureSpec: FixtureSpec = spec()
): Effect.Effect<A> =>
  Effect.scoped(
    Effect.gen(function* () {
      const fixture = yield* Effect.acquireRelease(
        Effect.promise(() => startHttp(fixtureSpec)),
        (f) => Effect.promise(() => f.close())
      )
      const config = Config.empty
      const client = yield* ResourceClient.make({ config, servers: [entry(fixture.url)] }).pipe(
        Effect.provide(McpTransport.layer)
      )
      const set = yield* client.acquire
      yield* set.awaitAllSettled
      const context: ToolHandlers.ToolContext = {
        set,
        config,
        orchestratorMcpEnabled: true,
        truncation: config.truncation,
        profile
      }
      const events: Array<LifecycleSink.LifecycleEvent> = []
      const binding: Binding = { context, onLifecycle: (event) => events.push(event) }
      return yield* Effect.promise(() => use({ binding, context, events, fixture }))
    })
  )
