/**
 * What happens on a config reload (`config/mcpServer/reload`): the config file the server was started
 * with is read again, the resource client moves to its servers (unchanged ready ones are kept), and
 * the threads' resource subscriptions follow to the new set. Then the reload is announced
 * ({@link Announcer}): to nobody on an app-server alone ({@link layerAlone}); on a cluster, to the
 * other instances (Cluster.ts), each of which reloads its own config file the same way.
 */
import type { Config } from "@mcp-resources/protocol"
import { ResourceClient, ServerEntry } from "@mcp-resources/resource-client"
import { Context, Effect, Layer } from "effect"
import { AppOptions } from "./AppOptions.js"
import * as ConfigFile from "./ConfigFile.js"
import { ResourceSubscriptions } from "./ResourceSubscriptions.js"

/** Tells whoever must know that this server reloaded its config. */
export class Announcer extends Context.Tag("@mcp-resources/app-server/ConfigReload/Announcer")<
  Announcer,
  { readonly announce: Effect.Effect<void> }
>() {}

/** An app-server alone: nobody to tell. */
export const layerAlone: Layer.Layer<Announcer> = Layer.succeed(Announcer, { announce: Effect.void })

/** Reads the config file again and moves the servers and the threads' subscriptions to it; `why` goes to the log. */
export const fromFile = (
  why: string
): Effect.Effect<void, Config.ConfigError, AppOptions | ResourceClient.ResourceClient | ResourceSubscriptions> =>
  Effect.gen(function* () {
    const options = yield* AppOptions
    const client = yield* ResourceClient.ResourceClient
    const config = yield* ConfigFile.loadOrEmpty(options.configPath)
    yield* client.reload(ServerEntry.fromConfig(config))
    // the threads' resource subscriptions move to the new set
    yield* (yield* ResourceSubscriptions).follow
    yield* Effect.logInfo(`config reloaded${why}`).pipe(Effect.annotateLogs({ generation: yield* client.generation }))
  })

/** `config/mcpServer/reload`: the reload, then its announcement. */
export const reload: Effect.Effect<
  void,
  Config.ConfigError,
  AppOptions | ResourceClient.ResourceClient | ResourceSubscriptions | Announcer
> = Effect.zipRight(
  fromFile(""),
  Effect.flatMap(Announcer, (announcer) => announcer.announce)
)
