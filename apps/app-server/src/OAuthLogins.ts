/**
 * The OAuth logins in progress of an app-server (`mcpServer/oauth/login`; docs/oauth.md): one per
 * server at a time, on every app-server that shares the token store.
 *
 * A login started here opens its loopback listener (`OAuth.startLogin`), and its authorization URL
 * and expiry are written into the server's stored entry (`pending_login`), under the store's lock of
 * that login, so that another instance of a cluster asked for the same login answers that URL instead
 * of starting a second flow. When the login ends its entry holds the tokens (and no `pending_login`)
 * or, failed, the reason (`login_failure`); this instance brings the server up with a new connection
 * set, tells the connections that asked (`mcpServer/oauth/loginCompleted`), and the {@link Announcer}
 * tells the other instances (on a cluster, the instance feed's `loginEnded`). Each of them reads the
 * outcome from the store ({@link Service.ended}): on success it brings the server up too, and it tells
 * its own connections that waited for that login. A waiting instance gives up when the stored login
 * expires, in case the instance running it died.
 *
 * With `[oauth] redirect_url`, no instance runs a listener of its own: the login is started into the
 * store (`OAuth.startStoredLogin`: with its PKCE verifier and state) and followed like another
 * instance's, and the `--listen` listener hands the redirect to {@link Service.redirected}, which
 * completes the stored login on whichever instance (or process, after a restart) received it.
 */
import { type AppServer, Messages } from "@mcp-resources/protocol"
import { OAuth, ResourceClient, ServerEntry, TokenStore } from "@mcp-resources/resource-client"
import { Cause, Context, Deferred, Duration, Effect, Either, Exit, Fiber, FiberId, Layer, Option, Scope } from "effect"
import { Connections } from "./Connections.js"
import { invalidRequest, type MethodError } from "./Method.js"

/** How long a login waits for the redirect. */
export const loginTimeoutSec = 300

/** How long after a stored login's expiry another instance waiting for it gives up (the running one's own timeout comes first). */
const expiryGraceMs = 5_000

const completed = "mcpServer/oauth/loginCompleted" satisfies AppServer.NotificationMethod

/** How a login ended, as `mcpServer/oauth/loginCompleted` says it. */
type Outcome = typeof AppServer.McpServerOAuthLoginCompletedNotification.Type

/**
 * The other app-servers on the store: nobody alone ({@link layerAlone}); on a cluster (Cluster.ts) the
 * instance feed, which tells them that a login ended.
 */
export class Announcer extends Context.Tag("@mcp-resources/app-server/OAuthLogins/Announcer")<
  Announcer,
  {
    /** Whether other instances share the logins: only then is a login in progress stored and followed. */
    readonly shared: boolean
    /** Tells the other instances that the login of `server` ended. */
    readonly ended: (server: string) => Effect.Effect<void>
  }
>() {}

/** An app-server alone: nobody else to tell, and a stored login in progress is no one else's. */
export const layerAlone: Layer.Layer<Announcer> = Layer.succeed(Announcer, { shared: false, ended: () => Effect.void })

/** A login this instance waits for: run here, or (on a cluster) by another instance. */
interface Pending {
  readonly server: string
  readonly key: TokenStore.Key
  /** The authorization URL, once known. */
  readonly started: Deferred.Deferred<string, MethodError>
  /** The connections that asked for it here. */
  readonly connections: Set<number>
  /**
   * Ended through the store: run by another instance, or a login whose redirect the listener serves
   * (whichever instance receives it completes it); its end comes as {@link Service.ended} or
   * {@link Service.redirected}, or this instance gives up at its {@link expiry}.
   */
  followed: boolean
  expiry?: Fiber.RuntimeFiber<void> | undefined
}

export interface Service {
  /** The login of `entry` for `connection`: the URL of the login in progress, here or elsewhere, else of a new one. */
  readonly login: (entry: ServerEntry.ServerEntry, connection: number) => Effect.Effect<string, MethodError, Announcer>
  /** Another instance's login of `server` ended: its outcome is read from the store. */
  readonly ended: (server: string) => Effect.Effect<void>
  /**
   * A request the `--listen` listener received: for the path of `[oauth] redirect_url`, the
   * browser's redirect of a login in progress, completed here (the status and page to answer); None
   * for any other path.
   */
  readonly redirected: (url: URL) => Effect.Effect<Option.Option<{ readonly status: number; readonly html: string }>>
  /** Notices of other instances may have been lost: every login waited for here whose stored entry says it ended, ends. */
  readonly missed: Effect.Effect<void>
}

const keyText = (key: TokenStore.Key) => `${key.server}\u0000${key.url}`

/**
 * The logins of one app-server (one map per layer, so that two app-servers in one process, tests
 * or embedders, never share one); its fibers end with the layer.
 */
export class OAuthLogins extends Context.Tag("@mcp-resources/app-server/OAuthLogins")<OAuthLogins, Service>() {
  static readonly layer: Layer.Layer<
    OAuthLogins,
    never,
    ResourceClient.ResourceClient | TokenStore.TokenStore | Connections
  > = Layer.scoped(
    OAuthLogins,
    Effect.gen(function* () {
      const client = yield* ResourceClient.ResourceClient
      const store = yield* TokenStore.TokenStore
      const connections = yield* Connections
      const layerScope = yield* Effect.scope
      const pending = new Map<string, Pending>()

      /** The server comes up with its tokens: a new connection set of the current config (a failure is logged). */
      const reloadSet = Effect.flatMap(client.config, (config) => client.reload(ServerEntry.fromConfig(config))).pipe(
        Effect.catchAllCause((cause) =>
          Effect.logWarning("the connection set after an OAuth login did not start", cause)
        )
      )

      /** Ends a login waited for here: the server comes up on success, then every connection that asked is told. */
      const end = (login: Pending, outcome: Outcome) =>
        Effect.gen(function* () {
          // a login asked for from now on is a new one
          if (pending.get(keyText(login.key)) === login) pending.delete(keyText(login.key))
          const expiry = login.expiry
          login.expiry = undefined
          if (expiry !== undefined) yield* Fiber.interruptFork(expiry)
          if (outcome.success) {
            yield* Effect.logInfo("OAuth login completed").pipe(Effect.annotateLogs({ server: login.server }))
            yield* reloadSet
          } else {
            yield* Effect.logWarning("OAuth login failed").pipe(
              Effect.annotateLogs({ server: login.server, error: outcome.error ?? "" })
            )
          }
          yield* connections.notify([...login.connections], completed, outcome)
        })

      const stored = (key: TokenStore.Key) => store.get(key).pipe(Effect.map(Option.getOrUndefined))

      /** Runs `effect` under the store's lock of this login, the one a token refresh takes (a store without one: in this process). */
      const exclusively = <A, E, R>(key: TokenStore.Key, effect: Effect.Effect<A, E, R>) =>
        store.lock === undefined
          ? effect
          : Effect.acquireUseRelease(
              store.lock(key),
              () => effect,
              (release) => release
            )

      /**
       * Writes `update` of the stored entry (a failure is logged, the login goes on). The caller holds
       * the login's lock, so that no refresh's new tokens are written over.
       */
      const updateStored = (key: TokenStore.Key, update: (entry: TokenStore.Entry) => TokenStore.Entry) =>
        Effect.flatMap(stored(key), (entry) => store.set(key, update(entry ?? {}))).pipe(
          Effect.catchAll((error) => Effect.logWarning(`the OAuth login's state was not stored: ${error.message}`))
        )

      /** The outcome of another instance's login as its stored entry says, or None while it still runs. */
      const storedOutcome = (login: Pending): Effect.Effect<Option.Option<Outcome>> =>
        stored(login.key).pipe(
          Effect.map((entry): Option.Option<Outcome> => {
            if (entry?.pending_login !== undefined && entry.pending_login.expires_at > Date.now()) return Option.none()
            if (entry?.login_failure !== undefined)
              return Option.some({ server: login.server, success: false, error: entry.login_failure })
            return Option.some(
              entry?.tokens !== undefined
                ? { server: login.server, success: true }
                : {
                    server: login.server,
                    success: false,
                    error: Messages.oauth.timedOut(login.server, loginTimeoutSec)
                  }
            )
          }),
          Effect.catchAll((error) =>
            Effect.succeed(Option.some<Outcome>({ server: login.server, success: false, error: error.message }))
          )
        )

      /** Waits here for a login another instance runs: its URL now, its end from {@link Service.ended} or at its expiry. */
      const follow = (login: Pending, url: string, expiresAt: number) =>
        Effect.gen(function* () {
          login.followed = true
          yield* Deferred.succeed(login.started, url)
          login.expiry = yield* Effect.sleep(Duration.millis(Math.max(0, expiresAt - Date.now()) + expiryGraceMs)).pipe(
            Effect.zipRight(
              Effect.suspend(() => {
                login.expiry = undefined
                return end(login, {
                  server: login.server,
                  success: false,
                  error: Messages.oauth.timedOut(login.server, loginTimeoutSec)
                })
              })
            ),
            Effect.forkIn(layerScope)
          )
        })

      /**
       * Starts a login whose redirect the listener serves (`[oauth] redirect_url`): the store keeps it
       * (OAuth.ts `startStoredLogin`), and it is followed here like another instance's.
       */
      const runStored = (
        login: Pending,
        entry: ServerEntry.ServerEntry,
        redirectUrl: string,
        announcer: Announcer["Type"]
      ) =>
        Effect.gen(function* () {
          const start = yield* OAuth.startStoredLogin(entry, { redirectUrl, timeoutSec: loginTimeoutSec }).pipe(
            Effect.scoped,
            Effect.provideService(TokenStore.TokenStore, store),
            Effect.mapError((error) => invalidRequest(error.message))
          )
          if (start.authorizationUrl !== "") return yield* follow(login, start.authorizationUrl, start.expiresAt)
          // a non-interactive grant: the tokens are stored already
          yield* Deferred.succeed(login.started, "")
          yield* announcer
            .ended(login.server)
            .pipe(Effect.zipRight(end(login, { server: login.server, success: true })), Effect.forkIn(layerScope))
        })

      /** Runs a new login here: its URL is stored for the other instances, its end is stored and announced. */
      const run = (login: Pending, entry: ServerEntry.ServerEntry, announcer: Announcer["Type"]) =>
        Effect.gen(function* () {
          const scope = yield* Scope.make()
          const start = yield* OAuth.startLogin(entry, { timeoutSec: loginTimeoutSec }).pipe(
            Scope.extend(scope),
            Effect.provideService(TokenStore.TokenStore, store),
            Effect.mapError((error) => invalidRequest(error.message)),
            Effect.onError(() => Scope.close(scope, Exit.void))
          )
          if (announcer.shared && start.authorizationUrl !== "") {
            yield* updateStored(login.key, ({ login_failure: _, ...entry }) => ({
              ...entry,
              pending_login: {
                authorization_url: start.authorizationUrl,
                expires_at: Date.now() + loginTimeoutSec * 1000
              }
            }))
          }
          yield* Deferred.succeed(login.started, start.authorizationUrl)
          yield* start.completion.pipe(
            Effect.exit,
            Effect.tap(() => Scope.close(scope, Exit.void)),
            Effect.flatMap((exit) => {
              const outcome: Outcome = Exit.isSuccess(exit)
                ? { server: login.server, success: true }
                : {
                    server: login.server,
                    success: false,
                    error: Option.match(Cause.failureOption(exit.cause), {
                      onNone: () => "the login was interrupted",
                      onSome: (failure) => failure.message
                    })
                  }
              // a successful login stored its tokens in place of the pending login
              const recorded = outcome.success
                ? Effect.void
                : !announcer.shared
                  ? Effect.void
                  : exclusively(
                      login.key,
                      updateStored(login.key, ({ pending_login: _, ...rest }) => ({
                        ...rest,
                        login_failure: outcome.error ?? "the login failed"
                      }))
                    ).pipe(
                      Effect.catchAll((error) =>
                        Effect.logWarning(`the OAuth login's end was not stored: ${error.message}`)
                      )
                    )
              return recorded.pipe(
                Effect.zipRight(announcer.ended(login.server)),
                Effect.uninterruptible,
                Effect.zipRight(end(login, outcome))
              )
            }),
            Effect.forkIn(layerScope)
          )
        })

      const login: Service["login"] = (entry, connection) =>
        Effect.gen(function* () {
          if (entry.transport._tag !== "http") {
            return yield* Effect.fail(invalidRequest(Messages.oauth.notHttp(entry.name)))
          }
          const key = { server: entry.name, url: entry.transport.url }
          const running = pending.get(keyText(key))
          if (running !== undefined) {
            running.connections.add(connection)
            return yield* Deferred.await(running.started)
          }
          const login: Pending = {
            server: entry.name,
            key,
            started: Deferred.unsafeMake<string, MethodError>(FiberId.none),
            connections: new Set([connection]),
            followed: false
          }
          pending.set(keyText(key), login)
          const announcer = yield* Announcer
          const redirectUrl = (yield* client.config).oauth?.redirectUrl
          // one login at a time on every instance: decided under the store's lock of this login (a
          // stored login whose redirect the listener serves is followed too, also one from before a restart)
          const started = Effect.gen(function* () {
            const inProgress =
              announcer.shared || redirectUrl !== undefined ? (yield* stored(key))?.pending_login : undefined
            if (inProgress !== undefined && inProgress.expires_at > Date.now()) {
              return yield* follow(login, inProgress.authorization_url, inProgress.expires_at)
            }
            return yield* redirectUrl !== undefined
              ? runStored(login, entry, redirectUrl, announcer)
              : run(login, entry, announcer)
          })
          yield* (announcer.shared || redirectUrl !== undefined ? exclusively(key, started) : started).pipe(
            Effect.catchTag("TokenStoreError", (error) => Effect.fail(invalidRequest(error.message))),
            Effect.onError((cause) =>
              Effect.all([
                Deferred.failCause(login.started, cause),
                Effect.sync(() => pending.get(keyText(key)) === login && pending.delete(keyText(key)))
              ])
            )
          )
          return yield* Deferred.await(login.started)
        })

      const endIfStored = (login: Pending) =>
        Effect.flatMap(storedOutcome(login), Option.match({ onNone: () => Effect.void, onSome: (o) => end(login, o) }))

      const followedLogins = (server?: string) =>
        [...pending.values()].filter((login) => login.followed && (server === undefined || login.server === server))

      const ended: Service["ended"] = (server) =>
        Effect.gen(function* () {
          const waiting = followedLogins(server)
          if (waiting.length > 0) return yield* Effect.forEach(waiting, endIfStored, { discard: true })
          // nobody here waited: the server still comes up with the tokens stored elsewhere
          const config = yield* client.config
          const entry = config.mcpServers.find((candidate) => candidate.name === server)
          if (entry === undefined || entry.transport._tag !== "http") return
          const outcome = yield* storedOutcome({
            server,
            key: { server, url: entry.transport.url },
            started: Deferred.unsafeMake(FiberId.none),
            connections: new Set(),
            followed: true
          })
          if (Option.isSome(outcome) && outcome.value.success) {
            yield* Effect.logInfo("OAuth login completed elsewhere").pipe(Effect.annotateLogs({ server }))
            yield* reloadSet
          }
        })

      /** Completes the stored login a redirect belongs to, under its lock; its end is stored, announced and ended here. */
      const redirected: Service["redirected"] = (url) =>
        Effect.gen(function* () {
          const config = yield* client.config
          const redirectUrl = config.oauth?.redirectUrl
          if (redirectUrl === undefined || url.pathname !== new URL(redirectUrl).pathname) return Option.none()
          const server = OAuth.serverOfState(url.searchParams.get("state"))
          const entry = config.mcpServers.find((candidate) => candidate.name === server)
          if (server === undefined || entry === undefined || entry.transport._tag !== "http") {
            return Option.some(OAuth.redirectPage("stray"))
          }
          // a stray or forged redirect is turned away before it takes the login's lock (a refresh takes it too)
          const ours = yield* OAuth.isStoredLoginRedirect(entry, url.searchParams).pipe(
            Effect.provideService(TokenStore.TokenStore, store)
          )
          if (!ours) return Option.some(OAuth.redirectPage("stray"))
          const key = { server, url: entry.transport.url }
          const completed = yield* exclusively(
            key,
            Effect.gen(function* () {
              const result = yield* OAuth.completeStoredLogin(entry, url.searchParams).pipe(
                Effect.scoped,
                Effect.provideService(TokenStore.TokenStore, store),
                Effect.either
              )
              // a failed login is stored as such (a stray redirect changes nothing)
              if (Either.isLeft(result) && result.left._tag === "LoginError") {
                const error = result.left.message
                yield* updateStored(key, ({ pending_login: _, ...rest }) => ({ ...rest, login_failure: error }))
              }
              return result
            })
          ).pipe(
            Effect.catchAll((error) => Effect.succeed(Either.left(new OAuth.LoginError({ message: error.message }))))
          )
          if (Either.isLeft(completed) && completed.left._tag === "StrayRedirect") {
            return Option.some(OAuth.redirectPage("stray"))
          }
          const announcer = yield* Effect.serviceOption(Announcer)
          if (Option.isSome(announcer)) yield* announcer.value.ended(server)
          yield* ended(server)
          return Option.some(OAuth.redirectPage(Either.isRight(completed) ? "done" : "failed"))
        })

      return OAuthLogins.of({
        login,
        ended,
        redirected,
        missed: Effect.suspend(() => Effect.forEach(followedLogins(), endIfStored, { discard: true }))
      })
    })
  )
}
