/**
 * The app-server's own secrets in its environment (docs/deploying.md, "Shared secrets"):
 * `MCP_RESOURCES_TOKEN_KEY` (the key OAuth tokens are sealed with) and `MCP_RESOURCES_CLUSTER_SECRET`
 * (the cluster's shared secret). They are taken out of `process.env` at start, so that no MCP server
 * and no command hook this process spawns inherits them (a server needing one gets it only through its
 * own `env`), and given to the app-server's `Config` reads through a provider instead.
 */
import { ConfigProvider, Effect } from "effect"

/** The environment variable holding the cluster's shared secret (required for a non-loopback `runner_address`). */
export const clusterSecretVariable = "MCP_RESOURCES_CLUSTER_SECRET"

/**
 * The variables withheld from spawned processes: the token key (thread-store's `TokenVault.keyVariable`,
 * named here so that the CLI does not load the store to withhold it) and the cluster's secret.
 */
export const variables: ReadonlyArray<string> = ["MCP_RESOURCES_TOKEN_KEY", clusterSecretVariable]

/**
 * Takes the secrets out of `env` (the process's, by default) and returns `effect` reading them through
 * its `Config` as before (the other variables still from the environment).
 */
export const withheld = <A, E, R>(
  effect: Effect.Effect<A, E, R>,
  env: NodeJS.ProcessEnv = process.env
): Effect.Effect<A, E, R> =>
  Effect.suspend(() => {
    const taken = new Map<string, string>()
    for (const name of variables) {
      const value = env[name]
      if (value === undefined) continue
      taken.set(name, value)
      delete env[name]
    }
    if (taken.size === 0) return effect
    return Effect.withConfigProvider(
      effect,
      ConfigProvider.fromMap(taken).pipe(ConfigProvider.orElse(() => ConfigProvider.fromEnv()))
    )
  })
