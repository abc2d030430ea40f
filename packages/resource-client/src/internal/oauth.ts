/**
 * OAuth for streamable HTTP servers, on the SDK's client support (`auth`: discovery from the 401's
 * protected resource metadata, dynamic registration, authorization code with PKCE and the resource
 * indicator, refresh). This module supplies what the SDK leaves to the host: an `OAuthClientProvider`
 * over the `TokenStore` (one session per connection or login) and the policy of a connection: it never
 * starts an interactive login; it refreshes a token before it expires and on a 401, and when it has
 * no usable token it marks the connection as needing a login (the start-up message then says so).
 * An entry with a non-interactive grant (`oauth_grant`, see `oauthGrant.ts`) asks for its tokens
 * itself, before the first request, before they expire and on a 401. A `403 insufficient_scope`
 * (scope step-up) is handled by {@link stepUpFetch}: a non-interactive grant asks for a token with
 * the union of the scopes and sends the request once more; otherwise the scopes are recorded in the
 * store (the next login asks for them) and announced through `ScopeChallenges`.
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
import { Effect, Option, Runtime } from "effect"
import type * as ScopeChallenges from "../ScopeChallenges.js"
import type * as TokenStore from "../TokenStore.js"
import { type GrantCredentials, requestTokens } from "./oauthGrant.js"
import type { Sdk } from "./sdk.js"

/** What a session needs: the store, the key, the runtime its effects run on and a configured client. */
export interface OAuthContext {
  readonly key: TokenStore.Key
  readonly store: TokenStore.Service
  readonly runtime: Runtime.Runtime<never>
  /** `oauth_client_id` (a pre-registered client), with the secret of `oauth_client_secret_env_var`. */
  readonly client?: { readonly clientId: string; readonly clientSecret?: string }
  /** `oauth_client_metadata_url`: the client id where the authorization server accepts metadata documents. */
  readonly clientMetadataUrl?: string
  /** The credentials of a non-interactive grant (`oauth_grant`); absent: a login in a browser. */
  readonly grant?: GrantCredentials
  /** Where a `403 insufficient_scope` is announced (the app-server's `mcpServer/oauth/scopeRequired`). */
  readonly challenges?: ScopeChallenges.Service
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

/** The scopes of space-separated `scopes`, once each, in order. */
export const scopeList = (...scopes: ReadonlyArray<string | undefined>): ReadonlyArray<string> => {
  const seen = new Set<string>()
  for (const scope of scopes) for (const token of (scope ?? "").split(/\s+/)) if (token !== "") seen.add(token)
  return [...seen]
}

/** The union of space-separated scopes, or undefined when there is none. */
export const scopeUnion = (...scopes: ReadonlyArray<string | undefined>): string | undefined => {
  const list = scopeList(...scopes)
  return list.length === 0 ? undefined : list.join(" ")
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

/**
 * The tokens to store, with their expiry. A response without `scope` granted what was asked for
 * (RFC 6749 section 3.3): `requested`, else the scope of the tokens it replaces.
 */
export const withExpiry = (
  tokens: OAuthTokens & { issuer?: string | undefined },
  now: number,
  requested?: string
): TokenStore.Tokens => {
  const { access_token, token_type, refresh_token, expires_in } = tokens
  const scope = tokens.scope ?? requested
  return {
    access_token,
    token_type,
    ...(refresh_token !== undefined ? { refresh_token } : {}),
    ...(scope !== undefined && scope !== "" ? { scope } : {}),
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
    saveTokens: (tokens) =>
      update({
        tokens: withExpiry(
          tokens,
          Date.now(),
          session.authorizationUrl?.searchParams.get("scope") ?? session.entry.tokens?.scope
        )
      }),
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
    // a pre-registered client comes first; a metadata document only where the server accepts one
    if (ctx.client === undefined && ctx.clientMetadataUrl !== undefined) {
      provider.clientMetadataUrl = ctx.clientMetadataUrl
    }
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
  /** Why the entry's non-interactive grant got no token (the start-up and request failures say so). */
  failure?: string | undefined
  /** Whether the entry logs in in a browser (else a non-interactive grant asks for its tokens). */
  readonly interactive: boolean
  /**
   * Told when a request finds that a login is needed (no token, no refresh token, a refused
   * refresh): the connection that set it is then unusable until a login.
   */
  onRequired?: (() => void) | undefined
}

/** Marks that a login is needed and tells the connection. */
const requireLogin = (mark: AuthMark): void => {
  mark.required = true
  mark.onRequired?.()
}

const loginRequired = (sdk: Sdk["client"], ctx: OAuthContext, mark: AuthMark): UnauthorizedError => {
  requireLogin(mark)
  return new sdk.UnauthorizedError(Messages.authorizationRequired(ctx.key.server))
}

/** A connection's auth: the transport's `authProvider`, and the step-up around its fetch. */
export interface ConnectionAuth {
  readonly authProvider: AuthProvider
  /** Wraps the transport's fetch: a `403 insufficient_scope` is stepped up (see {@link stepUpFetch}). */
  readonly fetch: (base: FetchLike) => FetchLike
}

/**
 * The auth of a connection (the transport's `authProvider`): the stored access token on every
 * request, refreshed first when it expires within {@link refreshMarginMillis}; on a 401 one refresh
 * (the transport then retries once). No token, no refresh token, or a refresh the authorization
 * server refuses: the request fails and `mark.required` is set. With a non-interactive grant the
 * tokens are asked for (before the first request, before they expire, on a 401) instead; a grant
 * that gets none fails the request with the authorization server's reason (`mark.failure`).
 */
export const connectionAuth = (
  ctx: OAuthContext,
  serverUrl: URL,
  fetchFn: FetchLike,
  mark: AuthMark,
  sdk: Sdk["client"]
): ConnectionAuth => {
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
   * A new token of the non-interactive grant, stored at once: for the scopes granted before and
   * `scope` (a challenge's, or a step-up's union). Its requests go out on the plain outgoing fetch,
   * not the MCP transport's (the authorization server is not the MCP server).
   */
  const grantTokens = async (credentials: GrantCredentials, options: { resourceMetadataUrl?: URL; scope?: string }) => {
    const previous = session.entry.tokens
    const scope = scopeUnion(previous?.scope, options.scope)
    try {
      const granted = await requestTokens(sdk, credentials, {
        server: ctx.key.server,
        serverUrl,
        fetchFn,
        scope,
        resourceMetadataUrl: options.resourceMetadataUrl,
        discovery:
          options.resourceMetadataUrl === undefined ? (session.entry.discovery as OAuthDiscoveryState) : undefined,
        previous
      })
      if (granted.refreshRefused !== undefined) {
        await run(
          ctx,
          Effect.logInfo(
            `MCP server '${ctx.key.server}': the refresh token was refused (${granted.refreshRefused}); a new token was requested`
          )
        )
      }
      const { required_scope: _done, ...rest } = session.entry
      const tokens = withExpiry(granted.tokens, Date.now(), scope ?? previous?.scope)
      const stillRequired = scopeList(session.entry.required_scope).filter((s) => !scopeList(tokens.scope).includes(s))
      session.entry = {
        ...rest,
        tokens,
        discovery: granted.discovery,
        ...(stillRequired.length > 0 ? { required_scope: stillRequired.join(" ") } : {})
      }
      await run(ctx, ctx.store.set(ctx.key, session.entry))
      mark.failure = undefined
    } catch (error) {
      mark.failure = error instanceof Error ? error.message : String(error)
      throw error
    }
  }
  /**
   * Refreshes `stale` (the token about to expire, or the one that got a 401) under the store's lock:
   * when the stored tokens read under the lock are other, unexpired ones, another connection or
   * process refreshed first, and they are used as they are. `scope` (a step-up) always asks anew.
   */
  const refresh = (
    stale: string | undefined,
    options: { resourceMetadataUrl?: URL; scope?: string; fetchFn?: FetchLike }
  ) => {
    refreshing ??= exclusive(ctx, async () => {
      await reload()
      const tokens = session.entry.tokens
      // a grant asks anew for a wider scope (a refresh cannot widen one, RFC 6749 section 6)
      const widens =
        ctx.grant !== undefined &&
        options.scope !== undefined &&
        sdk.isStrictScopeSuperset(options.scope, tokens?.scope)
      if (tokens !== undefined && tokens.access_token !== stale && !expiring(tokens) && !widens) return
      if (ctx.grant !== undefined) return grantTokens(ctx.grant, options)
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
  const authProvider: AuthProvider = {
    token: async () => {
      if (refreshing !== undefined) await refreshing
      await reload()
      const tokens = session.entry.tokens
      if (tokens === undefined) {
        // a non-interactive grant asks for its first token before the first request
        if (ctx.grant === undefined) return undefined
        await refresh(undefined, {})
      } else if (expiring(tokens)) await refresh(tokens.access_token, {})
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
  /** Records the scopes of a `403 insufficient_scope` for the next login and announces them when they are new. */
  const recordRequired = async (scope: string | undefined) => {
    if (scope === undefined || scope === "") return
    const stored = Option.getOrElse(await run(ctx, ctx.store.get(ctx.key)), (): TokenStore.Entry => ({}))
    const required = scopeUnion(stored.required_scope, scope)!
    if (required === stored.required_scope) return
    await run(ctx, ctx.store.set(ctx.key, { ...stored, required_scope: required }))
    if (ctx.challenges !== undefined) {
      await run(ctx, ctx.challenges.publish({ server: ctx.key.server, requiredScopes: scopeList(required) }))
    }
  }
  /** A non-interactive grant asks for a token with the union of the scopes; answers it (undefined: no step-up). */
  const stepUp = async (scope: string | undefined, resourceMetadataUrl: URL | undefined) => {
    if (ctx.grant === undefined) return undefined
    await reload()
    const union = scopeUnion(session.entry.tokens?.scope, scope)
    if (union === undefined || !sdk.isStrictScopeSuperset(union, session.entry.tokens?.scope)) return undefined
    await refresh(sent, { scope: union, ...(resourceMetadataUrl !== undefined ? { resourceMetadataUrl } : {}) })
    sent = session.entry.tokens?.access_token
    return sent
  }
  return { authProvider, fetch: (base) => stepUpFetch(sdk, base, stepUp, recordRequired) }
}

/** The challenge of a `403 insufficient_scope` answer, else undefined. */
const insufficientScope = (sdk: Sdk["client"], response: Response) => {
  if (response.status !== 403) return undefined
  const challenge = sdk.extractWWWAuthenticateParams(response)
  return challenge.error === "insufficient_scope" ? challenge : undefined
}

/**
 * Scope step-up (MCP authorization, "Scope challenge handling"): a `403 insufficient_scope` answer is
 * stepped up once: `stepUp` (a non-interactive grant) answers a token with the wider scope and the
 * request is sent once more with it. A refusal that stays (no step-up, or the wider token is refused
 * too) is recorded (`record`) and handed to the SDK, whose `InsufficientScopeError` fails the request.
 */
export const stepUpFetch =
  (
    sdk: Sdk["client"],
    base: FetchLike,
    stepUp: (scope: string | undefined, resourceMetadataUrl: URL | undefined) => Promise<string | undefined>,
    record: (scope: string | undefined) => Promise<void>
  ): FetchLike =>
  async (url, init) => {
    const response = await base(url, init)
    const challenge = insufficientScope(sdk, response)
    if (challenge === undefined) return response
    const token = await stepUp(challenge.scope, challenge.resourceMetadataUrl)
    if (token === undefined) {
      await record(challenge.scope)
      return response
    }
    await response.body?.cancel().catch(() => undefined)
    const headers = new Headers(init?.headers)
    headers.set("authorization", `Bearer ${token}`)
    const again = await base(url, { ...init, headers })
    const still = insufficientScope(sdk, again)
    if (still !== undefined) await record(still.scope)
    return again
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
    requireLogin(mark)
    return Promise.reject(new sdk.UnauthorizedError(Messages.authorizationRequired(server)))
  }
})
