/**
 * The only place layers are composed: config, persistence, the resource client, origins, skills,
 * threads, the tool host, the dispatcher and the transports, with the logger of `Logging.ts`.
 */
import { Config } from "@mcp-resources/protocol"
import { ResourceClient, ScopeChallenges, ServerEntry } from "@mcp-resources/resource-client"
import { OriginStore } from "@mcp-resources/resource-origins"
import { ExtensionSkills, Skills } from "@mcp-resources/skills"
import { InstanceFeed, ThreadFeed, ThreadStore } from "@mcp-resources/thread-store"
import { ResourceSearch } from "@mcp-resources/tool-handlers"
import { Effect, Layer } from "effect"
import * as AppOptions from "./AppOptions.js"
import * as CommandHooks from "./CommandHooks.js"
import * as ConfigFile from "./ConfigFile.js"
import * as ConfigReload from "./ConfigReload.js"
import * as Connections from "./Connections.js"
import * as Elicitation from "./Elicitation.js"
import { statusChangedLayer } from "./handlers/config.js"
import { scopeRequiredLayer } from "./handlers/oauth.js"
import * as OAuthLogins from "./OAuthLogins.js"
import { subscribersLayer } from "./handlers/skillsExtension.js"
import * as JsonRpcServer from "./JsonRpcServer.js"
import { loggerLayer } from "./Logging.js"
import * as ResourceSubscriptions from "./ResourceSubscriptions.js"
import * as StdioServerTransport from "./StdioServerTransport.js"
import * as StopSignal from "./StopSignal.js"
import * as ThreadBodies from "./ThreadBodies.js"
import * as Threads from "./Threads.js"
import * as TokenStorage from "./TokenStorage.js"
import * as ToolHost from "./ToolHost.js"

/** The logger of `Logging.ts` (kept here for callers that composed it from this module). */
export { loggerLayer }

/** The WebSocket transport, its module (and `ws`) loaded only when `--listen` asks for it. */
const webSocketLayer = Layer.unwrapEffect(
  Effect.promise(() => import("./WebSocketTransport.js")).pipe(Effect.map((module) => module.layer))
)

/** The clustered app-server's module (Cluster.ts), loaded only when the cluster is on. */
const loadCluster = Effect.promise(() => import("./Cluster.js"))

/**
 * The whole server for the given options: the config file is read at start (an invalid one fails the
 * layer). `overrides.store` replaces the store `[persistence]` chooses (tests wrap a store with it).
 */
export const layer = (
  options: AppOptions.ServerOptions,
  overrides: {
    readonly store?: Layer.Layer<ThreadStore.ThreadStore, ThreadStore.ThreadStoreError>
  } = {}
) =>
  Layer.unwrapEffect(
    Effect.gen(function* () {
      const config = yield* ConfigFile.loadOrEmpty(options.configPath)
      // the redirect of `[oauth] redirect_url` reaches the app-server on its WebSocket listener only
      if (config.oauth?.redirectUrl !== undefined && options.listen === undefined) {
        return yield* new Config.ConfigError({
          file: options.configPath ?? "",
          path: "oauth.redirect_url",
          problem:
            "needs --listen: the app-server receives the browser's redirect on its WebSocket listener, at that URL's path"
        })
      }
      // a clustered app-server (Cluster.ts): checked at start; the store announces its appends
      const cluster =
        options.cluster === true || config.cluster?.enabled === true
          ? yield* Effect.flatMap(loadCluster, (module) =>
              Effect.map(module.settings(config), (settings) => ({ ...module, settings }))
            )
          : undefined
      const persistence =
        overrides.store ??
        ThreadStore.layerFromConfig({
          driver: config.persistence.driver,
          url: config.persistence.url,
          dataDir: options.dataDir,
          ...(cluster !== undefined ? { notify: true } : {})
        })
      // the resource client answers MCP servers' elicitations through the router (Elicitation.ts); OAuth
      // tokens of HTTP servers live where TokenStorage.ts says (the data dir's file, or PostgreSQL)
      const router = Elicitation.layer.pipe(Layer.provideMerge(Connections.layer))
      // (a server's `403 insufficient_scope` is announced through ScopeChallenges: scopeRequiredLayer)
      const client = ResourceClient.layer(ServerEntry.fromConfig(config)).pipe(
        Layer.provideMerge(router),
        Layer.provideMerge(
          TokenStorage.layer({
            driver: config.persistence.driver,
            url: config.persistence.url,
            dataDir: options.dataDir,
            clustered: cluster !== undefined
          })
        ),
        Layer.provideMerge(ScopeChallenges.layer)
      )
      const services = Layer.mergeAll(
        OriginStore.layerFromResourceClient,
        Skills.layer,
        persistence,
        AppOptions.layer(options),
        StopSignal.layer,
        ResourceSearch.layer,
        OAuthLogins.OAuthLogins.layer
      ).pipe(Layer.provideMerge(client))
      const extension = Layer.mergeAll(subscribersLayer, scopeRequiredLayer, statusChangedLayer).pipe(
        Layer.provideMerge(ExtensionSkills.layer),
        Layer.provideMerge(services)
      )
      // where changes are detected: at every loaded thread, or on a cluster at each thread's owner only
      const watched = (cluster === undefined ? ResourceSubscriptions.layer : ResourceSubscriptions.layerOnOwner).pipe(
        Layer.provideMerge(extension)
      )
      // the bodies threads read: the body store opens at the first read that keeps one, not at start-up
      const bodied = ThreadBodies.layer.pipe(Layer.provideMerge(watched))
      const registry = (cluster !== undefined ? Threads.layerRelaying : Threads.layer).pipe(Layer.provideMerge(bodied))
      // a config reload is announced to the other instances of a cluster (Cluster.ts), to nobody alone
      const threads =
        cluster === undefined
          ? Layer.mergeAll(registry, ConfigReload.layerAlone, OAuthLogins.layerAlone)
          : cluster.layer.pipe(
              Layer.provideMerge(registry),
              Layer.provide(ThreadFeed.layerFromConfig({ url: config.persistence.url })),
              Layer.provide(InstanceFeed.layerFromConfig({ url: config.persistence.url }))
            )
      // what a tool call runs with: its items recorded in its thread, the config's hooks, the audit
      const host = ToolHost.layer.pipe(Layer.provideMerge(Layer.merge(threads, CommandHooks.layer)))
      const bound = Elicitation.layerBind.pipe(Layer.provideMerge(host))
      // a clustered app-server runs each thread's owned requests on the thread's owner (Cluster.ts): the
      // dispatcher sends them there, and the thread entities run those sent to this instance
      const server =
        cluster === undefined
          ? JsonRpcServer.layer.pipe(Layer.provideMerge(bound))
          : cluster.entities.pipe(
              Layer.provideMerge(JsonRpcServer.layer),
              Layer.provideMerge(cluster.owners(cluster.settings, config.persistence.url)),
              Layer.provideMerge(bound)
            )
      // the listener listens before standard input is read: a client that initialized over stdio can
      // reach it at once (the redirect of `[oauth] redirect_url` too)
      const transports = (options.stdio ? StdioServerTransport.layer : Layer.empty).pipe(
        Layer.provideMerge(options.listen !== undefined ? webSocketLayer : Layer.empty)
      )
      return transports.pipe(Layer.provideMerge(server))
    })
  ).pipe(Layer.provide(loggerLayer))
