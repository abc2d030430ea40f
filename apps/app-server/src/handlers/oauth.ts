/**
 * `mcpServer/oauth/login`: the login of an OAuth HTTP server for IDEs. The result is the
 * authorization URL; the login then waits (at most {@link loginTimeoutSec}) for the browser's
 * redirect to its loopback listener and ends with the notification `mcpServer/oauth/loginCompleted`
 * to the connection that asked. A successful login publishes a new connection set (as
 * `config/mcpServer/reload` does), so the server comes up without a restart.
 *
 * One login per server at a time: a login of a server (same name and URL) that has one pending
 * answers the pending login's URL, and its end is notified to every connection that asked for it.
 * The login asks for the scopes granted before and those of `mcpServer/oauth/scopeRequired` (scope
 * step-up); an entry with a non-interactive grant gets its tokens at once (the URL is then empty).
 */
import { type AppServer, Messages } from "@mcp-resources/protocol"
import { OAuth, ResourceClient, ScopeChallenges, ServerEntry, TokenStore } from "@mcp-resources/resource-client"
import { Cause, Context, Deferred, Effect, Exit, Layer, Option, Queue, Scope } from "effect"
import { Connections } from "../Connections.js"
import { invalidRequest, type MethodError, method } from "../Method.js"

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

/** How long a login waits for the redirect. */
export const loginTimeoutSec = 300

const completed = "mcpServer/oauth/loginCompleted" satisfies AppServer.NotificationMethod

/** A login in progress: its URL once known, and the connections that asked for it. */
interface Pending {
  readonly started: Deferred.Deferred<string, MethodError>
  readonly connections: Set<number>
}

/**
 * The logins in progress of one app-server, by server name and URL: a service (one per
 * {@link OAuthLogins.layer}), so that two app-servers in one process (tests, embedders) never share one.
 */
export class OAuthLogins extends Context.Tag("@mcp-resources/app-server/OAuthLogins")<
  OAuthLogins,
  Map<string, Pending>
>() {
  static readonly layer: Layer.Layer<OAuthLogins> = Layer.sync(OAuthLogins, () => new Map())
}

/** The OAuth methods. */
export const oauthMethods = {
  "mcpServer/oauth/login": method("mcpServer/oauth/login", {
    run: ({ server }, context) =>
      Effect.gen(function* () {
        const client = yield* ResourceClient.ResourceClient
        const config = yield* client.config
        const entry = config.mcpServers.find((candidate) => candidate.name === server)
        if (entry === undefined) return yield* Effect.fail(invalidRequest(Messages.unknownServer(server)))
        const store = yield* Effect.serviceOption(TokenStore.TokenStore)
        if (Option.isNone(store)) return yield* Effect.fail(invalidRequest("this server keeps no OAuth tokens"))
        const key = `${entry.name}\u0000${entry.transport._tag === "http" ? entry.transport.url : ""}`
        const pending = yield* OAuthLogins
        const running = pending.get(key)
        if (running !== undefined) {
          running.connections.add(context.connection.id)
          return { authorizationUrl: yield* Deferred.await(running.started) }
        }
        const login: Pending = {
          started: yield* Deferred.make<string, MethodError>(),
          connections: new Set([context.connection.id])
        }
        pending.set(key, login)
        const connections = yield* Effect.serviceOption(Connections)
        const scope = yield* Scope.make()
        const start = yield* OAuth.startLogin(entry, { timeoutSec: loginTimeoutSec }).pipe(
          Scope.extend(scope),
          Effect.provideService(TokenStore.TokenStore, store.value),
          Effect.mapError((error) => invalidRequest(error.message)),
          Effect.onError((cause) =>
            Effect.all([
              Deferred.failCause(login.started, cause),
              Scope.close(scope, Exit.void),
              Effect.sync(() => pending.delete(key))
            ])
          )
        )
        yield* Deferred.succeed(login.started, start.authorizationUrl)
        const notify = (params: typeof AppServer.McpServerOAuthLoginCompletedNotification.Type) =>
          Option.match(connections, {
            onNone: () => Effect.void,
            onSome: (registry) => registry.notify([...login.connections], completed, params)
          })
        yield* start.completion.pipe(
          Effect.exit,
          Effect.tap(() => Scope.close(scope, Exit.void)),
          // a login asked for from now on is a new one
          Effect.tap(() => Effect.sync(() => pending.delete(key))),
          Effect.flatMap((exit) =>
            Exit.isSuccess(exit)
              ? Effect.gen(function* () {
                  yield* Effect.logInfo("OAuth login completed").pipe(Effect.annotateLogs({ server }))
                  // the server comes up with its tokens: a new set of the current config
                  yield* client.reload(ServerEntry.fromConfig(yield* client.config))
                  yield* notify({ server, success: true })
                })
              : Effect.gen(function* () {
                  const failure = Cause.failureOption(exit.cause)
                  const error = Option.isSome(failure) ? failure.value.message : "the login was interrupted"
                  yield* Effect.logWarning("OAuth login failed").pipe(Effect.annotateLogs({ server, error }))
                  yield* notify({ server, success: false, error })
                })
          ),
          Effect.forkDaemon
        )
        return { authorizationUrl: start.authorizationUrl }
      })
  })
}
