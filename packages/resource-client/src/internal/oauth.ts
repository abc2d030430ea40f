/**
 * OAuth for streamable HTTP servers, on the SDK's client support (`auth`: discovery from the 401's
 * protected resource metadata, dynamic registration, authorization code with PKCE and the resource
 * indicator, refresh). This module supplies what the SDK leaves to the host: an `OAuthClientProvider`
 * over the `TokenStore` (one session per connection or login) and the policy of a connection: it never
 * starts an interactive login; it refreshes a token before it expires and on a 401, and when it has
 * no usable token it marks the connection as needing a login (the start-up message then says so).
 */
import { Messages } from "@mcp-resources/protocol"
import type {
  AuthProvider,
  FetchLike,
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthClientProvider,
  OAuthDiscoveryState,
  OAuthTokens,
  UnauthorizedError
} from "@modelcontextprotocol/client"
import { type Effect, Option, Runtime } from "effect"
import type * as TokenStore from "../TokenStore.js"
import type { Sdk } from "./sdk.js"

/** What a session needs: the store, the key, the runtime its effects run on and a configured client. */
export interface OAuthContext {
  readonly key: TokenStore.Key
  readonly store: TokenStore.Service
  readonly runtime: Runtime.Runtime<never>
  /** `oauth_client_id` (a pre-registered client), with the secret of `oauth_client_secret_env_var`. */
  readonly client?: { readonly clientId: string; readonly clientSecret?: string }
}

/** A token expiring within this much is refreshed before it is sent. */
export const refreshMarginMillis = 60_000

/** The client's name in a dynamic registration. */
export const clientName = "mcp-resources"

/** The mutable state of one connection or login. */
export interface Session {
  entry: TokenStore.Entry
  redirectUrl: string
  verifier?: string
  authorizationUrl?: URL
  state?: string
}

const run = <A, E>(ctx: OAuthContext, effect: Effect.Effect<A, E>): Promise<A> =>
  Runtime.runPromise(ctx.runtime)(effect)

/** The metadata of a dynamic registration: a native app with a loopback redirect and refresh tokens. */
export const clientMetadata = (redirectUrl: string): OAuthClientMetadata => ({
  client_name: clientName,
  redirect_uris: [redirectUrl],
  grant_types: ["authorization_code", "refresh_token"],
  response_types: ["code"]
})

const withExpiry = (tokens: OAuthTokens & { issuer?: string | undefined }, now: number): TokenStore.Tokens => {
  const { access_token, token_type, refresh_token, scope, expires_in } = tokens
  return {
    access_token,
    token_type,
    ...(refresh_token !== undefined ? { refresh_token } : {}),
    ...(scope !== undefined ? { scope } : {}),
    ...(expires_in !== undefined ? { expires_in, expires_at: now + expires_in * 1000 } : {}),
    ...(tokens.issuer !== undefined ? { issuer: tokens.issuer } : {})
  }
}

/**
 * The SDK's provider over a session. `persist` writes each change at once (a connection's refreshed
 * tokens must survive it; a refresh token may be single-use); a login persists only when it completes.
 */
export const makeProvider = (ctx: OAuthContext, session: Session, mode: "connect" | "login"): OAuthClientProvider => {
  const persist = (): Promise<void> =>
    mode === "connect" ? run(ctx, ctx.store.set(ctx.key, session.entry)) : Promise.resolve()
  const update = (change: Partial<TokenStore.Entry>, removed: ReadonlyArray<keyof TokenStore.Entry> = []) => {
    const next: Record<string, unknown> = { ...session.entry, ...change }
    for (const key of removed) delete next[key]
    session.entry = next as TokenStore.Entry
    return persist()
  }
  const provider: OAuthClientProvider = {
    get redirectUrl() {
      return session.redirectUrl
    },
    get clientMetadata() {
      return clientMetadata(session.redirectUrl)
    },
    clientInformation: () =>
      ctx.client !== undefined
        ? {
            client_id: ctx.client.clientId,
            ...(ctx.client.clientSecret !== undefined ? { client_secret: ctx.client.clientSecret } : {})
          }
        : (session.entry.client as OAuthClientInformationMixed | undefined),
    tokens: () => session.entry.tokens,
    saveTokens: (tokens) => update({ tokens: withExpiry(tokens, Date.now()) }),
    redirectToAuthorization: (url) => {
      session.authorizationUrl = url
    },
    saveCodeVerifier: (verifier) => {
      session.verifier = verifier
    },
    codeVerifier: () => {
      if (session.verifier === undefined) throw new Error("no PKCE code verifier: this login did not start here")
      return session.verifier
    },
    saveDiscoveryState: (state) => update({ discovery: state }),
    discoveryState: () => session.entry.discovery as OAuthDiscoveryState | undefined,
    invalidateCredentials: (scope) => {
      if (scope === "verifier") {
        delete session.verifier
        return
      }
      const removed: Array<keyof TokenStore.Entry> =
        scope === "all"
          ? ["tokens", "client", "discovery"]
          : scope === "client"
            ? ["client"]
            : scope === "tokens"
              ? ["tokens"]
              : ["discovery"]
      return update({}, removed)
    }
  }
  if (mode === "login") {
    provider.state = () => session.state ?? ""
    // a connection never registers a client: only a login does (with its redirect URI)
    if (ctx.client === undefined) {
      provider.saveClientInformation = (information) => {
        session.entry = { ...session.entry, client: information as unknown as Record<string, unknown> }
      }
    }
  }
  return provider
}

/** What a connection's auth reports to its trace. */
export interface AuthMark {
  /** The server has no usable token: a login is needed. */
  required: boolean
}

const loginRequired = (sdk: Sdk["client"], ctx: OAuthContext, mark: AuthMark): UnauthorizedError => {
  mark.required = true
  return new sdk.UnauthorizedError(Messages.authorizationRequired(ctx.key.server))
}

/**
 * The auth of a connection (the transport's `authProvider`): the stored access token on every
 * request, refreshed first when it expires within {@link refreshMarginMillis}; on a 401 one refresh
 * (the transport then retries once). No token, no refresh token, or a refresh the authorization
 * server refuses: the request fails and `mark.required` is set.
 */
export const connectionAuth = (
  ctx: OAuthContext,
  serverUrl: URL,
  fetchFn: FetchLike,
  mark: AuthMark,
  sdk: Sdk["client"]
): AuthProvider => {
  const session: Session = { entry: {}, redirectUrl: "http://127.0.0.1/callback" }
  const provider = makeProvider(ctx, session, "connect")
  const reload = async () => {
    const stored = await run(ctx, ctx.store.get(ctx.key))
    session.entry = Option.getOrElse(stored, () => ({}))
    if (session.entry.redirect_url !== undefined) session.redirectUrl = session.entry.redirect_url
  }
  let refreshing: Promise<void> | undefined
  /** The access token of the last request, or `undefined` before one. */
  let sent: string | undefined
  const expiring = (tokens: TokenStore.Tokens) =>
    tokens.expires_at !== undefined && tokens.expires_at - Date.now() < refreshMarginMillis
  /**
   * Refreshes `stale` (the token about to expire, or the one that got a 401) under the store's lock:
   * when the stored tokens read under the lock are other, unexpired ones, another connection or
   * process refreshed first, and they are used as they are.
   */
  const refresh = (
    stale: string | undefined,
    options: { resourceMetadataUrl?: URL; scope?: string; fetchFn?: FetchLike }
  ) => {
    refreshing ??= exclusive(ctx, async () => {
      await reload()
      const tokens = session.entry.tokens
      if (tokens !== undefined && tokens.access_token !== stale && !expiring(tokens)) return
      if (tokens?.refresh_token === undefined) throw loginRequired(sdk, ctx, mark)
      let result: string
      try {
        result = await sdk.auth(provider, { serverUrl, fetchFn, ...options })
      } catch {
        throw loginRequired(sdk, ctx, mark)
      }
      // anything but a refreshed token (the flow wants the user's browser) needs a login
      if (result !== "AUTHORIZED") throw loginRequired(sdk, ctx, mark)
    }).finally(() => {
      refreshing = undefined
    })
    return refreshing
  }
  return {
    token: async () => {
      if (refreshing !== undefined) await refreshing
      await reload()
      const tokens = session.entry.tokens
      if (tokens === undefined) return undefined
      if (expiring(tokens)) await refresh(tokens.access_token, {})
      mark.required = false
      sent = session.entry.tokens?.access_token
      return sent
    },
    onUnauthorized: async (context) => {
      const { resourceMetadataUrl, scope } = sdk.extractWWWAuthenticateParams(context.response)
      await refresh(sent, {
        ...(resourceMetadataUrl !== undefined ? { resourceMetadataUrl } : {}),
        ...(scope !== undefined ? { scope } : {}),
        fetchFn: context.fetchFn
      })
    }
  }
}

/**
 * Runs `body` holding the store's lock (across processes for the file store; see
 * `TokenStore.Service.lock`), or as it is when the store has none.
 */
const exclusive = async <A>(ctx: OAuthContext, body: () => Promise<A>): Promise<A> => {
  const lock = ctx.store.lock
  if (lock === undefined) return body()
  const release = await run(ctx, lock(ctx.key))
  try {
    return await body()
  } finally {
    await run(ctx, release)
  }
}

/** The auth of a connection without a token store: any 401 means a login is needed. */
export const storelessAuth = (sdk: Sdk["client"], server: string, mark: AuthMark): AuthProvider => ({
  token: () => Promise.resolve(undefined),
  onUnauthorized: () => {
    mark.required = true
    return Promise.reject(new sdk.UnauthorizedError(Messages.authorizationRequired(server)))
  }
})
