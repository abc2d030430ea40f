/**
 * `mcpServer/oauth/login`: the login of an OAuth HTTP server for IDEs. The result is the
 * authorization URL; the login then waits for the browser's redirect to its loopback listener and
 * ends with the notification `mcpServer/oauth/loginCompleted` to the connections that asked. What
 * happens to a login, one per server at a time on every instance sharing the token store, is
 * OAuthLogins.ts. The login asks for the scopes granted before and those of
 * `mcpServer/oauth/scopeRequired` (scope step-up); an entry with a non-interactive grant gets its
 * tokens at once (the URL is then empty).
 */
import { type AppServer, Messages } from "@mcp-resources/protocol"
import { ResourceClient, ScopeChallenges } from "@mcp-resources/resource-client"
import { Effect, Layer, Queue } from "effect"
import { Connections } from "../Connections.js"
import { invalidRequest, method } from "../Method.js"
import { OAuthLogins } from "../OAuthLogins.js"

const scopeRequired = "mcpServer/oauth/scopeRequired" satisfies AppServer.NotificationMethod

/**
 * Scope step-up: every challenge of `ScopeChallenges` (a server refused a request with
 * `403 insufficient_scope` for scopes no stored token has) goes to every initialized connection as
 * `mcpServer/oauth/scopeRequired {server, requiredScopes}`.
 */
export const scopeRequiredLayer: Layer.Layer<never, never, ScopeChallenges.ScopeChallenges | Connections> =
  Layer.scopedDiscard(
    Effect.gen(function* () {
      const connections = yield* Connections
      const challenges = yield* (yield* ScopeChallenges.ScopeChallenges).subscribe
      yield* Effect.forkScoped(
        Effect.forever(
          Effect.flatMap(Queue.take(challenges), (challenge) =>
            Effect.flatMap(connections.initialized, (ids) =>
              connections.notify(ids, scopeRequired, {
                server: challenge.server,
                requiredScopes: challenge.requiredScopes
              } satisfies typeof AppServer.McpServerOAuthScopeRequiredNotification.Type)
            )
          )
        )
      )
    })
  )

/** The OAuth methods. */
export const oauthMethods = {
  "mcpServer/oauth/login": method("mcpServer/oauth/login", {
    run: ({ server }, context) =>
      Effect.gen(function* () {
        const config = yield* (yield* ResourceClient.ResourceClient).config
        const entry = config.mcpServers.find((candidate) => candidate.name === server)
        if (entry === undefined) return yield* Effect.fail(invalidRequest(Messages.unknownServer(server)))
        const logins = yield* OAuthLogins
        return { authorizationUrl: yield* logins.login(entry, context.connection.id) }
      })
  })
}
