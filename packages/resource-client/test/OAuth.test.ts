/**
 * OAuth for streamable HTTP servers against a real loopback authorization server and protected MCP
 * server (`startOAuthHttp`): the first connect needs a login; a login (the browser step scripted by
 * following the authorization URL) stores tokens in a 0600 file and the server comes up; an expired
 * token is refreshed without the user (on a 401, and before it expires); a revoked grant fails the
 * server with `authorization required …`; a changed URL or another name never gets the token; and
 * no token, code, verifier or secret appears in the logs, the errors or the server list.
 */
import * as NodeFs from "node:fs"
import { createServer as createTcpServer } from "node:net"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { exampleSpec, followAuthorization, startOAuthHttp } from "@mcp-resources/fixtures"
import { Config, Messages } from "@mcp-resources/protocol"
import { ConfigProvider, Effect, Either, Layer, Logger, LogLevel } from "effect"
import { McpTransport, OAuth, ResourceClient, type ServerEntry, TokenStore } from "../src/index.js"

const defaults = { enabled: true, startupTimeoutSec: 30, toolTimeoutSec: 30, maxMessageBytes: 67108864 }

const http = (
  name: string,
  url: string,
  extra: Partial<Extract<ServerEntry.ServerEntry["transport"], { _tag: "http" }>> = {}
): ServerEntry.ServerEntry => ({
  name,
  transport: { _tag: "http", url, httpHeaders: {}, ...extra },
  ...defaults
})

/** A port nothing listens on (taken, then given back). */
const freePort = Effect.promise(
  () =>
    new Promise<number>((resolve) => {
      const server = createTcpServer()
      server.listen(0, "127.0.0.1", () => {
        const { port } = server.address() as { port: number }
        server.close(() => resolve(port))
      })
    })
)

const noCache: Config.Config = { ...Config.empty, cache: { enabled: false, maxBytes: 0 } }

const fixture = (options?: Parameters<typeof startOAuthHttp>[1]) =>
  Effect.acquireRelease(
    Effect.promise(() => startOAuthHttp(exampleSpec(), options)),
    (f) => Effect.promise(() => f.close())
  )

const tempDir = Effect.acquireRelease(
  Effect.sync(() => NodeFs.mkdtempSync(NodePath.join(NodeOs.tmpdir(), "oauth-test-"))),
  (dir) => Effect.sync(() => NodeFs.rmSync(dir, { recursive: true, force: true }))
)

const message = <A>(either: Either.Either<A, { readonly message: string }>): string =>
  Either.match(either, { onLeft: (error) => error.message, onRight: () => "succeeded" })

/** Every log line of the test, at every level. */
const captured: Array<string> = []
const capture = Logger.replace(
  Logger.defaultLogger,
  Logger.make(({ message, cause }) => {
    captured.push(`${String(message)} ${String(cause)}`)
  })
)

const client = (servers: ReadonlyArray<ServerEntry.ServerEntry>) =>
  Effect.gen(function* () {
    const c = yield* ResourceClient.make({ config: noCache, servers })
    yield* Effect.flatMap(c.latest, (set) => set.awaitAllSettled)
    return c
  })

const statusOf = (c: ResourceClient.Service, name: string) =>
  Effect.map(c.servers, (servers) => {
    const s = servers.find((server) => server.name === name)
    return `${s?.status}: ${s?.error ?? ""}`
  })

const login = (entry: ServerEntry.ServerEntry) =>
  Effect.scoped(
    Effect.gen(function* () {
      const start = yield* OAuth.startLogin(entry, { timeoutSec: 30 })
      const url = new URL(start.authorizationUrl)
      // the scripted browser: follows the URL to the authorization server and back to the listener
      const status = yield* Effect.promise(() => followAuthorization(start.authorizationUrl))
      yield* start.completion
      return { url, status, redirectUrl: start.redirectUrl }
    })
  )

describe("OAuth", () => {
  it.live("login required, login, refresh on 401 and before expiry, revoked grant, no secret anywhere", () =>
    Effect.gen(function* () {
      const server = yield* fixture()
      const dir = yield* tempDir
      const file = NodePath.join(dir, TokenStore.fileName)
      const store = TokenStore.layerFile(file)
      const entry = http("docs", server.url)
      return yield* Effect.gen(function* () {
        const errors: Array<string> = []
        const first = yield* client([entry])
        const required = Messages.authorizationRequired("docs")
        assert.strictEqual(required, "authorization required for MCP server 'docs': run mcp-resources login docs")
        assert.strictEqual(yield* statusOf(first, "docs"), `failed: ${required}`)
        assert.strictEqual(yield* OAuth.authState(entry, required), "loginRequired")

        const done = yield* login(entry)
        assert.strictEqual(done.status, 200)
        assert.strictEqual(done.url.origin + done.url.pathname, `${server.issuer}/authorize`)
        assert.strictEqual(done.url.searchParams.get("code_challenge_method"), "S256")
        assert.strictEqual(done.url.searchParams.get("resource"), server.url)
        assert.strictEqual(done.url.searchParams.get("redirect_uri"), done.redirectUrl)
        assert.deepStrictEqual(
          { registrations: server.counts.registrations, exchanges: server.counts.codeExchanges },
          { registrations: 1, exchanges: 1 }
        )
        assert.strictEqual(NodeFs.statSync(file).mode & 0o777, 0o600)
        assert.deepStrictEqual(
          NodeFs.readdirSync(dir).filter((name) => name !== TokenStore.fileName),
          [],
          "no temporary file is left"
        )
        assert.strictEqual(yield* OAuth.authState(entry, undefined), "loggedIn")

        // the server comes up with the stored token (a new set, as after a login in the app-server)
        yield* first.reconnect
        yield* Effect.flatMap(first.latest, (set) => set.awaitAllSettled)
        assert.strictEqual(yield* statusOf(first, "docs"), "ready: ")
        const listed = yield* first.listResources("docs")
        assert.strictEqual(listed.resources.length, 3)

        // an access token the server no longer accepts: one 401, a refresh, the retry succeeds
        server.expireAccessTokens()
        const before = { ...server.counts }
        yield* first.listResources("docs")
        assert.strictEqual(server.counts.refreshes, before.refreshes + 1)
        assert.strictEqual(server.counts.unauthorized, before.unauthorized + 1)

        // tokens that expire within the margin are refreshed before they are sent (no 401)
        server.setAccessTokenSeconds(30)
        server.expireAccessTokens()
        yield* first.listResources("docs") // refreshes on the 401: the new token lives 30 s
        const beforeExpiry = { ...server.counts }
        yield* first.listResources("docs")
        assert.ok(server.counts.refreshes > beforeExpiry.refreshes, "refreshed before expiry")
        assert.strictEqual(server.counts.unauthorized, beforeExpiry.unauthorized, "without a 401")
        server.setAccessTokenSeconds(3600)
        yield* first.listResources("docs")

        // a revoked grant: the refresh is refused, the call and the next start-up say a login is needed
        server.revokeAll()
        const refused = yield* Effect.either(first.listResources("docs"))
        errors.push(message(refused))
        assert.ok(message(refused).includes(required), message(refused))
        yield* first.reconnect
        yield* Effect.flatMap(first.latest, (set) => set.awaitAllSettled)
        assert.strictEqual(yield* statusOf(first, "docs"), `failed: ${required}`)
        assert.strictEqual(yield* OAuth.authState(entry, required), "loginRequired")

        // logged in again, then logged out: the server needs a login once more
        yield* login(entry)
        yield* first.reconnect
        yield* Effect.flatMap(first.latest, (set) => set.awaitAllSettled)
        assert.strictEqual(yield* statusOf(first, "docs"), "ready: ")
        assert.isTrue(yield* OAuth.logout("docs"))
        assert.isFalse(yield* OAuth.logout("docs"))
        assert.strictEqual(yield* OAuth.authState(entry, undefined), "none")

        // no secret in the logs, the errors or the server list
        const servers = JSON.stringify(yield* first.servers)
        const haystack = [...captured, ...errors, servers].join("\n")
        const secrets = server.secrets()
        assert.ok(secrets.length >= 8, `the fixture saw ${secrets.length} secrets`)
        for (const secret of secrets) assert.notInclude(haystack, secret)
      }).pipe(
        Effect.provide(Layer.merge(store, McpTransport.layer.pipe(Layer.provide(store)))),
        Effect.provide(capture),
        Logger.withMinimumLogLevel(LogLevel.All)
      )
    }).pipe(Effect.scoped)
  )

  it.live("a changed URL or another server name never receives the token", () =>
    Effect.gen(function* () {
      const server = yield* fixture()
      const store = TokenStore.layerMemory
      return yield* Effect.gen(function* () {
        const entry = http("docs", server.url)
        yield* login(entry)
        const ok = yield* client([entry])
        assert.strictEqual(yield* statusOf(ok, "docs"), "ready: ")
        const sent = server.authorizationHeaders.length
        const moved = http("docs", `${server.url}?tenant=other`)
        const other = http("wiki", server.url)
        const c = yield* client([moved, other])
        assert.strictEqual(yield* statusOf(c, "docs"), `failed: ${Messages.authorizationRequired("docs")}`)
        assert.strictEqual(yield* statusOf(c, "wiki"), `failed: ${Messages.authorizationRequired("wiki")}`)
        const later = server.authorizationHeaders.slice(sent)
        assert.ok(later.length >= 2)
        assert.deepStrictEqual(
          later.filter((header) => header !== undefined),
          [],
          "no request of the moved or other entry carried a token"
        )
      }).pipe(Effect.provide(Layer.merge(store, McpTransport.layer.pipe(Layer.provide(store)))))
    }).pipe(Effect.scoped)
  )

  it.live("a refresh token revoked while the server is ready: status failed, auth loginRequired, no reconnection", () =>
    Effect.gen(function* () {
      const server = yield* fixture()
      const store = TokenStore.layerMemory
      return yield* Effect.gen(function* () {
        const entry = http("docs", server.url)
        const required = Messages.authorizationRequired("docs")
        yield* login(entry)
        const c = yield* client([entry])
        assert.strictEqual(yield* statusOf(c, "docs"), "ready: ")
        const auth = Effect.flatMap(c.servers, (servers) =>
          OAuth.authState(entry, servers.find((s) => s.name === "docs")?.error)
        )
        assert.strictEqual(yield* auth, "loggedIn")

        // the access token stops working and the refresh token is revoked: the token endpoint says invalid_grant
        server.revokeRefreshTokens()
        server.expireAccessTokens()
        const before = { ...server.counts }
        const refused = yield* Effect.either(c.listResources("docs"))
        assert.strictEqual(message(refused), `resources/list failed for \`docs\`: ${required}`)
        assert.strictEqual(server.counts.refusedRefreshes, before.refusedRefreshes + 1)
        assert.strictEqual(yield* statusOf(c, "docs"), `failed: ${required}`)
        assert.strictEqual(yield* auth, "loginRequired")
        const servers = yield* c.servers
        assert.isUndefined(servers[0]?.reconnectAttempt, "a login is needed: no reconnection is attempted")
        assert.strictEqual(message(yield* Effect.either(c.listResources("docs"))), `failed to get client: ${required}`)

        // a login and a reload (as the app-server does after a login) bring it back
        yield* login(entry)
        yield* c.reconnect
        yield* Effect.flatMap(c.latest, (set) => set.awaitAllSettled)
        assert.strictEqual(yield* statusOf(c, "docs"), "ready: ")
        assert.strictEqual(yield* auth, "loggedIn")
      }).pipe(Effect.provide(Layer.merge(store, McpTransport.layer.pipe(Layer.provide(store)))))
    }).pipe(Effect.scoped)
  )

  it.live("a pre-registered confidential client: id and secret from the config, the fixed redirect port", () =>
    Effect.gen(function* () {
      const secret = "pre-registered-client-secret-value"
      const port = yield* freePort
      const server = yield* fixture({
        registration: false,
        preRegistered: [
          { clientId: "cli-app", clientSecret: secret, redirectUris: [`http://127.0.0.1:${port}/callback`] }
        ]
      })
      const store = TokenStore.layerMemory
      return yield* Effect.gen(function* () {
        const entry = http("docs", server.url, {
          oauthClientId: "cli-app",
          oauthClientSecretEnvVar: "DOCS_SECRET",
          oauthRedirectPort: port
        })
        const done = yield* login(entry)
        assert.strictEqual(done.redirectUrl, `http://127.0.0.1:${port}/callback`)
        assert.strictEqual(done.url.searchParams.get("client_id"), "cli-app")
        assert.deepStrictEqual(
          { registrations: server.counts.registrations, exchanges: server.counts.codeExchanges },
          { registrations: 0, exchanges: 1 }
        )
        const c = yield* client([entry])
        assert.strictEqual(yield* statusOf(c, "docs"), "ready: ")
        server.expireAccessTokens()
        yield* c.listResources("docs")
        assert.strictEqual(server.counts.refreshes, 1, "the refresh authenticates with the configured secret")
        const missing = yield* Effect.either(
          OAuth.startLogin(http("docs", server.url, { oauthClientId: "x", oauthClientSecretEnvVar: "UNSET_VAR" })).pipe(
            Effect.scoped
          )
        )
        assert.strictEqual(message(missing), "environment variable UNSET_VAR for the OAuth client secret is not set")
      }).pipe(
        Effect.provide(Layer.merge(store, McpTransport.layer.pipe(Layer.provide(store)))),
        Effect.withConfigProvider(ConfigProvider.fromMap(new Map([["DOCS_SECRET", secret]])))
      )
    }).pipe(Effect.scoped)
  )
})
