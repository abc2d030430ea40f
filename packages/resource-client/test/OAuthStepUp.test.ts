/**
 * Scope step-up against the OAuth fixture, whose `resources/read` needs a scope the first login did
 * not ask for (`403 insufficient_scope`): a server logged in to in a browser stays ready, the read
 * fails naming the scopes and the login, the scopes are recorded (`OAuth.requiredScopes`) and
 * announced (`ScopeChallenges`), the next login asks for the union, and the read then works on the
 * same connection. A non-interactive grant asks for the wider token itself and the read works at once.
 */
import { assert, describe, it } from "@effect/vitest"
import { Messages } from "@mcp-resources/protocol"
import { ConfigProvider, Effect, Layer, Queue } from "effect"
import { McpTransport, OAuth, ScopeChallenges, TokenStore } from "../src/index.js"
import { client, fixture, fromConfig, http, login, message, statusOf } from "./utils/oauth.js"

const stepUp = { method: "resources/read", scope: "mcp docs:read" }
const uri = "example://docs/readme.md"

const services = Layer.mergeAll(TokenStore.layerMemory, ScopeChallenges.layer).pipe((base) =>
  Layer.merge(base, McpTransport.layer.pipe(Layer.provide(base)))
)

describe("OAuth scope step-up", () => {
  it.live(
    "a 403 insufficient_scope leaves the server ready; the scopes are recorded and announced; the next login asks for the union; the read then works",
    () =>
      Effect.gen(function* () {
        const server = yield* fixture({ stepUp })
        const entry = http("docs", server.url)
        yield* Effect.gen(function* () {
          const challenges = yield* (yield* ScopeChallenges.ScopeChallenges).subscribe
          const first = yield* login(entry)
          assert.strictEqual(first?.searchParams.get("scope"), "mcp")
          const c = yield* client([entry])
          assert.strictEqual(yield* statusOf(c, "docs"), "ready: ")

          const refused = yield* Effect.either(c.readResource("docs", uri))
          assert.include(message(refused), Messages.oauth.scopeRequired("docs", "mcp docs:read"))
          assert.strictEqual(yield* statusOf(c, "docs"), "ready: ", "the server is not failed")
          assert.deepStrictEqual(yield* OAuth.requiredScopes(entry), ["mcp", "docs:read"])
          assert.deepStrictEqual(yield* Queue.take(challenges), {
            server: "docs",
            requiredScopes: ["mcp", "docs:read"]
          })
          // the same refusal again is recorded already: no second announcement
          yield* Effect.either(c.readResource("docs", uri))
          assert.strictEqual(yield* Queue.size(challenges), 0)

          const second = yield* login(entry)
          assert.strictEqual(second?.searchParams.get("scope"), "mcp docs:read")
          assert.deepStrictEqual(yield* OAuth.requiredScopes(entry), [], "a login ends the step-up")
          // the refused request again, on the same connection: it works now
          const read = yield* c.readResource("docs", uri)
          assert.strictEqual(read.contents.length, 1)
          assert.strictEqual(server.counts.insufficientScope, 2)
        }).pipe(Effect.provide(services))
      }).pipe(Effect.scoped)
  )

  it.live("a non-interactive grant asks for a token with the wider scope and sends the request again itself", () =>
    Effect.gen(function* () {
      const secret = "step-up-client-secret"
      const server = yield* fixture({ stepUp, machineClients: [{ clientId: "svc", clientSecret: secret }] })
      const entry = fromConfig("svc", {
        url: server.url,
        oauth_grant: "client_credentials",
        oauth_client_id: "svc",
        oauth_client_secret_env_var: "SVC_SECRET"
      })
      yield* Effect.gen(function* () {
        const challenges = yield* (yield* ScopeChallenges.ScopeChallenges).subscribe
        const c = yield* client([entry])
        assert.strictEqual(yield* statusOf(c, "svc"), "ready: ")
        const read = yield* c.readResource("svc", uri)
        assert.strictEqual(read.contents.length, 1)
        assert.strictEqual(server.counts.insufficientScope, 1)
        assert.strictEqual(server.counts.clientCredentials, 2)
        assert.deepStrictEqual(server.grantedScopes, ["mcp", "mcp docs:read"])
        assert.deepStrictEqual(yield* OAuth.requiredScopes(entry), [])
        assert.strictEqual(yield* Queue.size(challenges), 0, "nothing for a user to do")
        // the wider token is kept: the next read needs no step-up
        yield* c.readResource("svc", uri)
        assert.strictEqual(server.counts.insufficientScope, 1)
      }).pipe(
        Effect.provide(services),
        Effect.withConfigProvider(ConfigProvider.fromMap(new Map([["SVC_SECRET", secret]])))
      )
    }).pipe(Effect.scoped)
  )
})
