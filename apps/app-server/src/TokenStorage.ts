/**
 * Where the app-server and the CLI keep the OAuth state of HTTP servers, chosen once from
 * `[persistence]` and the environment (docs/oauth.md, "Where tokens are kept"):
 * - `driver = "postgres"` with `MCP_RESOURCES_TOKEN_KEY` set: in PostgreSQL, sealed with that key
 *   (thread-store's `TokenVault`), shared by every app-server and CLI on the database: a login
 *   through one serves all, and one process at a time refreshes a login (an advisory lock);
 * - `driver = "postgres"` without the key: in `{dataDir}/oauth-tokens.json`, this instance's own,
 *   except for a clustered app-server, which refuses to start (its instances must share logins);
 * - any other driver: in `{dataDir}/oauth-tokens.json` (the key, if set, is not used).
 * An invalid key fails naming the variable, never quoting it.
 */
import { TokenStore } from "@mcp-resources/resource-client"
import { TokenVault } from "@mcp-resources/thread-store"
import { Effect, Layer, Option } from "effect"

/** What the choice depends on: `[persistence]`, the data dir, and whether the app-server runs clustered. */
export interface Options {
  readonly driver: "sqlite" | "postgres" | "memory"
  readonly url?: string | undefined
  readonly dataDir: string
  /** A clustered app-server (`[cluster] enabled` or `--cluster`) needs tokens in PostgreSQL. */
  readonly clustered?: boolean
}

/** The message of a clustered app-server started without the key. */
export const keyRequiredWhenClustered = `a clustered app-server keeps OAuth tokens in PostgreSQL for every instance: set ${TokenVault.keyVariable} (32 random bytes in base64, such as the output of \`openssl rand -base64 32\`), the same on every instance`

const toStoreError = (error: { readonly message: string }) => new TokenStore.TokenStoreError({ message: error.message })

/** The TokenStore of these options (see the module comment). */
export const layer = (options: Options): Layer.Layer<TokenStore.TokenStore, TokenStore.TokenStoreError> =>
  Layer.unwrapEffect(
    Effect.gen(function* () {
      const file = TokenStore.layerDataDir(options.dataDir)
      if (options.driver !== "postgres") return file
      const key = yield* Effect.mapError(TokenVault.keyFromConfig, toStoreError)
      if (Option.isNone(key)) {
        return options.clustered === true
          ? yield* Effect.fail(new TokenStore.TokenStoreError({ message: keyRequiredWhenClustered }))
          : file
      }
      return Layer.effect(TokenStore.TokenStore, Effect.flatMap(TokenVault.TokenVault, TokenStore.fromText)).pipe(
        Layer.provide(TokenVault.layerFromConfig({ url: options.url })),
        Layer.mapError(toStoreError)
      )
    })
  )
