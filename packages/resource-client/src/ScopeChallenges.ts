/**
 * Scope step-up announcements: when a server refuses a request with `403 insufficient_scope` and no
 * token with those scopes can be had without the user (a login in a browser), the connection
 * records the scopes in the `TokenStore` (the next login asks for them) and publishes them here. The
 * app-server forwards each one as `mcpServer/oauth/scopeRequired`. Provide `layer` beside the
 * `TokenStore` to `McpTransport.layer`; without it the scopes are only recorded.
 */
import { Context, Effect, Layer, PubSub, type Queue, type Scope } from "effect"

/** A server asked for scopes no stored token has: the login of `server` should request `requiredScopes`. */
export interface ScopeChallenge {
  readonly server: string
  /** Every scope the server asked for since the last login, once each. */
  readonly requiredScopes: ReadonlyArray<string>
}

export interface Service {
  /** Announces a challenge to every subscriber. */
  readonly publish: (challenge: ScopeChallenge) => Effect.Effect<void>
  /** The challenges announced from now on, until the scope closes. */
  readonly subscribe: Effect.Effect<Queue.Dequeue<ScopeChallenge>, never, Scope.Scope>
}

/** The ScopeChallenges service tag. Layer: `layer`. */
export class ScopeChallenges extends Context.Tag("@mcp-resources/resource-client/ScopeChallenges")<
  ScopeChallenges,
  Service
>() {}

/** How many announcements a slow subscriber may fall behind (older ones are dropped first). */
export const capacity = 64

/** In the process: every subscriber receives every challenge published after it subscribed. */
export const layer: Layer.Layer<ScopeChallenges> = Layer.effect(
  ScopeChallenges,
  Effect.map(PubSub.sliding<ScopeChallenge>(capacity), (hub) =>
    ScopeChallenges.of({
      publish: (challenge) => Effect.asVoid(PubSub.publish(hub, challenge)),
      subscribe: PubSub.subscribe(hub)
    })
  )
)
