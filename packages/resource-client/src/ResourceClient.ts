/**
 * The resource client: connection sets with generations over `@modelcontextprotocol/client`, and the
 * resource and tool operations of resource-tools.md sections 1 and 2 as an Effect service.
 *
 * CONTRACT (other packages code against exactly these names and shapes).
 */
import { Config, Errors, Messages } from "@mcp-resources/protocol"
import { Context, Effect, Layer, type Queue, type Scope } from "effect"
import * as Cache from "./internal/cache.js"
import * as Changes from "./internal/changes.js"
import * as Detection from "./internal/detection.js"
import * as Lifetimes from "./internal/lifetimes.js"
import * as Server from "./internal/server.js"
import * as StatusChanges from "./internal/statusChanges.js"
import * as Threadless from "./internal/threadless.js"
import { McpTransport, layer as transportLayer } from "./McpTransport.js"
import type { ServerEntry, Setup } from "./ServerEntry.js"
import * as ServerRequests from "./ServerRequests.js"
import type { ConnectionSet, ResourceUpdate, ServerConnection, ServerStatus } from "./internal/types.js"

/** The types of a connection set's operations (defined in `internal/types.ts`, which imports nothing of the package). */
export type {
  AggregateResult,
  ChangeDetection,
  CompleteRequest,
  ConnectionSet,
  ReadOptions,
  RequestMeta,
  ResourceUpdate,
  ServerConnection,
  ServerFeature,
  ServerStatus,
  SkillServer,
  Status,
  SubscribeOutcome
} from "./internal/types.js"

/** How long a full template list is kept when the server gives no `ttlMs` (see {@link ConnectionSet.resourceTemplates}). */
export const templateListTtlMs: number = Cache.templateListTtlMs

/** Counters of the result cache: entries, bytes accounted against `[cache] max_bytes`, hits, misses, evictions. */
export type CacheStats = Cache.Stats

/** The ResourceClient service: the operations of the latest set, plus generations and reloads. */
export interface Service
  extends Omit<ConnectionSet, "generation" | "config" | "awaitSettled" | "awaitAllSettled" | "servers"> {
  /** The generation of the latest set. */
  readonly generation: Effect.Effect<number>
  /** Equal for two calls exactly when the latest set (hence the generation) is the same. */
  readonly cacheKey: Effect.Effect<string>
  /** The latest loaded config (start or last successful reload). */
  readonly config: Effect.Effect<Config.Config>
  /** The latest set, without holding it. */
  readonly latest: Effect.Effect<ConnectionSet>
  /** Holds the latest set until the scope closes (a thread binding); an older set closes when its last holder lets go. */
  readonly acquire: Effect.Effect<ConnectionSet, never, Scope.Scope>
  /** Keeps the given set open until the scope closes (e.g. for a tool call on a thread's binding); a closed set stays closed. */
  readonly hold: (set: ConnectionSet) => Effect.Effect<ConnectionSet, never, Scope.Scope>
  /** Every server of the latest set, sorted by name. */
  readonly servers: Effect.Effect<ReadonlyArray<ServerStatus>>
  /** The result cache's counters now. */
  readonly cacheStats: Effect.Effect<CacheStats>
  /**
   * A queue of every change any server of any set reports from now on (across reloads), until the
   * scope closes: `updated` for the uris held by a subscription (an update of any other uri has no
   * taker: it only drops the cached read), and one update per list (`resources` and `templates`) for a
   * `list_changed`. Changes are coalesced per server before they get here (a flood becomes few updates).
   */
  readonly updates: Effect.Effect<Queue.Dequeue<ResourceUpdate>, never, Scope.Scope>
  /**
   * A queue of every change of a server's status in the latest set from now on (starting, ready,
   * failed, disabled, a reconnection attempt, a new protocol revision), across reloads, until the
   * scope closes; each entry is the server's status as {@link Service.servers} now gives it.
   */
  readonly statusChanges: Effect.Effect<Queue.Dequeue<ServerStatus>, never, Scope.Scope>
  /** Publishes a new set from a new setup (unchanged ready servers may be carried over). */
  readonly reload: (setup: Setup) => Effect.Effect<void>
  /** Publishes a new set from the same setup with fresh connections for every server. */
  readonly reconnect: Effect.Effect<void>
  /**
   * Opens one connection to the named enabled server of the latest loaded setup (otherwise
   * `unknown MCP server '{server}'`), declines elicitation (the host's `ServerRequests` handlers are
   * not used: such a read belongs to no thread), runs `use`, and always closes it. At most
   * `[mcp] threadless_concurrency` are open at once; a call waits up to `[mcp] threadless_wait_sec`
   * for its turn and is then refused, naming the cap.
   */
  readonly withServerConnection: <A, E, R>(
    server: string,
    use: (connection: ServerConnection) => Effect.Effect<A, E, R>
  ) => Effect.Effect<A, E | Errors.ResourceFailure, R>
}

/** The ResourceClient service tag. Layers: `layer(setup)` (scoped; closing it closes every set). */
export class ResourceClient extends Context.Tag("@mcp-resources/resource-client/ResourceClient")<
  ResourceClient,
  Service
>() {}

export type { ServerEntry, Setup }

/**
 * Builds the service: publishes generation 1 from `setup` and starts its enabled servers (at most
 * `[mcp] startup_concurrency` at a time). Closing the scope closes every set (children end, sessions end).
 * The lifetimes of sets are owned by one internal module; this is a facade over it.
 */
export const make = (setup: Setup): Effect.Effect<Service, never, Scope.Scope | McpTransport> =>
  Effect.gen(function* () {
    const transports = yield* McpTransport
    const limits = setup.config.mcp
    const startupPermits = yield* Effect.makeSemaphore(limits.startupConcurrency)
    const threadlessPermits = yield* Effect.makeSemaphore(limits.threadlessConcurrency)
    const cache = new Cache.ResultCache(setup.config.cache)
    const serverRequests = yield* ServerRequests.ServerRequests
    const changes = yield* Changes.make(cache)
    const statuses = yield* StatusChanges.make
    const announce = (): void => {
      const set = lifetimes.latestIfOpen()
      statuses.announce(set === undefined ? undefined : () => set.view.servers())
    }
    // change detection reads `[changes]` of the setup that is latest when it looks (after the first publish)
    const detection = Detection.source(() => lifetimes.setup().config.changes ?? Config.changesDefaults)
    const lifetimes: Lifetimes.Lifetimes = yield* Lifetimes.make({
      transports,
      cache,
      startupPermits,
      serverRequests,
      changes,
      onStateChange: announce,
      changeSources: [detection]
    })

    const publish = (next: Setup, carryOver: boolean): Effect.Effect<void> =>
      Effect.zipRight(
        Effect.all([
          startupPermits.resize(next.config.mcp.startupConcurrency),
          threadlessPermits.resize(next.config.mcp.threadlessConcurrency)
        ]),
        Effect.zipRight(lifetimes.publish(next, carryOver), Effect.sync(announce))
      )
    yield* publish(setup, false)

    const latest = Effect.sync(() => lifetimes.latest().view)
    /** Runs an operation on the set that is latest when it runs, in one step. */
    const onLatest = <A, E>(use: (set: ConnectionSet) => Effect.Effect<A, E>): Effect.Effect<A, E> =>
      Effect.suspend(() => use(lifetimes.latest().view))

    const withServerConnection = <A, E, R>(
      server: string,
      use: (connection: ServerConnection) => Effect.Effect<A, E, R>
    ): Effect.Effect<A, E | Errors.ResourceFailure, R> =>
      Effect.gen(function* () {
        const current = lifetimes.setup()
        const entry = current.servers.find((candidate) => candidate.enabled && candidate.name === server)
        if (entry === undefined) {
          return yield* Effect.fail(
            new Errors.TransportError({ kind: "unknownServer", message: Messages.unknownServer(server) })
          )
        }
        return yield* Threadless.withConnection(entry, transports, {
          permits: threadlessPermits,
          cap: current.config.mcp.threadlessConcurrency,
          waitMillis: Server.millis(current.config.mcp.threadlessWaitSec)
        })(use)
      }).pipe(Effect.withSpan("ResourceClient.withServerConnection"))

    const service: Service = {
      generation: Effect.map(latest, (set) => set.generation),
      cacheKey: Effect.map(latest, (set) => `mcp-resources/generation/${set.generation}`),
      config: Effect.sync(lifetimes.config),
      latest,
      acquire: lifetimes.holdLatest,
      hold: lifetimes.hold,
      servers: Effect.map(latest, (set) => set.servers()),
      cacheStats: Effect.sync(() => cache.stats()),
      updates: changes.updates,
      statusChanges: statuses.subscribe,
      reload: Effect.fn("ResourceClient.reload")(function* (next: Setup) {
        yield* publish(next, true)
      }),
      reconnect: Effect.suspend(() => publish(lifetimes.setup(), false)).pipe(
        Effect.withSpan("ResourceClient.reconnect")
      ),
      withServerConnection,
      hasServers: () => lifetimes.latest().view.hasServers(),
      hasServer: (name) => lifetimes.latest().view.hasServer(name),
      listResources: (server, cursor) => onLatest((set) => set.listResources(server, cursor)),
      listResourceTemplates: (server, cursor) => onLatest((set) => set.listResourceTemplates(server, cursor)),
      readResource: (server, uri, meta, options) => onLatest((set) => set.readResource(server, uri, meta, options)),
      listAllResources: (include) => onLatest((set) => set.listAllResources(include)),
      listAllResourceTemplates: (include) => onLatest((set) => set.listAllResourceTemplates(include)),
      listTools: (server) => onLatest((set) => set.listTools(server)),
      toolInfo: (server, tool) => onLatest((set) => set.toolInfo(server, tool)),
      callTool: (server, tool, args) => onLatest((set) => set.callTool(server, tool, args)),
      supports: (server, feature) => lifetimes.latest().view.supports(server, feature),
      changeDetection: (server) => lifetimes.latest().view.changeDetection(server),
      subscribe: (server, uri) => onLatest((set) => set.subscribe(server, uri)),
      unsubscribe: (server, uri) => onLatest((set) => set.unsubscribe(server, uri)),
      resourceTemplates: (server) => onLatest((set) => set.resourceTemplates(server)),
      complete: (server, request) => onLatest((set) => set.complete(server, request)),
      skillServers: onLatest((set) => set.skillServers),
      listSkills: (server, cursor) => onLatest((set) => set.listSkills(server, cursor)),
      getSkill: (server, uri) => onLatest((set) => set.getSkill(server, uri)),
      readResourceDirectory: (server, uri, cursor) => onLatest((set) => set.readResourceDirectory(server, uri, cursor))
    }
    return service
  })

/** The scoped layer: the service over `setup`; closing the layer closes every set. */
export const layer = (setup: Setup): Layer.Layer<ResourceClient> => Layer.provide(layerWith(setup), transportLayer)

/** The service over the `McpTransport` the caller provides (e.g. `McpTransport.layerMemory`, or a host's own). */
export const layerWith = (setup: Setup): Layer.Layer<ResourceClient, never, McpTransport> =>
  Layer.scoped(ResourceClient, make(setup))
