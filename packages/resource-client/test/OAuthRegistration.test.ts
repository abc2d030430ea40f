/**
 * Which client a login uses, and where it finds the authorization server, against the OAuth fixture:
 * the client ID metadata document (`oauth_client_metadata_url`) where the authorization server
 * advertises support, dynamic registration otherwise, a pre-registered `oauth_client_id` always
 * first; and the 2025-03-26 discovery back-compat (no protected resource metadata, an issuer with a
 * path on the server's own origin), while an issuer with a path that protected resource metadata
 * names is still refused.
 */
import { assert, describe, it } from "@effect/vitest"
import { Messages } from "@mcp-resources/protocol"
import { ConfigProvider, Effect, Layer } from "effect"
import { McpTransport, TokenStore } from "../src/index.js"
import { client, fixture, freePort, http, login, message, statusOf } from "./utils/oauth.js"

const documentUrl = "https://client.example/mcp-resources/client-metadata.json"

/** A memory token store and the transports over it (one store: the layer is built once per provide). */
const services = Layer.merge(TokenStore.layerMemory, McpTransport.layer.pipe(Layer.provide(TokenStore.layerMemory)))

describe("OAuth client registration and discovery", () => {
  it.live("the metadata document's URL is the client id where the authorization server accepts one", () =>
    Effect.gen(function* () {
      const server = yield* fixture({ clientIdMetadataDocuments: [documentUrl] })
      const entry = http("docs", server.url, { oauthClientMetadataUrl: documentUrl })
      yield* Effect.gen(function* () {
        const url = yield* login(entry)
        assert.strictEqual(url?.searchParams.get("client_id"), documentUrl)
        assert.strictEqual(server.counts.registrations, 0, "no dynamic registration")
        const c = yield* client([entry])
        assert.strictEqual(yield* statusOf(c, "docs"), "ready: ")
        // the refresh authenticates as the same public client
        server.expireAccessTokens()
        yield* c.listResources("docs")
        assert.strictEqual(server.counts.refreshes, 1)
      }).pipe(Effect.provide(services), Effect.scoped)
    }).pipe(Effect.scoped)
  )

  it.live("without the authorization server's support the client registers dynamically", () =>
    Effect.gen(function* () {
      const server = yield* fixture()
      const entry = http("docs", server.url, { oauthClientMetadataUrl: documentUrl })
      const url = yield* login(entry).pipe(Effect.provide(services))
      assert.notStrictEqual(url?.searchParams.get("client_id"), documentUrl)
      assert.strictEqual(server.counts.registrations, 1)
    }).pipe(Effect.scoped)
  )

  it.live("a pre-registered client comes first, even where metadata documents are accepted", () =>
    Effect.gen(function* () {
      const secret = "pre-registered-secret"
      const port = yield* freePort
      const server = yield* fixture({
        clientIdMetadataDocuments: [documentUrl],
        preRegistered: [
          { clientId: "cli-app", clientSecret: secret, redirectUris: [`http://127.0.0.1:${port}/callback`] }
        ]
      })
      const entry = http("docs", server.url, {
        oauthClientId: "cli-app",
        oauthClientSecretEnvVar: "DOCS_SECRET",
        oauthRedirectPort: port,
        oauthClientMetadataUrl: documentUrl
      })
      const url = yield* login(entry).pipe(
        Effect.provide(services),
        Effect.withConfigProvider(ConfigProvider.fromMap(new Map([["DOCS_SECRET", secret]])))
      )
      assert.strictEqual(url?.searchParams.get("client_id"), "cli-app")
      assert.strictEqual(server.counts.codeExchanges, 1)
    }).pipe(Effect.scoped)
  )

  it.live("2025-03-26: no resource metadata, an issuer with a path on the server's origin: the login works", () =>
    Effect.gen(function* () {
      const server = yield* fixture({ protectedResourceMetadata: false, issuerPath: "/oauth" })
      const entry = http("docs", server.url)
      yield* Effect.gen(function* () {
        const url = yield* login(entry)
        assert.strictEqual(`${url?.origin}${url?.pathname}`, `${server.issuer}/authorize`)
        assert.strictEqual(server.counts.codeExchanges, 1)
        const c = yield* client([entry])
        assert.strictEqual(yield* statusOf(c, "docs"), "ready: ")
        server.expireAccessTokens()
        yield* c.listResources("docs")
        assert.strictEqual(server.counts.refreshes, 1, "the refresh finds the same authorization server")
      }).pipe(Effect.provide(services), Effect.scoped)
    }).pipe(Effect.scoped)
  )

  it.live("an issuer other than the one protected resource metadata names is still refused", () =>
    Effect.gen(function* () {
      const server = yield* fixture({ issuerPath: "/oauth" })
      const refused = yield* Effect.either(login(http("docs", server.url)).pipe(Effect.provide(services)))
      assert.match(message(refused), /^login to MCP server 'docs' failed: .*issuer/i)
      assert.ok(message(refused).startsWith(Messages.oauth.failed("docs", "")), message(refused))
      assert.strictEqual(server.counts.authorizations, 0)
    }).pipe(Effect.scoped)
  )
})
