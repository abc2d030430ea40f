/**
 * Logging in to a streamable HTTP server that asks for OAuth, with the SDK's client support
 * (`auth`): discovery from the server's 401 (protected resource metadata, then the authorization
 * server's metadata, with the 2025-03-26 back-compat), a pre-registered client (`oauth_client_id`)
 * first, else the client's metadata document (`oauth_client_metadata_url`) where the authorization
 * server accepts one, else dynamic registration; authorization code with PKCE (S256) and the
 * resource indicator, asking for the scopes granted so far and those a `403 insufficient_scope`
 * asked for since. An entry with a non-interactive grant (`oauth_grant`) gets its tokens at once,
 * without a browser. `startLogin` opens the loopback
 * listener the browser is sent back to and returns the authorization URL; its `completion` waits
 * (bounded) for the redirect, exchanges the code and stores the tokens in the `TokenStore`.
 * Connections then use and refresh them (see `McpTransport.layer`). Nothing here logs or returns
 * a token, a code, a verifier or a client secret.
 */
import { Messages, ServerUrl } from "@mcp-resources/protocol"
import { Deferred, Duration, Effect, Option, Schema, type Scope } from "effect"
import * as NodeCrypto from "node:crypto"
import * as NodeHttp from "node:http"
import { makeProvider, type OAuthContext, type Session, scopeList, scopeUnion, withExpiry } from "./internal/oauth.js"
import type { FetchLike } from "@modelcontextprotocol/client"
import { discover } from "./internal/oauthDiscovery.js"
import { loadCredentials, requestTokens } from "./internal/oauthGrant.js"
import * as Sdk from "./internal/sdk.js"
import { oauthClient, outgoingFetch, usesOAuth } from "./internal/transports.js"
import type { ServerEntry } from "./ServerEntry.js"
import { TokenStore } from "./TokenStore.js"

/** A login that could not be done; the message says why (never a secret). */
export class LoginError extends Schema.TaggedError<LoginError>()("LoginError", { message: Schema.String }) {}

/**
 * A started login: the URL to open, and the wait for its redirect. Both URLs are empty when no
 * browser is needed (the tokens were refreshed or granted at once).
 */
export interface LoginStart {
  readonly authorizationUrl: string
  /** The loopback redirect URI the authorization server sends the browser back to. */
  readonly redirectUrl: string
  /** Waits for the redirect (at most the login's timeout), exchanges the code, stores the tokens. */
  readonly completion: Effect.Effect<void, LoginError>
}

export interface LoginOptions {
  /** How long `completion` waits for the redirect (default 300 s). */
  readonly timeoutSec?: number
}

/** A login whose redirect is served elsewhere ({@link startStoredLogin}). */
export interface StoredLoginOptions {
  /** The redirect URI (an app-server's `[oauth] redirect_url`), registered as is. */
  readonly redirectUrl: string
  /** How long the stored login may be completed (default 300 s). */
  readonly timeoutSec?: number
}

/** A started stored login: the URL to open, and when the stored login expires (ms since the epoch). */
export interface StoredLoginStart {
  readonly authorizationUrl: string
  readonly expiresAt: number
}

/**
 * A redirect that belongs to no login in progress of its server (none is stored, its `state` is another
 * one's, or it came after the login expired): answered as a stray, the login in progress goes on.
 */
export class StrayRedirect extends Schema.TaggedError<StrayRedirect>()("StrayRedirect", { message: Schema.String }) {}

/** The path of the loopback redirect URI. */
export const callbackPath = "/callback"

const loginError = (message: string) => new LoginError({ message })

const errorText = (error: unknown): string => (error instanceof Error ? error.message : String(error))

/**
 * An OAuth step's failure in one line, without the body the server answered with (the SDK appends an
 * error page's whole HTML): the first line, cut before a body that starts with `<`.
 */
const withoutBody = (text: string): string => {
  const line = text.split(/\r?\n/, 1)[0] ?? ""
  const html = line.search(/:\s*</)
  return (html >= 0 ? line.slice(0, html) : line).trim()
}

/** The loopback host names an `http:` authorization endpoint may have. */
const loopbackHosts: ReadonlySet<string> = new Set(["localhost", "127.0.0.1", "[::1]"])

/** The scheme of an authorization URL the browser must not be sent to (anything but https, or http on loopback). */
const unsafeScheme = (url: URL): string | undefined =>
  url.protocol === "https:" || (url.protocol === "http:" && loopbackHosts.has(url.hostname))
    ? undefined
    : url.protocol === "http:"
      ? "non-loopback http:"
      : url.protocol

/** The page the browser shows after the redirect. */
const page = (title: string) => `<!doctype html><meta charset="utf-8"><title>mcp-resources</title><p>${title}</p>\n`

/**
 * The answer to a redirect another process serves ({@link completeStoredLogin}): the status and page
 * the loopback listener would answer for a login that completed, failed, or a stray redirect.
 */
export const redirectPage = (
  outcome: "done" | "failed" | "stray"
): { readonly status: number; readonly html: string } =>
  outcome === "done"
    ? { status: 200, html: page(Messages.oauth.pageDone) }
    : { status: 400, html: page(outcome === "failed" ? Messages.oauth.pageFailed : Messages.oauth.pageWrongState) }

/** Whether a redirect's `state` is the login's (compared in constant time). */
const sameState = (received: string | null, state: string): boolean => {
  if (received === null) return false
  const a = Buffer.from(received)
  const b = Buffer.from(state)
  return a.length === b.length && NodeCrypto.timingSafeEqual(a, b)
}

/**
 * The loopback listener of the redirect: the first request to the callback path that carries the
 * login's `state` settles `received`. Any other (a stray or forged redirect, another login's) is
 * answered 400 and ignored: the login goes on waiting for its own.
 */
const listen = (port: number, state: string, received: Deferred.Deferred<URLSearchParams>) =>
  Effect.acquireRelease(
    Effect.async<NodeHttp.Server, LoginError>((resume) => {
      const server = NodeHttp.createServer((request, response) => {
        const url = new URL(request.url ?? "/", "http://127.0.0.1")
        if (request.method !== "GET" || url.pathname !== callbackPath) {
          response.writeHead(404, { "content-type": "text/plain" }).end("not found\n")
          return
        }
        if (!sameState(url.searchParams.get("state"), state)) {
          response
            .writeHead(400, { "content-type": "text/html; charset=utf-8" })
            .end(page(Messages.oauth.pageWrongState))
          return
        }
        const failed = url.searchParams.has("error")
        response
          .writeHead(failed ? 400 : 200, { "content-type": "text/html; charset=utf-8" })
          .end(page(failed ? Messages.oauth.pageFailed : Messages.oauth.pageDone))
        Deferred.unsafeDone(received, Effect.succeed(url.searchParams))
      })
      server.once("error", (error) =>
        resume(Effect.fail(loginError(Messages.oauth.cannotListen(port, errorText(error)))))
      )
      server.listen(port, "127.0.0.1", () => resume(Effect.succeed(server)))
    }),
    (server) =>
      Effect.async<void>((resume) => {
        server.close(() => resume(Effect.void))
        server.closeAllConnections()
      })
  )

/**
 * Starts the login of one HTTP entry: listens on `127.0.0.1` (`oauth_redirect_port` or a free port),
 * asks the server (an unauthenticated `initialize`) for its OAuth challenge, discovers, registers when
 * needed, and returns the authorization URL. The listener closes with the scope.
 */
export const startLogin = (
  entry: ServerEntry,
  options: LoginOptions = {}
): Effect.Effect<LoginStart, LoginError, TokenStore | Scope.Scope> => {
  // a failure never quotes the URL's query values or credentials (an SDK message may name the URL)
  const redact = Effect.mapError((error: LoginError) =>
    entry.transport._tag === "http" ? loginError(ServerUrl.redactIn(error.message, entry.transport.url)) : error
  )
  return startLoginOf(entry, options, undefined).pipe(
    redact,
    Effect.map((start) => ({ ...start, completion: redact(start.completion) }))
  )
}

/**
 * Starts the login of one HTTP entry whose redirect another process serves (an app-server's listener
 * at `options.redirectUrl`): no loopback listener; the login in progress, with what its code exchange
 * needs (the PKCE verifier, the state, the registered client), is kept in the `TokenStore` entry as
 * `pending_login` until {@link completeStoredLogin} finishes it, in any process sharing the store.
 * An entry with a non-interactive grant gets its tokens at once (the URL is then empty).
 */
export const startStoredLogin = (
  entry: ServerEntry,
  options: StoredLoginOptions
): Effect.Effect<StoredLoginStart, LoginError, TokenStore | Scope.Scope> =>
  startLoginOf(
    entry,
    { ...(options.timeoutSec !== undefined ? { timeoutSec: options.timeoutSec } : {}) },
    options.redirectUrl
  ).pipe(
    Effect.mapError((error: LoginError) =>
      entry.transport._tag === "http" ? loginError(ServerUrl.redactIn(error.message, entry.transport.url)) : error
    ),
    Effect.map((start) => ({ authorizationUrl: start.authorizationUrl, expiresAt: start.expiresAt ?? 0 }))
  )

/** The server a stored login's redirect names in its `state` (after the dot), if it names one. */
export const serverOfState = (state: string | null): string | undefined => {
  const dot = state?.indexOf(".") ?? -1
  if (state === null || dot < 0) return undefined
  const name = Buffer.from(state.slice(dot + 1), "base64url").toString("utf8")
  return name === "" ? undefined : name
}

/**
 * Whether a redirect's `params` carry the `state` of the stored login of `entry` in progress (compared
 * in constant time; an expired one does not count). A cheap check without any lock, so that a stray or
 * forged redirect is turned away before anything waits for the login.
 */
export const isStoredLoginRedirect = (
  entry: ServerEntry,
  params: URLSearchParams
): Effect.Effect<boolean, never, TokenStore> =>
  Effect.gen(function* () {
    const transport = entry.transport
    if (transport._tag !== "http") return false
    const store = yield* TokenStore
    const stored = yield* store
      .get({ server: entry.name, url: transport.url })
      .pipe(Effect.orElseSucceed(() => Option.none()))
    const pending = Option.getOrUndefined(stored)?.pending_login
    return (
      pending?.state !== undefined && pending.expires_at > Date.now() && sameState(params.get("state"), pending.state)
    )
  })

/**
 * Finishes the stored login of `entry` with its redirect's query `params`: the state must be the
 * stored login's (compared in constant time) and the login not expired, else {@link StrayRedirect}
 * (nothing changes). The authorization server's refusal, or a failed code exchange, fails with its
 * {@link LoginError}; success stores the tokens in place of the login in progress.
 */
export const completeStoredLogin = (
  entry: ServerEntry,
  params: URLSearchParams
): Effect.Effect<void, LoginError | StrayRedirect, TokenStore | Scope.Scope> =>
  Effect.gen(function* () {
    const transport = entry.transport
    const stray = new StrayRedirect({ message: Messages.oauth.pageWrongState })
    if (transport._tag !== "http" || !usesOAuth(transport)) return yield* Effect.fail(stray)
    const store = yield* TokenStore
    const key = { server: entry.name, url: transport.url }
    const stored = Option.getOrUndefined(
      yield* store.get(key).pipe(Effect.mapError((error) => loginError(error.message)))
    )
    const pending = stored?.pending_login
    if (
      pending?.state === undefined ||
      pending.code_verifier === undefined ||
      pending.redirect_url === undefined ||
      !sameState(params.get("state"), pending.state) ||
      pending.expires_at <= Date.now()
    ) {
      return yield* Effect.fail(stray)
    }
    const sdk = (yield* Sdk.load).client
    const { ctx, fetchFn } = yield* loginContext(transport, key, store)
    const session: Session = {
      entry: {
        ...(pending.client !== undefined ? { client: pending.client } : {}),
        ...(pending.discovery !== undefined ? { discovery: pending.discovery } : {})
      },
      redirectUrl: pending.redirect_url,
      verifier: pending.code_verifier,
      state: pending.state
    }
    const discovery = {
      ...(pending.resource_metadata_url !== undefined
        ? { resourceMetadataUrl: new URL(pending.resource_metadata_url) }
        : {}),
      ...(pending.scope !== undefined ? { scope: pending.scope } : {})
    }
    yield* exchange(entry.name, sdk, makeProvider(ctx, session, "login"), session, params, {
      serverUrl: new URL(transport.url),
      fetchFn,
      discovery
    })
    yield* store
      .set(key, { ...session.entry, redirect_url: pending.redirect_url })
      .pipe(Effect.mapError((error) => loginError(error.message)))
  }).pipe(
    Effect.mapError((error) =>
      error._tag === "LoginError" && entry.transport._tag === "http"
        ? loginError(ServerUrl.redactIn(error.message, entry.transport.url))
        : error
    )
  )

/** What a login's SDK provider works with (its pre-registered client, the store), and the fetch it sends with (closed with the scope). */
const loginContext = (
  transport: Extract<ServerEntry["transport"], { readonly _tag: "http" }>,
  key: { readonly server: string; readonly url: string },
  store: TokenStore["Type"]
): Effect.Effect<{ readonly ctx: OAuthContext; readonly fetchFn: FetchLike }, LoginError, Scope.Scope> =>
  Effect.gen(function* () {
    const runtime = yield* Effect.runtime<never>()
    const client = yield* oauthClient(transport).pipe(Effect.mapError((error) => loginError(error.message)))
    const outgoing = yield* Effect.acquireRelease(outgoingFetch, (fetch) => Effect.promise(() => fetch.close()))
    const ctx: OAuthContext = {
      key,
      store,
      runtime,
      ...(client !== undefined ? { client } : {}),
      ...(transport.oauthClientMetadataUrl !== undefined ? { clientMetadataUrl: transport.oauthClientMetadataUrl } : {})
    }
    return { ctx, fetchFn: outgoing.fetch }
  })

/**
 * The redirect's outcome: the state, the authorization server's refusal, the code, then the code
 * exchange (the provider's session holds the tokens afterwards).
 */
const exchange = (
  name: string,
  sdk: Sdk.Sdk["client"],
  provider: ReturnType<typeof makeProvider>,
  session: Session,
  params: URLSearchParams,
  request: {
    readonly serverUrl: URL
    readonly fetchFn: FetchLike
    readonly discovery: { readonly resourceMetadataUrl?: URL; readonly scope?: string }
  }
): Effect.Effect<void, LoginError> =>
  Effect.gen(function* () {
    if (params.get("state") !== session.state) {
      return yield* Effect.fail(loginError(Messages.oauth.stateMismatch(name)))
    }
    const refused = params.get("error")
    if (refused !== null) {
      const description = params.get("error_description")
      return yield* Effect.fail(
        loginError(Messages.oauth.refused(name, Messages.startup.oauth(refused, description ?? undefined)))
      )
    }
    const code = params.get("code")
    if (code === null || code === "") return yield* Effect.fail(loginError(Messages.oauth.noCode(name)))
    const iss = params.get("iss")
    const exchanged = yield* Effect.tryPromise({
      try: () =>
        sdk.auth(provider, {
          serverUrl: request.serverUrl,
          fetchFn: request.fetchFn,
          authorizationCode: code,
          ...(iss !== null ? { iss } : {}),
          ...request.discovery
        }),
      catch: (error) => loginError(Messages.oauth.failed(name, withoutBody(errorText(error))))
    })
    if (exchanged !== "AUTHORIZED" || session.entry.tokens === undefined) {
      return yield* Effect.fail(loginError(Messages.oauth.failed(name, "no token was issued")))
    }
  })

const startLoginOf = (
  entry: ServerEntry,
  options: LoginOptions,
  storedRedirect: string | undefined
): Effect.Effect<LoginStart & { readonly expiresAt?: number }, LoginError, TokenStore | Scope.Scope> =>
  Effect.gen(function* () {
    const transport = entry.transport
    if (transport._tag !== "http") return yield* Effect.fail(loginError(Messages.oauth.notHttp(entry.name)))
    if (!usesOAuth(transport)) return yield* Effect.fail(loginError(Messages.oauth.staticAuthorization(entry.name)))
    const store = yield* TokenStore
    const sdk = (yield* Sdk.load).client
    const { auth, extractWWWAuthenticateParams } = sdk
    const grant = yield* loadCredentials(transport).pipe(Effect.mapError((error) => loginError(error.message)))
    const serverUrl = new URL(transport.url)
    const key = { server: entry.name, url: transport.url }
    const { ctx, fetchFn } = yield* loginContext(transport, key, store)

    // the challenge: the server's 401 names its protected resource metadata (and maybe a scope); an
    // HTTP+SSE server (`type = "sse"`) is asked with the GET that opens its stream
    const challenge = yield* Effect.tryPromise({
      try: (signal) =>
        fetchFn(
          serverUrl,
          transport.sse === true
            ? { method: "GET", signal, headers: { ...transport.httpHeaders, accept: "text/event-stream" } }
            : {
                method: "POST",
                signal,
                headers: {
                  ...transport.httpHeaders,
                  "content-type": "application/json",
                  accept: "application/json, text/event-stream"
                },
                body: JSON.stringify({
                  jsonrpc: "2.0",
                  id: 0,
                  method: "initialize",
                  params: {
                    protocolVersion: "2025-11-25",
                    capabilities: {},
                    clientInfo: { name: "mcp-resources", version: "login" }
                  }
                })
              }
        ).then(async (response) => {
          await response.body?.cancel().catch(() => undefined)
          return {
            status: response.status,
            params: response.status === 401 ? extractWWWAuthenticateParams(response) : {}
          }
        }),
      catch: (error) => loginError(Messages.oauth.unreachable(entry.name, errorText(error)))
    }).pipe(
      Effect.timeoutFail({
        duration: Duration.seconds(entry.startupTimeoutSec),
        onTimeout: () => loginError(Messages.oauth.unreachable(entry.name, "no answer"))
      })
    )

    const stored = Option.getOrUndefined(
      yield* store.get(key).pipe(Effect.mapError((error) => loginError(error.message)))
    )
    // the scopes to ask for: those granted so far, those a 403 asked for since, and the challenge's
    // (none at all: the server's `scopes_supported`)
    const scope = scopeUnion(stored?.tokens?.scope, stored?.required_scope, challenge.params.scope)
    const resourceMetadataUrl = challenge.params.resourceMetadataUrl
    // a server that did not ask for authorization and whose discovery failed has no OAuth to log in to
    const loginFailure = (error: unknown) =>
      loginError(
        challenge.status === 401
          ? Messages.oauth.failed(entry.name, withoutBody(errorText(error)))
          : Messages.oauth.notOffered(entry.name, challenge.status, withoutBody(errorText(error)))
      )

    // a non-interactive grant: the tokens are asked for at once, no browser
    if (grant !== undefined) {
      const granted = yield* Effect.tryPromise({
        try: () => requestTokens(sdk, grant, { server: entry.name, serverUrl, fetchFn, scope, resourceMetadataUrl }),
        catch: (error) => loginError(errorText(error))
      })
      yield* store
        .set(key, { tokens: withExpiry(granted.tokens, Date.now(), scope), discovery: granted.discovery })
        .pipe(Effect.mapError((error) => loginError(error.message)))
      return { authorizationUrl: "", redirectUrl: "", completion: Effect.void }
    }

    // the loopback listener of the redirect, unless another process serves it (the state then names
    // the server, so that whoever receives the redirect finds the stored login)
    const received = yield* Deferred.make<URLSearchParams>()
    const nonce = NodeCrypto.randomBytes(16).toString("base64url")
    const state =
      storedRedirect === undefined ? nonce : `${nonce}.${Buffer.from(entry.name, "utf8").toString("base64url")}`
    const redirectUrl =
      storedRedirect ??
      (yield* Effect.map(listen(transport.oauthRedirectPort ?? 0, state, received), (server) => {
        const address = server.address()
        const port = typeof address === "object" && address !== null ? address.port : 0
        return `http://127.0.0.1:${port}${callbackPath}`
      }))

    // a registered client is bound to its redirect URI: kept only when it is the same
    const storedClient = stored?.client
    const keepClient =
      ctx.client === undefined &&
      storedClient !== undefined &&
      Array.isArray(storedClient.redirect_uris) &&
      storedClient.redirect_uris.includes(redirectUrl)
    const session: Session = {
      entry: keepClient ? { client: storedClient } : {},
      redirectUrl,
      state
    }
    const provider = makeProvider(ctx, session, "login")
    // discovery first, with the 2025-03-26 back-compat the SDK's own discovery lacks (oauthDiscovery.ts)
    const discovered = yield* Effect.tryPromise({
      try: () => discover(sdk, serverUrl, fetchFn, resourceMetadataUrl),
      catch: loginFailure
    })
    session.entry = { ...session.entry, discovery: discovered }
    const discovery = {
      ...(resourceMetadataUrl !== undefined ? { resourceMetadataUrl } : {}),
      ...(scope !== undefined ? { scope } : {})
    }
    const result = yield* Effect.tryPromise({
      try: () => auth(provider, { serverUrl, fetchFn, forceReauthorization: true, ...discovery }),
      catch: loginFailure
    })
    const save = Effect.suspend(() => store.set(key, { ...session.entry, redirect_url: redirectUrl })).pipe(
      Effect.mapError((error) => loginError(error.message))
    )
    if (result === "AUTHORIZED" || session.authorizationUrl === undefined) {
      yield* save
      return { authorizationUrl: "", redirectUrl, completion: Effect.void }
    }
    // only a URL a browser may be sent to with the login is printed and opened (never `file:`, `javascript:`, …)
    const scheme = unsafeScheme(session.authorizationUrl)
    if (scheme !== undefined) {
      return yield* Effect.fail(loginError(Messages.oauth.unsafeAuthorizationEndpoint(entry.name, scheme)))
    }
    const timeoutSec = options.timeoutSec ?? 300
    if (storedRedirect !== undefined) {
      // kept for whoever receives the redirect (completeStoredLogin): a login asked for since replaces it
      const expiresAt = Date.now() + timeoutSec * 1000
      const current = Option.getOrUndefined(
        yield* store.get(key).pipe(Effect.mapError((error) => loginError(error.message)))
      )
      const { login_failure: _, ...kept } = current ?? {}
      yield* store
        .set(key, {
          ...kept,
          pending_login: {
            authorization_url: session.authorizationUrl.href,
            expires_at: expiresAt,
            state,
            code_verifier: session.verifier ?? "",
            redirect_url: redirectUrl,
            ...(scope !== undefined ? { scope } : {}),
            ...(resourceMetadataUrl !== undefined ? { resource_metadata_url: resourceMetadataUrl.href } : {}),
            ...(session.entry.client !== undefined ? { client: session.entry.client } : {}),
            ...(session.entry.discovery !== undefined ? { discovery: session.entry.discovery } : {})
          }
        })
        .pipe(Effect.mapError((error) => loginError(error.message)))
      return { authorizationUrl: session.authorizationUrl.href, redirectUrl, completion: Effect.void, expiresAt }
    }
    const completion = Effect.gen(function* () {
      const params = yield* Deferred.await(received).pipe(
        Effect.timeoutFail({
          duration: Duration.seconds(timeoutSec),
          onTimeout: () => loginError(Messages.oauth.timedOut(entry.name, timeoutSec))
        })
      )
      yield* exchange(entry.name, sdk, provider, session, params, { serverUrl, fetchFn, discovery })
      yield* save
    })
    return { authorizationUrl: session.authorizationUrl.href, redirectUrl, completion }
  })

/**
 * The scopes a server asked for with `403 insufficient_scope` since its last login (none: an empty
 * list): `mcpServer/list` shows them as `requiredScopes`, and the next login asks for them.
 */
export const requiredScopes = (entry: ServerEntry): Effect.Effect<ReadonlyArray<string>, never, TokenStore> =>
  Effect.gen(function* () {
    const transport = entry.transport
    if (transport._tag !== "http" || !usesOAuth(transport)) return []
    const store = yield* TokenStore
    const stored = yield* store
      .get({ server: entry.name, url: transport.url })
      .pipe(Effect.orElseSucceed(() => Option.none()))
    return Option.isSome(stored) ? scopeList(stored.value.required_scope) : []
  })

/** Removes the stored OAuth state of a server (every URL); true when there was some. */
export const logout = (server: string): Effect.Effect<boolean, LoginError, TokenStore> =>
  Effect.flatMap(TokenStore, (store) => store.remove(server)).pipe(
    Effect.mapError((error) => loginError(error.message))
  )

/** The auth state `mcpServer/list` shows: `none` (no OAuth), `loggedIn` (tokens stored), `loginRequired`. */
export type AuthState = "none" | "loggedIn" | "loginRequired"

/**
 * The auth state of an entry: `none` for any entry that does not log in with OAuth, or for an OAuth
 * entry that has no tokens and did not ask for them; `loggedIn` with stored tokens (unless its
 * connection failed asking for a login); `loginRequired` when its last start-up said so.
 */
export const authState = (entry: ServerEntry, error: string | undefined): Effect.Effect<AuthState, never, TokenStore> =>
  Effect.gen(function* () {
    const transport = entry.transport
    if (transport._tag !== "http" || !usesOAuth(transport)) return "none"
    if (error?.includes(Messages.authorizationRequired(entry.name))) return "loginRequired"
    const store = yield* TokenStore
    const stored = yield* store
      .get({ server: entry.name, url: transport.url })
      .pipe(Effect.orElseSucceed(() => Option.none()))
    return Option.isSome(stored) && stored.value.tokens !== undefined ? "loggedIn" : "none"
  })
