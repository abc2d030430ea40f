/** An in-memory `codex_apps` fixture behind the real ResourceClient, for the call-scoped read cases. */
import { connectInMemory, type FixtureSpec, type InMemoryFixture, type ToolSpec } from "@mcp-resources/fixtures"
import { Config } from "@mcp-resources/protocol"
import { ResourceClient, ServerEntry } from "@mcp-resources/resource-client"
import { Effect, Layer, type Scope } from "effect"
import { type OriginStore, layerFromResourceClient } from "../../src/OriginStore.js"

/** The widget of the O-27..O-37 cases. */
export const widget = "ui://w"

/** The contents `widget` reads as. */
export const widgetContents = [{ uri: widget, mimeType: "text/html", text: "<html>w</html>" }]

/** `codex_apps` with tool `t` (default `_meta {connector_id:"k"}`) and the plain widget `ui://w`. */
export const appsSpec = (meta: Record<string, unknown> = { connector_id: "k" }, extra: Array<ToolSpec> = []) =>
  ({
    name: "codex_apps",
    tools: [{ name: "t", _meta: meta }, ...extra],
    reads: [{ uri: widget, result: { contents: widgetContents } }]
  }) satisfies FixtureSpec

/** A config with the default apps server and the given `[apps.connectors]`. */
export const appsConfig = (connectors: Config.Config["apps"]["connectors"] = {}): Config.Config => ({
  ...Config.empty,
  apps: { serverName: "codex_apps", connectors }
})

/** Serves a spec in memory for the test's scope; every server it opened is closed with the scope. */
export const serve = (spec: FixtureSpec): Effect.Effect<InMemoryFixture, never, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.sync(() => connectInMemory(spec)),
    (fixture) => Effect.promise(() => fixture.closeAll())
  )

/** The setup with one in-memory `codex_apps` entry. */
export const setupOf = (fixture: InMemoryFixture, config: Config.Config = appsConfig()): ResourceClient.Setup => ({
  config,
  servers: [ServerEntry.memory("codex_apps", fixture.connect)]
})

/** The real ResourceClient over `setup` and the OriginStore reading its apps server name. */
export const clientLayer = (setup: ResourceClient.Setup) =>
  layerFromResourceClient.pipe(Layer.provideMerge(ResourceClient.layer(setup)))

/** Runs `body` against the real client over `setup`; the client closes before the fixtures. */
export const withClient = <A, E, R>(
  setup: ResourceClient.Setup,
  body: Effect.Effect<A, E, R>
): Effect.Effect<A, E, Exclude<R, OriginStore | ResourceClient.ResourceClient>> =>
  Effect.provide(body, clientLayer(setup))
