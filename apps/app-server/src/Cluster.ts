/**
 * A clustered app-server (`--cluster`, `[cluster] enabled = true`; docs/deploying.md): several
 * app-servers on one PostgreSQL store serving as one. What a clustered instance refuses to start
 * without (`settings`), and what the instances tell each other (`layer`): every append and removal
 * is announced through the store's feed (`ThreadFeed`, ids only), and each instance applies the
 * records of the threads it has loaded, sending them to its own subscribers (Threads.ts `noticed`);
 * a config reload on one instance is announced through the instance feed (`InstanceFeed`), and each
 * other instance reloads its own config file (ConfigReload.ts).
 *
 * MainLayer loads this module with `import()` only when the cluster is on: an app-server alone loads
 * none of it.
 */
import { type Config as AppConfig, Config as ConfigFile } from "@mcp-resources/protocol"
import type { ResourceClient } from "@mcp-resources/resource-client"
import { InstanceFeed, ThreadFeed, type ThreadStore } from "@mcp-resources/thread-store"
import { Config, Effect, Layer, Option, Redacted, Schema } from "effect"
import { type AppOptions, isLoopback } from "./AppOptions.js"
import * as ConfigReload from "./ConfigReload.js"
import * as HostSecrets from "./HostSecrets.js"
import type { ResourceSubscriptions } from "./ResourceSubscriptions.js"
import { Threads } from "./Threads.js"

/** A clustered start refused: the message says which setting is missing or wrong. */
export class ClusterError extends Schema.TaggedError<ClusterError>()("ClusterError", { message: Schema.String }) {}

/** The environment variable holding the cluster's shared secret (required for a non-loopback `runner_address`). */
export const secretVariable = HostSecrets.clusterSecretVariable

/** The host of a `HOST:PORT` runner address (brackets of an IPv6 address removed). */
const hostOf = (address: string): string => address.slice(0, address.lastIndexOf(":")).replace(/^\[|\]$/g, "")

/**
 * The `[cluster]` settings of a clustered start, checked: the store must be PostgreSQL (what the
 * instances share), and a runner address other instances reach from outside this host needs the
 * cluster's shared secret in {@link secretVariable}.
 */
export const settings = (config: AppConfig.Config): Effect.Effect<AppConfig.ClusterConfig, ClusterError> =>
  Effect.gen(function* () {
    const driver = config.persistence.driver
    if (driver !== "postgres")
      return yield* new ClusterError({
        message: `a clustered app-server (--cluster or [cluster] enabled = true) needs [persistence] driver = "postgres", the store its instances share; this config has driver = "${driver}"`
      })
    const cluster = { ...(config.cluster ?? ConfigFile.clusterDefaults), enabled: true }
    if (!isLoopback(hostOf(cluster.runnerAddress))) {
      const secret = yield* Config.option(Config.redacted(secretVariable)).pipe(
        Effect.orElseSucceed(() => Option.none<Redacted.Redacted>())
      )
      if (Option.isNone(secret) || Redacted.value(secret.value) === "")
        return yield* new ClusterError({
          message: `[cluster] runner_address = "${cluster.runnerAddress}" is not a loopback address: set ${secretVariable} to the cluster's shared secret (the same on every instance), or use a loopback address`
        })
    }
    return cluster
  })

/** A reload on this instance's own config file, announced by another instance (or possibly missed); a failure is logged. */
const reloadAnnounced = (why: string) =>
  ConfigReload.fromFile(why).pipe(
    Effect.catchAll((error) => Effect.logWarning(`the config reload ${why.trim()} failed: ${error.message}`))
  )

/**
 * The fan-out, from before the server serves its first request: the thread feed's notices go to the
 * thread registry, and the instance feed's config reloads of other instances to this one's own
 * reload; this instance's reloads are announced there (the {@link ConfigReload.Announcer}).
 */
export const layer: Layer.Layer<
  ConfigReload.Announcer,
  ThreadStore.ThreadStoreError,
  | Threads
  | ThreadFeed.ThreadFeed
  | InstanceFeed.InstanceFeed
  | AppOptions
  | ResourceClient.ResourceClient
  | ResourceSubscriptions
> = Layer.scoped(
  ConfigReload.Announcer,
  Effect.gen(function* () {
    const threads = yield* Threads
    const feed = yield* ThreadFeed.ThreadFeed
    yield* feed.subscribe(threads.noticed, threads.missed)
    const instances = yield* InstanceFeed.InstanceFeed
    // an id of this run of this instance: its own notices come back to it, and are passed over
    const instance = crypto.randomUUID()
    const context = yield* Effect.context<AppOptions | ResourceClient.ResourceClient | ResourceSubscriptions>()
    yield* instances.subscribe(
      (notice) =>
        notice.instance === instance
          ? Effect.void
          : reloadAnnounced(" as another instance announced").pipe(Effect.provide(context)),
      // notices were lost while listening again: one of them may have been a reload
      reloadAnnounced(" in case another instance's announcement was missed").pipe(Effect.provide(context))
    )
    yield* Effect.logInfo("clustered: following the other instances' records and config reloads")
    return ConfigReload.Announcer.of({
      announce: instances
        .announce({ kind: "configReloaded", instance })
        .pipe(
          Effect.catchAll((error) =>
            Effect.logWarning(`the other instances were not told of the config reload: ${error.message}`)
          )
        )
    })
  })
)
