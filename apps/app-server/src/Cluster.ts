/**
 * A clustered app-server (`--cluster`, `[cluster] enabled = true`; docs/deploying.md): several
 * app-servers on one PostgreSQL store serving as one. What a clustered instance refuses to start
 * without (`settings`), and what the instances tell each other (`layer`): every append and removal
 * is announced through the store's feed (`ThreadFeed`, ids only), and each instance applies the
 * records of the threads it has loaded, sending them to its own subscribers (Threads.ts `noticed`);
 * a config reload on one instance is announced through the instance feed (`InstanceFeed`), and each
 * other instance reloads its own config file (ConfigReload.ts).
 *
 * One owner per thread (`owners`, `entities`): every instance is an Effect Cluster runner (the HTTP
 * runner on `[cluster] runner_address`, runners and shard locks in the store's tables,
 * `ClusterStorage`), and each persistent thread is an entity (`Thread`) with exactly one owning
 * instance at a time. The requests a thread owns (ThreadOwners.ts) are sent to it and run there in the
 * thread's queue; a dead instance's threads move to the survivors once its shard locks expire
 * (`lock_expiration_sec`), and the new owner closes the items the dead one left open as `interrupted`.
 *
 * MainLayer loads this module with `import()` only when the cluster is on: an app-server alone loads
 * none of it.
 */
import { createServer } from "node:http"
import { timingSafeEqual } from "node:crypto"
import * as Entity from "@effect/cluster/Entity"
import * as EntityId from "@effect/cluster/EntityId"
import * as HttpRunner from "@effect/cluster/HttpRunner"
import * as MessageStorage from "@effect/cluster/MessageStorage"
import * as RunnerAddress from "@effect/cluster/RunnerAddress"
import * as RunnerHealth from "@effect/cluster/RunnerHealth"
import * as RunnerStorage from "@effect/cluster/RunnerStorage"
import * as Sharding from "@effect/cluster/Sharding"
import * as ShardingConfig from "@effect/cluster/ShardingConfig"
import * as Snowflake from "@effect/cluster/Snowflake"
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import * as HttpLayerRouter from "@effect/platform/HttpLayerRouter"
import * as HttpServer from "@effect/platform/HttpServer"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import * as Rpc from "@effect/rpc/Rpc"
import * as RpcSerialization from "@effect/rpc/RpcSerialization"
import { type Config as AppConfig, Config as ConfigFile } from "@mcp-resources/protocol"
import type { ResourceClient } from "@mcp-resources/resource-client"
import { InstanceFeed, ThreadFeed, type ThreadStore } from "@mcp-resources/thread-store"
import * as ClusterStorage from "@mcp-resources/thread-store/ClusterStorage"
import {
  Clock,
  Config,
  Context,
  Duration,
  Effect,
  ExecutionStrategy,
  Exit,
  Layer,
  Option,
  Redacted,
  Schedule,
  Schema,
  Scope
} from "effect"
import { type AppOptions, isLoopback } from "./AppOptions.js"
import * as ConfigReload from "./ConfigReload.js"
import { Connections } from "./Connections.js"
import * as HostSecrets from "./HostSecrets.js"
import * as KeepAliveDelivery from "./KeepAliveDelivery.js"
import { interruptedMessage } from "./internal/items.js"
import { JsonRpcServer } from "./JsonRpcServer.js"
import { isThreadNotFound, MethodError } from "./Method.js"
import * as OAuthLogins from "./OAuthLogins.js"
import { ResourceSubscriptions } from "./ResourceSubscriptions.js"
import { ThreadOwners } from "./ThreadOwners.js"
import { Threads } from "./Threads.js"

/** A clustered start refused: the message says which setting is missing or wrong. */
export class ClusterError extends Schema.TaggedError<ClusterError>()("ClusterError", { message: Schema.String }) {}

/** The environment variable holding the cluster's shared secret (required for a non-loopback `runner_address`). */
export const secretVariable = HostSecrets.clusterSecretVariable

/** The host of a `HOST:PORT` runner address (brackets of an IPv6 address removed). */
const hostOf = (address: string): string => address.slice(0, address.lastIndexOf(":")).replace(/^\[|\]$/g, "")

/**
 * The `[cluster]` settings of a clustered start, checked: the store must be PostgreSQL (what the
 * instances share), and a runner address other instances reach from outside this host needs the
 * cluster's shared secret in {@link secretVariable}.
 */
export const settings = (config: AppConfig.Config): Effect.Effect<AppConfig.ClusterConfig, ClusterError> =>
  Effect.gen(function* () {
    const driver = config.persistence.driver
    if (driver !== "postgres")
      return yield* new ClusterError({
        message: `a clustered app-server (--cluster or [cluster] enabled = true) needs [persistence] driver = "postgres", the store its instances share; this config has driver = "${driver}"`
      })
    const cluster = { ...(config.cluster ?? ConfigFile.clusterDefaults), enabled: true }
    if (!isLoopback(hostOf(cluster.runnerAddress))) {
      const secret = yield* Config.option(Config.redacted(secretVariable)).pipe(
        Effect.orElseSucceed(() => Option.none<Redacted.Redacted>())
      )
      if (Option.isNone(secret) || Redacted.value(secret.value) === "")
        return yield* new ClusterError({
          message: `[cluster] runner_address = "${cluster.runnerAddress}" is not a loopback address: set ${secretVariable} to the cluster's shared secret (the same on every instance), or use a loopback address`
        })
    }
    return cluster
  })

/** A reload on this instance's own config file, announced by another instance (or possibly missed); a failure is logged. */
const reloadAnnounced = (why: string) =>
  ConfigReload.fromFile(why).pipe(
    Effect.catchAll((error) => Effect.logWarning(`the config reload ${why.trim()} failed: ${error.message}`))
  )

/** How long an announcement to the other instances may take before it is given up (logged). */
const announceTimeout = Duration.seconds(5)

/**
 * The fan-out, from before the server serves its first request: the thread feed's notices go to the
 * thread registry; the instance feed's config reloads of other instances to this one's own reload,
 * and their ended OAuth logins to this one's logins (OAuthLogins.ts). This instance's reloads and
 * ended logins are announced there (the {@link ConfigReload.Announcer} and the
 * {@link OAuthLogins.Announcer}).
 */
export const layer: Layer.Layer<
  ConfigReload.Announcer | OAuthLogins.Announcer,
  ThreadStore.ThreadStoreError,
  | Threads
  | ThreadFeed.ThreadFeed
  | InstanceFeed.InstanceFeed
  | AppOptions
  | ResourceClient.ResourceClient
  | ResourceSubscriptions
  | OAuthLogins.OAuthLogins
> = Layer.scopedContext(
  Effect.gen(function* () {
    const threads = yield* Threads
    const feed = yield* ThreadFeed.ThreadFeed
    yield* feed.subscribe(threads.noticed, threads.missed)
    const instances = yield* InstanceFeed.InstanceFeed
    const logins = yield* OAuthLogins.OAuthLogins
    // an id of this run of this instance: its own notices come back to it, and are passed over
    const instance = crypto.randomUUID()
    const context = yield* Effect.context<AppOptions | ResourceClient.ResourceClient | ResourceSubscriptions>()
    yield* instances.subscribe(
      (notice) =>
        notice.instance === instance
          ? Effect.void
          : notice.kind === "loginEnded"
            ? logins.ended(notice.server)
            : reloadAnnounced(" as another instance announced").pipe(Effect.provide(context)),
      // notices were lost while listening again: one of them may have been a reload or a login's end
      Effect.zipRight(
        reloadAnnounced(" in case another instance's announcement was missed").pipe(Effect.provide(context)),
        logins.missed
      )
    )
    yield* Effect.logInfo("clustered: following the other instances' records, config reloads and logins")
    const announce = (notice: InstanceFeed.Notice, what: string) =>
      instances.announce(notice).pipe(
        Effect.timeoutFail({
          duration: announceTimeout,
          onTimeout: () => ({ message: `no answer in ${Duration.format(announceTimeout)}` })
        }),
        Effect.catchAll((error) => Effect.logWarning(`the other instances were not told of ${what}: ${error.message}`))
      )
    return Context.make(
      ConfigReload.Announcer,
      ConfigReload.Announcer.of({ announce: announce({ kind: "configReloaded", instance }, "the config reload") })
    ).pipe(
      Context.add(
        OAuthLogins.Announcer,
        OAuthLogins.Announcer.of({
          shared: true,
          ended: (server) => announce({ kind: "loginEnded", instance, server }, `the end of ${server}'s OAuth login`)
        })
      )
    )
  })
)

/** A request the thread's owner refused or failed: the JSON-RPC error it answers with. */
export class Refused extends Schema.TaggedError<Refused>()("Refused", {
  code: Schema.Number,
  message: Schema.String
}) {}

/**
 * A thread as an Effect Cluster entity (its id the thread id): `Run` runs a request the thread owns
 * (method and params as the client sent them) on the owner, answering the result encoded for the wire;
 * `Adopt` only makes the owner take the thread over (closing what a dead owner left open).
 */
export const ThreadEntity = Entity.make("Thread", [
  Rpc.make("Run", {
    payload: { method: Schema.String, params: Schema.Unknown },
    // the result, and the seq of the owner's newest record of the thread after it (-1: not loaded there)
    success: Schema.Struct({ result: Schema.Unknown, seq: Schema.Number }),
    error: Refused
  }),
  Rpc.make("Adopt")
])

/**
 * The threads whose entity runs on this instance now (taken over, not stopped): their requests from this
 * instance's own clients run here at once, without a message to the entity (an app-server with its
 * clients on the owner pays no more than an unclustered one).
 */
class OwnedHere extends Context.Tag("@mcp-resources/app-server/Cluster/OwnedHere")<OwnedHere, Set<string>>() {}

/** The cluster's storages on the store's database, a keep-alive message delivered once to an entity running here (KeepAliveDelivery.ts). */
const storages = (url: string | undefined) =>
  Layer.effectContext(
    Effect.gen(function* () {
      const ownedHere = yield* OwnedHere
      const messages = KeepAliveDelivery.once(yield* MessageStorage.MessageStorage, (id) => ownedHere.has(id))
      return Context.make(MessageStorage.MessageStorage, messages).pipe(
        Context.add(RunnerStorage.RunnerStorage, yield* RunnerStorage.RunnerStorage)
      )
    })
  ).pipe(Layer.provide(ClusterStorage.layer({ url })))

/** The header a runner's requests carry the cluster's shared secret in. */
const secretHeader = "x-mcp-resources-cluster-secret"

const sameSecret = (given: string | undefined, secret: string): boolean => {
  if (given === undefined) return false
  const a = Buffer.from(given)
  const b = Buffer.from(secret)
  return a.length === b.length && timingSafeEqual(a, b)
}

/** What a failure to listen says (`listen EADDRNOTAVAIL …`). */
const causeMessage = (cause: unknown): string => (cause instanceof Error ? cause.message : String(cause))

/** The port of a `HOST:PORT` runner address. */
const portOf = (address: string): number => Number(address.slice(address.lastIndexOf(":") + 1))

/**
 * This instance as a runner of the cluster: an HTTP server on `runner_address` (a free port for port 0)
 * whose requests must carry the shared secret when one is set, the runners' client sending it, and the
 * sharding over the store's cluster tables.
 */
const runner = (cluster: AppConfig.ClusterConfig, url: string | undefined) =>
  Layer.unwrapEffect(
    Effect.gen(function* () {
      const secret = yield* Config.option(Config.redacted(secretVariable)).pipe(
        Effect.map(Option.map(Redacted.value)),
        Effect.map(Option.filter((value) => value !== "")),
        Effect.orElseSucceed(() => Option.none<string>())
      )
      const host = hostOf(cluster.runnerAddress)
      const server = NodeHttpServer.layer(createServer, { host, port: portOf(cluster.runnerAddress) }).pipe(
        Layer.mapError(
          (error) =>
            new ClusterError({
              message: `cannot listen on [cluster] runner_address = "${cluster.runnerAddress}": ${causeMessage(error.cause)}`
            })
        )
      )
      // the address the others reach this runner at: the configured one, with the port the server got
      const config = Layer.effect(
        ShardingConfig.ShardingConfig,
        Effect.gen(function* () {
          const address = (yield* HttpServer.HttpServer).address
          const port = address._tag === "TcpAddress" ? address.port : portOf(cluster.runnerAddress)
          const lock = Duration.seconds(cluster.lockExpirationSec)
          return {
            ...ShardingConfig.defaults,
            runnerAddress: Option.some(RunnerAddress.make(host, port)),
            shardsPerGroup: cluster.shards,
            shardLockExpiration: lock,
            shardLockRefreshInterval: Duration.min(Duration.seconds(10), Duration.unsafeDivide(lock, 3)),
            entityMaxIdleTime: Duration.minutes(5),
            entityMessagePollInterval: Duration.seconds(1),
            simulateRemoteSerialization: false
          }
        })
      )
      const guard = (
        app: Effect.Effect<HttpServerResponse.HttpServerResponse, unknown, HttpServerRequest.HttpServerRequest>
      ) =>
        Option.match(secret, {
          onNone: () => app,
          onSome: (value) =>
            Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) =>
              sameSecret(request.headers[secretHeader], value)
                ? app
                : Effect.succeed(HttpServerResponse.empty({ status: 403 }))
            )
        })
      const client = Layer.effect(
        HttpClient.HttpClient,
        Effect.map(HttpClient.HttpClient, (http) =>
          Option.match(secret, {
            onNone: () => http,
            onSome: (value) => HttpClient.mapRequest(http, HttpClientRequest.setHeader(secretHeader, value))
          })
        )
      ).pipe(Layer.provide(FetchHttpClient.layer))
      return HttpLayerRouter.serve(HttpRunner.layerHttpOptions({ path: "/" }), {
        disableLogger: true,
        disableListenLog: true,
        middleware: guard as never
      }).pipe(
        Layer.provide(HttpRunner.layerClientProtocolHttpDefault),
        Layer.provide(RunnerHealth.layerNoop),
        Layer.provide(storages(url)),
        Layer.provideMerge(config),
        Layer.provide(RpcSerialization.layerNdjson),
        Layer.provide(client),
        Layer.provideMerge(server)
      )
    })
  )

/**
 * The thread owners of a clustered app-server (ThreadOwners.ts) with the runner they send through: the
 * requesting connection holds the thread here (so that it gets the thread's notifications), the
 * request runs on the owner, and what the owner appended is applied and sent to this instance's
 * connections before the answer.
 */
export const owners = (cluster: AppConfig.ClusterConfig, url: string | undefined) =>
  Layer.effect(
    ThreadOwners,
    Effect.gen(function* () {
      const threads = yield* Threads
      const client = yield* ThreadEntity.client
      const sharding = yield* Sharding.Sharding
      const ownedHere = yield* OwnedHere
      /** The thread's entity runs here, on a shard this instance still holds. */
      const isOwnedHere = (threadId: string) =>
        ownedHere.has(threadId) && sharding.hasShardId(sharding.getShardId(EntityId.make(threadId), "default"))
      // a thread loaded here with items still open or subscriptions: its owner takes it up (closes the
      // items, detects the changes)
      yield* threads.onOwnerNeeded((threadId) =>
        client(threadId)
          .Adopt()
          .pipe(
            Effect.catchAllCause((cause) => Effect.logWarning("could not ask the thread's owner to take it up", cause))
          )
      )
      return ThreadOwners.of({
        run: (request, here) =>
          Effect.gen(function* () {
            const thread = yield* threads.get(request.connection, request.threadId)
            if (thread.ephemeral || isOwnedHere(request.threadId)) return yield* here
            const answer = yield* client(request.threadId)
              .Run({ method: request.method, params: request.params })
              .pipe(
                Effect.catchTag("Refused", (refused) =>
                  Effect.fail(new MethodError({ code: refused.code, message: refused.message }))
                )
              )
            // the owner's appends reach this instance's connections before the answer (a deleted thread is
            // unloaded); when this instance is the owner, the thread applied them already
            const applied = threads.appliedSeq(request.threadId)
            if (answer.seq === -1 || applied === undefined || applied < answer.seq)
              yield* threads.refresh(thread).pipe(Effect.ignore)
            return yield* Schema.decodeUnknown(request.result)(answer.result)
          })
      })
    })
  ).pipe(Layer.provideMerge(runner(cluster, url)), Layer.provideMerge(Layer.sync(OwnedHere, () => new Set<string>())))

/** A takeover that failed for another reason than the thread's deletion (a passing storage failure) is tried again this often before the entity's start fails. */
const takeoverRetry = Schedule.exponential("100 millis").pipe(Schedule.intersect(Schedule.recurs(4)))

const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error))

/**
 * The thread entity on this instance: a thread whose shard this instance owns is taken over when its
 * entity starts here (its open items closed as `interrupted`), and its requests run in its queue here
 * under a connection of the entity's own (which holds the thread while the entity lives). A `tool/call`
 * sent again because its owner died meanwhile (a call the takeover closed, sent before it) answers as
 * the failed call it was recorded as; a later request with that call id is a duplicate as always.
 */
export const entities = ThreadEntity.toLayer(
  Effect.gen(function* () {
    const address = yield* Entity.CurrentAddress
    const server = yield* JsonRpcServer
    const threads = yield* Threads
    const connections = yield* Connections
    const ownedHere = yield* OwnedHere
    // the connection of this start: a start that fails closes it (the cluster starts the entity again)
    const attempt = yield* Scope.fork(yield* Effect.scope, ExecutionStrategy.sequential)
    const connection = yield* Scope.extend(
      connections.open(`owner of ${address.entityId}`, () => {}),
      attempt
    )
    const closed = new Set(
      yield* threads.adopt(connection, address.entityId).pipe(
        Effect.tapError((error) =>
          isThreadNotFound(error, address.entityId)
            ? Effect.void
            : Effect.logWarning(`thread ${address.entityId} not taken over yet: ${messageOf(error)}`)
        ),
        Effect.retry({ schedule: takeoverRetry, while: (error) => !isThreadNotFound(error, address.entityId) }),
        Effect.catchIf(
          (error) => isThreadNotFound(error, address.entityId),
          () =>
            // a thread deleted meanwhile (its entity started by the message that kept it alive): alive no more
            Effect.as(
              Effect.zipRight(
                Effect.logDebug(`thread ${address.entityId} not taken over: it was deleted`),
                Entity.keepAlive(false)
              ),
              []
            )
        ),
        // another failure (the store out of reach) keeps the entity alive: its start fails, and the
        // cluster starts it again (with its own backoff) until the thread is taken over
        Effect.tapError(() => Scope.close(attempt, Exit.void)),
        Effect.orDie
      )
    )
    const takenOver = yield* Clock.currentTimeMillis
    ownedHere.add(address.entityId)
    // the owner detects the thread's resource changes; while it holds subscriptions the entity stays alive
    // (kept alive by a stored message: if this instance dies or leaves, the next owner starts it and detects)
    const subscriptions = yield* ResourceSubscriptions
    const entity = yield* Effect.context<Sharding.Sharding | Entity.CurrentAddress>()
    yield* Effect.addFinalizer(() =>
      Effect.zipRight(
        Effect.sync(() => ownedHere.delete(address.entityId)),
        subscriptions.release(address.entityId)
      )
    )
    yield* subscriptions.detect(address.entityId, (held) => Effect.provide(Entity.keepAlive(held), entity))
    return {
      Run: (request) => {
        const { method, params } = request.payload
        const callId = (params as { readonly callId?: unknown } | undefined)?.callId
        // a call this takeover closed, sent before it (by its sender's clock): the dead owner's call, sent again
        if (
          method === "tool/call" &&
          typeof callId === "string" &&
          closed.has(callId) &&
          Snowflake.timestamp(request.requestId) <= takenOver
        ) {
          return Effect.succeed({
            result: { callId, output: interruptedMessage, success: false },
            seq: threads.appliedSeq(address.entityId) ?? -1
          })
        }
        return server.runOwned(method, params, connection).pipe(
          Effect.map((result) => ({ result, seq: threads.appliedSeq(address.entityId) ?? -1 })),
          Effect.mapError((error) => new Refused(error))
        )
      },
      // the entity's start took the thread over and detects its changes: nothing more to do
      Adopt: () => Effect.void
    }
  }),
  { concurrency: "unbounded" }
)
