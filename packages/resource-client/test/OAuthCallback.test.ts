/**
 * The login's redirect listener and the authorization URL it prints, against the real loopback
 * authorization server (issue 46, item 7): a redirect that does not carry the login's `state` is
 * answered 400 and ignored (the login goes on and completes with its own redirect), and an
 * authorization endpoint that is not https (or http on a loopback host) is refused, never printed.
 */
import { assert, describe, it } from "@effect/vitest"
import { followAuthorization } from "@mcp-resources/fixtures"
import { Messages } from "@mcp-resources/protocol"
import { Effect, Either, Layer } from "effect"
import { McpTransport, OAuth, TokenStore } from "../src/index.js"
import { fixture, http, message } from "./utils/oauth.js"

const store = TokenStore.layerMemory
const layers = Layer.merge(store, McpTransport.layer.pipe(Layer.provide(store)))

/** A GET of the listener: its status and body. */
const get = (url: string) =>
  Effect.promise(async () => {
    const response = await fetch(url)
    return { status: response.status, body: await response.text() }
  })

describe("OAuth login redirects", () => {
  it.live("a redirect with a wrong or no state is answered 400 and ignored; the login completes with its own", () =>
    Effect.gen(function* () {
      const server = yield* fixture()
      const entry = http("docs", server.url)
      const start = yield* OAuth.startLogin(entry, { timeoutSec: 30 })
      const wrong = yield* get(`${start.redirectUrl}?code=forged&state=not-the-login`)
      const missing = yield* get(`${start.redirectUrl}?code=forged`)
      const refusal = yield* get(`${start.redirectUrl}?error=access_denied&state=other`)
      for (const answer of [wrong, missing, refusal]) {
        assert.strictEqual(answer.status, 400)
        assert.include(answer.body, Messages.oauth.pageWrongState)
        assert.notInclude(answer.body, Messages.oauth.pageDone)
      }
      // the login is still waiting: the real redirect completes it
      const status = yield* Effect.promise(() => followAuthorization(start.authorizationUrl))
      assert.strictEqual(status, 200)
      yield* start.completion
      assert.strictEqual(server.counts.codeExchanges, 1, "only the login's own code was exchanged")
      assert.strictEqual(yield* OAuth.authState(entry, undefined), "loggedIn")
    }).pipe(Effect.provide(layers), Effect.scoped)
  )

  it.live("an authorization endpoint that is not https, or http off loopback, is refused and never printed", () =>
    Effect.gen(function* () {
      const attempt = (endpoint: string) =>
        Effect.gen(function* () {
          const server = yield* fixture({ authorizationEndpoint: endpoint })
          const result = yield* Effect.either(OAuth.startLogin(http("docs", server.url), { timeoutSec: 30 }))
          if (Either.isRight(result)) assert.notInclude(result.right.authorizationUrl, endpoint)
          return message(result)
        }).pipe(Effect.scoped)
      assert.strictEqual(
        yield* attempt("file:///etc/passwd"),
        "login to MCP server 'docs' failed: its authorization endpoint is a file: URL; only https (or http on a loopback host) is opened"
      )
      assert.strictEqual(
        yield* attempt("http://login.example/authorize"),
        "login to MCP server 'docs' failed: its authorization endpoint is a non-loopback http: URL; only https (or http on a loopback host) is opened"
      )
    }).pipe(Effect.provide(layers), Effect.scoped)
  )
})
