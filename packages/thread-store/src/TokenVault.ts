/**
 * The OAuth state of HTTP servers kept in PostgreSQL for every app-server on the database, encrypted
 * at rest: each login (server and URL) is one row sealed with AES-256-GCM under the key of
 * `MCP_RESOURCES_TOKEN_KEY` (32 random bytes, base64), a fresh nonce for every write. The vault holds
 * text (what the resource client's `TokenStore.fromText` stores in it), read from the table at every
 * use, and a refresh lock across processes (a PostgreSQL advisory lock) so that one process at a time
 * spends a rotating refresh token. No error names a token, the key or the database url.
 */
import * as Reactivity from "@effect/experimental/Reactivity"
import { Config, Context, Effect, Layer, Option, Redacted } from "effect"
import * as Errors from "./internal/error.js"
import type { TokenVaultError } from "./internal/error.js"
import * as Persistence from "./internal/persistence.js"
import * as Sealing from "./internal/sealing.js"
import * as Vault from "./internal/vault.js"

/** The vault's one error class. */
export { TokenVaultError } from "./internal/error.js"

/** Which login a record is: the server's name and its URL. */
export interface Key {
  readonly server: string
  readonly url: string
}

/** The vault: sealed text per server and URL, and the refresh lock. */
export interface Service {
  /** What the errors name (the table). */
  readonly location: string
  /** The text stored for this server and URL, opened. */
  readonly read: (key: Key) => Effect.Effect<Option.Option<string>, TokenVaultError>
  /** Every text stored for this server (one per URL), opened. */
  readonly list: (
    server: string
  ) => Effect.Effect<ReadonlyArray<{ readonly url: string; readonly text: string }>, TokenVaultError>
  /** Replaces the text of this server and URL (sealed with a fresh nonce). */
  readonly write: (key: Key, text: string) => Effect.Effect<void, TokenVaultError>
  /** Removes every URL of the server; true when something was removed. */
  readonly remove: (server: string) => Effect.Effect<boolean, TokenVaultError>
  /**
   * The refresh lock of this login across every process on the database; answers the release. A
   * holder that dies releases it with its connection; a waiter gives up after {@link lockWaitSeconds}.
   */
  readonly lock: (key: Key) => Effect.Effect<Effect.Effect<void>, TokenVaultError>
}

/** The TokenVault service tag. Layers: `layerPg`, `layerFromConfig`. */
export class TokenVault extends Context.Tag("@mcp-resources/thread-store/TokenVault")<TokenVault, Service>() {}

/** The environment variable of the key: `MCP_RESOURCES_TOKEN_KEY`. */
export const keyVariable = Sealing.keyVariable

/** The table the vault keeps its rows in (`oauth_tokens`). */
export const table = Vault.table

/** How long a refresh waits for another process's refresh lock on the same login (15 s). */
export const lockWaitSeconds = Vault.lockWaitSeconds

/**
 * The key of `text` (base64 of 32 bytes); another length, or text that is not base64, fails naming
 * `MCP_RESOURCES_TOKEN_KEY` and never quoting the value.
 */
export const parseKey = (text: string): Effect.Effect<Redacted.Redacted<Uint8Array>, TokenVaultError> => {
  const parsed = Sealing.parseKey(text)
  return "key" in parsed
    ? Effect.succeed(Redacted.make(parsed.key))
    : Effect.fail(new Errors.TokenVaultError({ message: `cannot use the token key: ${parsed.refused}` }))
}

/** The key of `MCP_RESOURCES_TOKEN_KEY` (read through `Config`), or None when the variable is not set or empty. */
export const keyFromConfig: Effect.Effect<Option.Option<Redacted.Redacted<Uint8Array>>, TokenVaultError> = Effect.gen(
  function* () {
    const value = yield* Config.option(Config.redacted(keyVariable)).pipe(
      Effect.mapError(() => new Errors.TokenVaultError({ message: `cannot read ${keyVariable}` }))
    )
    // an empty variable counts as unset, as an empty DATABASE_URL does
    if (Option.isNone(value) || Redacted.value(value.value).trim() === "") return Option.none()
    return Option.some(yield* parseKey(Redacted.value(value.value)))
  }
)

const loadPg = Effect.tryPromise({
  try: () => import("./internal/tokens-pg.js"),
  catch: (cause) => Errors.vaultFailure("cannot load the PostgreSQL driver", Errors.describe(cause))
})

/** The vault on the PostgreSQL database of `url`, sealing with `key`; its table is created when missing. */
export const layerPg = (options: {
  readonly url: string | Redacted.Redacted
  readonly key: Redacted.Redacted<Uint8Array>
}): Layer.Layer<TokenVault, TokenVaultError> =>
  Layer.scoped(
    TokenVault,
    Effect.flatMap(loadPg, (driver) =>
      driver.makePg(Redacted.isRedacted(options.url) ? options.url : Redacted.make(options.url), options.key)
    )
  ).pipe(Layer.provide(Reactivity.layer))

/**
 * The vault of `[persistence] driver = "postgres"`: on `url` (else `DATABASE_URL`), with the key of
 * `MCP_RESOURCES_TOKEN_KEY`; a missing or invalid key fails naming the variable.
 */
export const layerFromConfig = (options: {
  readonly url?: string | undefined
}): Layer.Layer<TokenVault, TokenVaultError> =>
  Layer.unwrapEffect(
    Effect.gen(function* () {
      const key = yield* keyFromConfig
      if (Option.isNone(key)) {
        return yield* Effect.fail(
          new Errors.TokenVaultError({ message: `cannot open the token store: ${keyVariable} is not set` })
        )
      }
      const url = yield* Persistence.pgUrl(options, "cannot open the token store").pipe(
        Effect.mapError((error) => new Errors.TokenVaultError({ message: error.message }))
      )
      return layerPg({ url, key: key.value })
    })
  )
