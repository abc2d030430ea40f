/**
 * The adapters' two sources on a real fixture MCP server over streamable HTTP, for the adapter tests:
 * a thread binding in this process, and a thread of the real app-server (its built bin, spawned over
 * stdio through the typed client) whose config names the same fixture.
 */
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"
import { AppServerClient } from "@mcp-resources/app-server-client"
import { type HttpFixture, type FixtureSpec, startHttp } from "@mcp-resources/fixtures"
import { Config } from "@mcp-resources/protocol"
import { McpTransport, ResourceClient, type ServerEntry } from "@mcp-resources/resource-client"
import type { LifecycleSink, ToolHandlers } from "@mcp-resources/tool-handlers"
import { Effect } from "effect"
import type { Binding } from "../src/Bridge.js"
import type { Source } from "../src/internal/toolSource.js"

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

/**
 * Waits until `condition` holds, checking every few milliseconds (after `poll`); fails after `timeoutMs`.
 * Polled: its uses wait for a tool catalog refreshed after `tools/list_changed`, which changes no server
 * status and so is announced by no event (`mcpServer/statusChanged` covers statuses only).
 */
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
  readonly binding: Source
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
      return yield* Effect.promise(() => use({ binding, events, fixture }))
    })
  )

/** The built app-server entry point of this checkout (turbo builds it before these tests). */
export const appServerMain = fileURLToPath(new URL("../../../apps/app-server/dist/main.js", import.meta.url))

/** A fresh temporary directory, removed when the scope closes. */
export const tempDir = Effect.acquireRelease(
  Effect.sync(() => Fs.mkdtempSync(Path.join(Os.tmpdir(), "adapters-test-"))),
  (dir) => Effect.sync(() => Fs.rmSync(dir, { recursive: true, force: true }))
)

/**
 * Writes an app-server config naming the fixture `name` at `url`, and returns the stdio options that
 * start the built app-server on it with a fresh data dir.
 */
export const appServerOptions = (servers: Record<string, string>) =>
  Effect.gen(function* () {
    if (!Fs.existsSync(appServerMain)) {
      return yield* Effect.dieMessage(`${appServerMain} is not built: run \`npx turbo run build\` first`)
    }
    const dir = yield* tempDir
    const config = Path.join(dir, "config.json")
    const mcpServers = Object.fromEntries(Object.entries(servers).map(([name, url]) => [name, { url }]))
    Fs.writeFileSync(config, JSON.stringify({ mcp_servers: mcpServers }))
    return {
      command: process.execPath,
      args: [appServerMain, "--data-dir", Path.join(dir, "data"), "--config", config],
      env: { ...process.env, MCP_RESOURCES_LOG: "error" },
      stderr: "ignore" as const
    }
  })

/**
 * Starts the fixture on HTTP and a real app-server whose config names it `srv`, starts a thread of the
 * given profile there and runs `use` with that thread as the source; the app-server ends after.
 */
export const withAppServer = <A>(
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
      const client = yield* AppServerClient.stdio(yield* appServerOptions({ srv: fixture.url }))
      yield* client.initialize({ name: "adapters-test" })
      const { thread } = yield* client.request("thread/start", { ephemeral: true, config: { toolProfile: profile } })
      const events: Array<LifecycleSink.LifecycleEvent> = []
      const binding: Source = { client, threadId: thread.id, onLifecycle: (event) => events.push(event) }
      return yield* Effect.promise(() => use({ binding, events, fixture }))
    }).pipe(Effect.orDie)
  )

/** Both sources, for tests that run the same model script over each. */
export const sources = [
  { name: "a thread binding", withSource: withHarness },
  { name: "an app-server thread", withSource: withAppServer }
] as const
