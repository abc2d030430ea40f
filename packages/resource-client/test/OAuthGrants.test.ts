/**
 * The non-interactive OAuth grants (`oauth_grant`) against the OAuth fixture's authorization server
 * and enterprise IdP: `client_credentials` with `client_secret_basic` and with `private_key_jwt`
 * (assertions signed by the SDK's provider with `jose`, verified by the fixture with `jose`), and
 * `enterprise` (cross-app access). The server comes up without a login; tokens are asked for again
 * before they expire and after a 401; a refresh token the server issued is used and rotated, and a
 * refused one falls back to a new grant; every refusal (expired assertion, wrong audience, clock
 * skew, expired ID token) names its cause; no secret, key, ID token or ID-JAG is in a log, an error,
 * the server list or the token store.
 */
import * as NodeCrypto from "node:crypto"
import * as NodeFs from "node:fs"
import * as NodePath from "node:path"
import { assert, describe, it } from "@effect/vitest"
import type { OAuthFixture } from "@mcp-resources/fixtures"
import { Messages } from "@mcp-resources/protocol"
import { ConfigProvider, Effect, Layer, Logger, LogLevel, type Scope } from "effect"
import { McpTransport, OAuth, type ServerEntry, TokenStore } from "../src/index.js"
import { capture, client, fixture, fromConfig, login, message, statusOf, tempDir } from "./utils/oauth.js"

const ecKey = NodeCrypto.generateKeyPairSync("ec", { namedCurve: "P-256" })
const rsaKey = NodeCrypto.generateKeyPairSync("rsa", { modulusLength: 2048 })
const pem = (key: NodeCrypto.KeyObject, type: "pkcs8" | "pkcs1" | "spki") =>
  key.export({ format: "pem", type } as NodeCrypto.KeyExportOptions<"pem">).toString()

const clientSecret = "machine-client-secret-value"
const xaaSecret = "cross-app-client-secret-value"

/** The services of a test: the token store in `file`, transports over it, the variables, the log capture. */
const run = <A, E>(
  body: Effect.Effect<A, E, TokenStore.TokenStore | McpTransport.McpTransport | Scope.Scope>,
  file: string,
  variables: ReadonlyArray<readonly [string, string]>,
  lines: Array<string>
) => {
  const store = TokenStore.layerFile(file)
  return body.pipe(
    Effect.provide(Layer.merge(store, McpTransport.layer.pipe(Layer.provide(store)))),
    Effect.withConfigProvider(ConfigProvider.fromMap(new Map(variables))),
    Effect.provide(capture(lines)),
    Logger.withMinimumLogLevel(LogLevel.All)
  )
}

/** Asserts that none of `secrets` is in the logs, the errors and the server list. */
const assertNoSecret = (haystack: ReadonlyArray<string>, secrets: ReadonlyArray<string>) => {
  const text = haystack.join("\n")
  for (const secret of secrets) assert.notInclude(text, secret)
}

/** The JWTs (ID tokens, ID-JAGs, client assertions) and client secrets the fixture saw: none belongs in the store. */
const credentialsSeen = (server: OAuthFixture, extra: ReadonlyArray<string>) => [
  ...server.secrets().filter((secret) => secret.startsWith("eyJ")),
  ...extra
]

const machine = (url: string, keys: Record<string, unknown>): ServerEntry.ServerEntry =>
  fromConfig("svc", { url, oauth_grant: "client_credentials", oauth_client_id: "svc", ...keys })

describe("OAuth non-interactive grants", () => {
  it.live(
    "client_credentials with client_secret_basic: no login; asked for again before expiry and after a 401; the secret is nowhere",
    () =>
      Effect.gen(function* () {
        const server = yield* fixture({ machineClients: [{ clientId: "svc", clientSecret }] })
        const dir = yield* tempDir
        const file = NodePath.join(dir, TokenStore.fileName)
        const lines: Array<string> = []
        const entry = machine(server.url, { oauth_client_secret_env_var: "SVC_SECRET" })
        yield* run(
          Effect.gen(function* () {
            const c = yield* client([entry])
            assert.strictEqual(yield* statusOf(c, "svc"), "ready: ")
            assert.strictEqual(server.counts.clientCredentials, 1)
            assert.strictEqual(server.counts.authorizations, 0, "no browser login")
            assert.strictEqual(yield* OAuth.authState(entry, undefined), "loggedIn")
            assert.strictEqual((yield* c.listResources("svc")).resources.length, 3)

            // an access token the server no longer accepts: a new grant on the 401, the retry succeeds
            server.expireAccessTokens()
            const before = { ...server.counts }
            yield* c.listResources("svc")
            assert.strictEqual(server.counts.clientCredentials, before.clientCredentials + 1)
            assert.strictEqual(server.counts.unauthorized, before.unauthorized + 1)
            // tokens that live 30 s (within the 60 s margin) are asked for again before they are sent, no 401
            server.setAccessTokenSeconds(30)
            server.expireAccessTokens()
            yield* c.listResources("svc")
            const beforeExpiry = { ...server.counts }
            yield* c.listResources("svc")
            assert.ok(server.counts.clientCredentials > beforeExpiry.clientCredentials, "asked for before expiry")
            assert.strictEqual(server.counts.unauthorized, beforeExpiry.unauthorized, "without a 401")

            // `mcp-resources login` of such a server asks for a token at once, without a browser
            server.setAccessTokenSeconds(3600)
            const beforeLogin = server.counts.clientCredentials
            assert.isUndefined(yield* login(entry))
            assert.strictEqual(server.counts.clientCredentials, beforeLogin + 1)

            const stored = NodeFs.readFileSync(file, "utf8")
            assert.notInclude(stored, clientSecret, "the client secret is not stored")
            assertNoSecret([...lines, JSON.stringify(yield* c.servers)], [...server.secrets(), clientSecret])
          }),
          file,
          [["SVC_SECRET", clientSecret]],
          lines
        )
      }).pipe(Effect.scoped)
  )

  it.live(
    "private_key_jwt from a key file (PKCS#8 EC) or a variable (PKCS#1 RSA): signed assertions; the key is nowhere",
    () =>
      Effect.gen(function* () {
        const server = yield* fixture({
          machineClients: [
            { clientId: "svc", publicKeyPem: pem(ecKey.publicKey, "spki") },
            { clientId: "rsa", publicKeyPem: pem(rsaKey.publicKey, "spki") }
          ]
        })
        const dir = yield* tempDir
        const file = NodePath.join(dir, TokenStore.fileName)
        const keyFile = NodePath.join(dir, "svc-key.pem")
        const ecPem = pem(ecKey.privateKey, "pkcs8")
        const rsaPem = pem(rsaKey.privateKey, "pkcs1")
        NodeFs.writeFileSync(keyFile, ecPem, { mode: 0o600 })
        const lines: Array<string> = []
        const fromFile = machine(server.url, { oauth_client_auth: "private_key_jwt", oauth_private_key_file: keyFile })
        const fromVariable = fromConfig("rsa", {
          url: server.url,
          oauth_grant: "client_credentials",
          oauth_client_id: "rsa",
          oauth_client_auth: "private_key_jwt",
          oauth_private_key_env_var: "RSA_KEY"
        })
        const missing = fromConfig("missing", {
          url: server.url,
          oauth_grant: "client_credentials",
          oauth_client_id: "svc",
          oauth_client_auth: "private_key_jwt",
          oauth_private_key_file: NodePath.join(dir, "absent.pem")
        })
        const notAKey = fromConfig("garbled", {
          url: server.url,
          oauth_grant: "client_credentials",
          oauth_client_id: "svc",
          oauth_client_auth: "private_key_jwt",
          oauth_private_key_env_var: "NOT_A_KEY"
        })
        yield* run(
          Effect.gen(function* () {
            const c = yield* client([fromFile, fromVariable, missing, notAKey])
            assert.strictEqual(yield* statusOf(c, "svc"), "ready: ")
            assert.strictEqual(yield* statusOf(c, "rsa"), "ready: ")
            assert.strictEqual(server.counts.clientCredentials, 2)
            assert.strictEqual(
              yield* statusOf(c, "missing"),
              `failed: ${Messages.oauth.privateKeyUnusable(`the file ${NodePath.join(dir, "absent.pem")}`, "cannot read it (ENOENT)")}`
            )
            assert.strictEqual(
              yield* statusOf(c, "garbled"),
              `failed: ${Messages.oauth.privateKeyUnusable("variable NOT_A_KEY", "not a PEM private key (PKCS#8, PKCS#1 or SEC1)")}`
            )
            const stored = NodeFs.readFileSync(file, "utf8")
            const keyMaterial = [ecPem, rsaPem, ...credentialsSeen(server, [])]
            for (const secret of keyMaterial) assert.notInclude(stored, secret)
            // the JWK form of the keys either (its private part `d`)
            for (const key of [ecKey, rsaKey]) {
              const d = (key.privateKey.export({ format: "jwk" }) as { d: string }).d
              assert.notInclude(stored, d)
              assertNoSecret([...lines, JSON.stringify(yield* c.servers)], [d])
            }
            assertNoSecret(
              [...lines, JSON.stringify(yield* c.servers)],
              [...server.secrets(), ...ecPem.split("\n").slice(1, -2), "garbled-key-material"]
            )
          }),
          file,
          [
            ["RSA_KEY", rsaPem],
            ["NOT_A_KEY", "-----BEGIN PRIVATE KEY-----\ngarbled-key-material\n-----END PRIVATE KEY-----\n"]
          ],
          lines
        )
      }).pipe(Effect.scoped)
  )

  describe("private_key_jwt refusals name their cause", () => {
    const refused = (options: { clockSkewSec?: number; assertionAudience?: string }) =>
      Effect.gen(function* () {
        const server = yield* fixture({
          machineClients: [{ clientId: "svc", publicKeyPem: pem(ecKey.publicKey, "spki") }],
          ...options
        })
        const dir = yield* tempDir
        const lines: Array<string> = []
        const entry = machine(server.url, { oauth_client_auth: "private_key_jwt", oauth_private_key_env_var: "KEY" })
        return yield* run(
          Effect.gen(function* () {
            const status = yield* statusOf(yield* client([entry]), "svc")
            assertNoSecret([...lines, status], server.secrets())
            return { status, refused: server.counts.refusedAssertions }
          }),
          NodePath.join(dir, TokenStore.fileName),
          [["KEY", pem(ecKey.privateKey, "pkcs8")]],
          lines
        )
      }).pipe(Effect.scoped)
    const grantFailed = (reason: string) =>
      `failed: ${Messages.oauth.grantFailed("svc", "client_credentials", `invalid_client (${reason})`)}`
    /** The number that stands for `N` in `expected` when `text` is `expected` with a number there. */
    const secondsIn = (text: string, expected: string): number => {
      const [before, after] = expected.split(" N s ")
      assert.ok(text.startsWith(`${before} `) && text.endsWith(` s ${after}`), `${text}\nexpected ${expected}`)
      return Number(text.slice(before!.length + 1, text.length - after!.length - 3))
    }

    it.live("an assertion the authorization server's clock sees expired", () =>
      Effect.map(refused({ clockSkewSec: 900 }), ({ status, refused }) => {
        // the SDK's assertions live 300 s: 900 s ahead, the server sees it expired 600 s ago (plus the
        // time the request took)
        const seconds = secondsIn(
          status,
          grantFailed("client assertion expired N s ago by the authorization server's clock")
        )
        assert.isAtLeast(seconds, 600)
        assert.isAtMost(seconds, 630)
        assert.strictEqual(refused, 1)
      })
    )

    it.live("an assertion for another audience", () =>
      Effect.map(refused({ assertionAudience: "https://auth.other.example" }), ({ status }) => {
        assert.match(
          status,
          /^failed: OAuth client_credentials grant for MCP server 'svc' failed: invalid_client \(client assertion audience "http:\/\/127\.0\.0\.1:\d+" is not this server \(expected https:\/\/auth\.other\.example\)\)$/
        )
      })
    )

    it.live("an assertion issued in the future by the authorization server's clock (clock skew)", () =>
      Effect.map(refused({ clockSkewSec: -120 }), ({ status }) => {
        const seconds = secondsIn(
          status,
          grantFailed("client assertion was issued N s in the future by the authorization server's clock: clock skew")
        )
        assert.isAtLeast(seconds, 90)
        assert.isAtMost(seconds, 120)
      })
    )

    it.live("a skew within the tolerance is accepted", () =>
      Effect.map(refused({ clockSkewSec: -10 }), ({ status, refused }) => {
        assert.strictEqual(status, "ready: ")
        assert.strictEqual(refused, 0)
      })
    )
  })

  it.live(
    "enterprise: the ID token is exchanged for an ID-JAG, then a JWT bearer grant; the ID token, the ID-JAG and the secrets are nowhere",
    () =>
      Effect.gen(function* () {
        const server = yield* fixture({
          enterprise: { clientId: "xaa", clientSecret: xaaSecret, idpClientId: "idp-client" }
        })
        const dir = yield* tempDir
        const file = NodePath.join(dir, TokenStore.fileName)
        const lines: Array<string> = []
        const idToken = yield* Effect.promise(() => server.idToken())
        const expired = yield* Effect.promise(() => server.idToken({ expiresInSec: -600 }))
        const keys = (variable: string) => ({
          url: server.url,
          oauth_grant: "enterprise",
          oauth_client_id: "xaa",
          oauth_client_secret_env_var: "XAA_SECRET",
          oauth_idp_token_endpoint: server.idpTokenEndpoint,
          oauth_idp_client_id: "idp-client",
          oauth_idp_id_token_env_var: variable
        })
        const entry = fromConfig("xaa", keys("XAA_ID_TOKEN"))
        const stale = fromConfig("stale", keys("STALE_ID_TOKEN"))
        yield* run(
          Effect.gen(function* () {
            const c = yield* client([entry, stale])
            assert.strictEqual(yield* statusOf(c, "xaa"), "ready: ")
            assert.deepStrictEqual(
              { exchanges: server.counts.tokenExchanges, grants: server.counts.jwtBearerGrants },
              { exchanges: 1, grants: 1 }
            )
            assert.strictEqual((yield* c.listResources("xaa")).resources.length, 3)
            assert.match(
              yield* statusOf(c, "stale"),
              /^failed: OAuth enterprise grant for MCP server 'stale' failed: Token exchange failed: invalid_grant - ID token expired \d+ s ago by the authorization server's clock$/
            )
            // a 401: the whole exchange again
            server.expireAccessTokens()
            yield* c.listResources("xaa")
            assert.strictEqual(server.counts.jwtBearerGrants, 2)
            const stored = NodeFs.readFileSync(file, "utf8")
            for (const secret of credentialsSeen(server, [idToken, expired, xaaSecret]))
              assert.notInclude(stored, secret)
            assertNoSecret([...lines, JSON.stringify(yield* c.servers)], [...server.secrets(), idToken, xaaSecret])
          }),
          file,
          [
            ["XAA_SECRET", xaaSecret],
            ["XAA_ID_TOKEN", idToken],
            ["STALE_ID_TOKEN", expired]
          ],
          lines
        )
      }).pipe(Effect.scoped)
  )

  it.live("enterprise: an ID-JAG the authorization server takes for another audience is refused, naming it", () =>
    Effect.gen(function* () {
      const server = yield* fixture({
        enterprise: { clientId: "xaa", clientSecret: xaaSecret, idpClientId: "idp-client" },
        assertionAudience: "https://auth.other.example"
      })
      const dir = yield* tempDir
      const lines: Array<string> = []
      const idToken = yield* Effect.promise(() => server.idToken())
      const entry = fromConfig("xaa", {
        url: server.url,
        oauth_grant: "enterprise",
        oauth_client_id: "xaa",
        oauth_client_secret_env_var: "XAA_SECRET",
        oauth_idp_token_endpoint: server.idpTokenEndpoint,
        oauth_idp_client_id: "idp-client",
        oauth_idp_id_token_env_var: "XAA_ID_TOKEN"
      })
      yield* run(
        Effect.gen(function* () {
          const status = yield* statusOf(yield* client([entry]), "xaa")
          assert.match(
            status,
            /^failed: OAuth enterprise grant for MCP server 'xaa' failed: invalid_grant \(ID-JAG audience "http:\/\/127\.0\.0\.1:\d+" is not this server \(expected https:\/\/auth\.other\.example\)\)$/
          )
          assertNoSecret([...lines, status], [...server.secrets(), idToken, xaaSecret])
        }),
        NodePath.join(dir, TokenStore.fileName),
        [
          ["XAA_SECRET", xaaSecret],
          ["XAA_ID_TOKEN", idToken]
        ],
        lines
      )
    }).pipe(Effect.scoped)
  )

  it.live(
    "a grant's refresh tokens: a rotating server's new one is used next; a revoked or already used one falls back to a new grant, the log naming why",
    () =>
      Effect.gen(function* () {
        const server = yield* fixture({
          machineClients: [{ clientId: "svc", clientSecret }],
          grantRefreshTokens: true
        })
        const dir = yield* tempDir
        const file = NodePath.join(dir, TokenStore.fileName)
        const lines: Array<string> = []
        const entry = machine(server.url, { oauth_client_secret_env_var: "SVC_SECRET" })
        yield* run(
          Effect.gen(function* () {
            const c = yield* client([entry])
            assert.strictEqual(yield* statusOf(c, "svc"), "ready: ")
            const first = NodeFs.readFileSync(file, "utf8")
            // two refreshes in a row: each uses the refresh token the one before issued (rotation)
            for (const round of [1, 2]) {
              server.expireAccessTokens()
              yield* c.listResources("svc")
              assert.deepStrictEqual(
                { refreshes: server.counts.refreshes, refused: server.counts.refusedRefreshes },
                { refreshes: round, refused: 0 }
              )
            }
            assert.strictEqual(server.counts.clientCredentials, 1)

            // a stale copy of the tokens (its refresh token was used already): refused, then a new grant
            NodeFs.writeFileSync(file, first, { mode: 0o600 })
            server.expireAccessTokens()
            yield* c.listResources("svc")
            assert.deepStrictEqual(
              { refused: server.counts.refusedRefreshes, grants: server.counts.clientCredentials },
              { refused: 1, grants: 2 }
            )
            assert.ok(
              lines.some((line) =>
                line.includes(
                  "the refresh token was refused (invalid_grant (the refresh token was already used (this server rotates refresh tokens: each works once))); a new token was requested"
                )
              ),
              lines.join("\n")
            )

            // a revoked refresh token: refused, then a new grant
            server.revokeRefreshTokens()
            server.expireAccessTokens()
            yield* c.listResources("svc")
            assert.deepStrictEqual(
              { refused: server.counts.refusedRefreshes, grants: server.counts.clientCredentials },
              { refused: 2, grants: 3 }
            )
            assert.ok(
              lines.some((line) =>
                line.includes("(invalid_grant (the refresh token was revoked)); a new token was requested")
              ),
              lines.join("\n")
            )
            assertNoSecret([...lines, JSON.stringify(yield* c.servers)], [...server.secrets(), clientSecret])
            assert.notInclude(NodeFs.readFileSync(file, "utf8"), clientSecret)
          }),
          file,
          [["SVC_SECRET", clientSecret]],
          lines
        )
      }).pipe(Effect.scoped)
  )

  it.live("a variable a grant needs that is not set fails the start-up naming it (not its value)", () =>
    Effect.gen(function* () {
      const server = yield* fixture({ machineClients: [{ clientId: "svc", clientSecret }] })
      const dir = yield* tempDir
      const lines: Array<string> = []
      const entry = machine(server.url, { oauth_client_secret_env_var: "UNSET_SECRET" })
      yield* run(
        Effect.gen(function* () {
          assert.strictEqual(
            yield* statusOf(yield* client([entry]), "svc"),
            `failed: ${Messages.oauth.variableNotSet("UNSET_SECRET", "the OAuth client secret")}`
          )
          assert.strictEqual(
            message(yield* Effect.either(login(entry))),
            Messages.oauth.variableNotSet("UNSET_SECRET", "the OAuth client secret")
          )
        }),
        NodePath.join(dir, TokenStore.fileName),
        [],
        lines
      )
    }).pipe(Effect.scoped)
  )
})
