/**
 * The resource client: connection sets with generations over `@modelcontextprotocol/client`, and the
 * resource and tool operations of resource-tools.md sections 1 and 2 as an Effect service.
 *
 * CONTRACT (other packages code against exactly these names and shapes).
 */
import { type Config, Errors, type Mcp, type McpSkills, Messages } from "@mcp-resources/protocol"
import { Context, Effect, Layer, type Option, type Queue, type Scope } from "effect"
import * as Cache from "./internal/cache.js"
import * as Changes from "./internal/changes.js"
import * as Lifetimes from "./internal/lifetimes.js"
import * as Server from "./internal/server.js"
import * as Threadless from "./internal/threadless.js"
import { McpTransport, layer as transportLayer } from "./McpTransport.js"
import type { ServerEntry, Setup } from "./ServerEntry.js"
import * as ServerRequests from "./ServerRequests.js"

/** A server's status in a connection set. */
export type Status = "starting" | "ready" | "failed" | "disabled"

/** One server of a set, as `mcpServer/list` shows it (no secrets). */
export interface ServerStatus {
  readonly name: string
  readonly status: Status
  readonly transport: "stdio" | "http" | "memory"
  /**
   * HTTP servers: `streamable` (streamable HTTP) or `sse` (the legacy HTTP+SSE transport, configured
   * with `type = "sse"` or fallen back to when the server refused streamable HTTP). Absent otherwise.
   */
  readonly httpTransport?: "streamable" | "sse"
  readonly error?: string
  /** The negotiated protocol revision of a ready server (e.g. `2025-11-25`, `2026-07-28`). */
  readonly protocolVersion?: string
  /** Set while a dropped remote server is reconnected: the attempt under way or waited for (from 1). */
  readonly reconnectAttempt?: number
}

/** The per-server outcome of an aggregate list: items of each server that succeeded, failures beside them. */
export interface AggregateResult<A> {
  /** Servers that succeeded, in bytewise order of name, each with its items in the server's order. */
  readonly servers: ReadonlyArray<{ readonly server: string; readonly items: ReadonlyArray<A> }>
  /** Servers that failed, in bytewise order of name; `error` is the message chain. */
  readonly failures: ReadonlyArray<{ readonly server: string; readonly error: string }>
}

/** Request `_meta` of a `resources/read`. */
export type RequestMeta = Readonly<Record<string, unknown>>

/** The operations of one connection set (resource-tools.md 1.4). Every failure is a message chain. */
export interface ConnectionSet {
  /** 1 for the first set, strictly increasing for the life of the process. */
  readonly generation: number
  /** The config this set was built from. */
  readonly config: Config.Config
  /** At least one enabled server, whatever its status. */
  readonly hasServers: () => boolean
  /** That enabled server is in the set; never waits. */
  readonly hasServer: (name: string) => boolean
  /** Every server of the set (disabled ones included, in-memory ones included), sorted by name. */
  readonly servers: () => ReadonlyArray<ServerStatus>
  /**
   * Waits until the server's startup settled (its turn under `[mcp] startup_concurrency`, then at most
   * its startup timeout) and returns its status; unknown names give `None`.
   */
  readonly awaitSettled: (name: string) => Effect.Effect<Option.Option<ServerStatus>>
  /** Waits until every enabled server's startup settled. */
  readonly awaitAllSettled: Effect.Effect<void>
  /** One page of `resources/list`; no params object without a cursor. */
  readonly listResources: (
    server: string,
    cursor?: string
  ) => Effect.Effect<Mcp.ListResourcesResult, Errors.ResourceFailure>
  /** One page of `resources/templates/list`. */
  readonly listResourceTemplates: (
    server: string,
    cursor?: string
  ) => Effect.Effect<Mcp.ListResourceTemplatesResult, Errors.ResourceFailure>
  /** One `resources/read` with params `{uri}`, plus `_meta` only when `meta` is given. */
  readonly readResource: (
    server: string,
    uri: string,
    meta?: RequestMeta,
    options?: ReadOptions
  ) => Effect.Effect<Mcp.ReadResourceResult, Errors.ResourceFailure>
  /** Every ready server passing `include`, concurrently, fully paginated under the guard; never fails. */
  readonly listAllResources: (include: (server: string) => boolean) => Effect.Effect<AggregateResult<Mcp.Resource>>
  /** The template variant of {@link listAllResources}. */
  readonly listAllResourceTemplates: (
    include: (server: string) => boolean
  ) => Effect.Effect<AggregateResult<Mcp.ResourceTemplate>>
  /** The server's tool catalog collected at startup (refreshed on `tools/list_changed`), with `_meta`. */
  readonly listTools: (server: string) => Effect.Effect<ReadonlyArray<Mcp.Tool>, Errors.ResourceFailure>
  /** One raw tool of the catalog, whatever its visibility; `None` when the server does not list it. */
  readonly toolInfo: (server: string, tool: string) => Effect.Effect<Option.Option<Mcp.Tool>, Errors.ResourceFailure>
  /** One `tools/call`; `arguments` omitted when not given. The result keeps the server's fields and key order. */
  readonly callTool: (
    server: string,
    tool: string,
    args?: Readonly<Record<string, unknown>>
  ) => Effect.Effect<Mcp.CallToolResult, Errors.ResourceFailure>
  /** The server is ready and declared the feature (`completions`, or `resources.subscribe`); never waits. */
  readonly supports: (server: string, feature: ServerFeature) => boolean
  /**
   * Holds a subscription to `uri` on the server (waits for its startup like a read). Counted per
   * server handle: the first holder sends it (`resources/subscribe`, or on 2026-07-28 the uri joins
   * the connection's `subscriptions/listen` stream), later ones send nothing; every held subscription
   * is sent again on a reconnection, and survives a reload that keeps the entry unchanged.
   * `"unsupported"` when the server declared no `resources.subscribe`: nothing is sent or held.
   */
  readonly subscribe: (server: string, uri: string) => Effect.Effect<SubscribeOutcome, Errors.ResourceFailure>
  /** Drops one holder of `uri`; the last one sends `resources/unsubscribe` (or updates the listen stream). Never fails. */
  readonly unsubscribe: (server: string, uri: string) => Effect.Effect<void>
  /**
   * Every template the server lists, fully paginated under the guard. Kept per connection (dropped
   * on `notifications/resources/list_changed`, on reconnect and after {@link templateListTtlMs}).
   */
  readonly resourceTemplates: (
    server: string
  ) => Effect.Effect<ReadonlyArray<Mcp.ResourceTemplate>, Errors.ResourceFailure>
  /** One `completion/complete` for an argument of a resource template (`ref/resource`). */
  readonly complete: (server: string, request: CompleteRequest) => Effect.Effect<Mcp.Completion, Errors.ResourceFailure>
  /**
   * The servers that declared the skills extension (`io.modelcontextprotocol/skills`): waits until
   * every enabled server's startup settled, then gives the ready ones that declared it, sorted by
   * name, with their `directoryRead` setting. Sends nothing.
   */
  readonly skillServers: Effect.Effect<ReadonlyArray<SkillServer>>
  /** One page of `skills/list` (params `{}` or `{cursor}`); fails when the server did not declare the extension. */
  readonly listSkills: (
    server: string,
    cursor?: string
  ) => Effect.Effect<McpSkills.ListSkillsResult, Errors.ResourceFailure>
  /** One `skills/get` with params `{uri}` (the URI of the skill's `SKILL.md`): the current entry. */
  readonly getSkill: (server: string, uri: string) => Effect.Effect<McpSkills.Skill, Errors.ResourceFailure>
  /** One page of `resources/directory/read`; fails unless the server declared `directoryRead: true`. */
  readonly readResourceDirectory: (
    server: string,
    uri: string,
    cursor?: string
  ) => Effect.Effect<McpSkills.ReadDirectoryResult, Errors.ResourceFailure>
}

/** A change a server reported for one of its resources or lists. */
export type ResourceUpdate =
  | { readonly _tag: "updated"; readonly server: string; readonly uri: string }
  | { readonly _tag: "listChanged"; readonly server: string; readonly list: "resources" | "templates" }

/** What {@link ConnectionSet.subscribe} found: held, or a server without subscriptions (nothing sent, nothing held). */
export type SubscribeOutcome = "subscribed" | "unsupported"

/** A feature a server may declare that callers branch on. */
export type ServerFeature = "completions" | "subscribe"

/** How long a full template list is kept when the server gives no `ttlMs` (see {@link ConnectionSet.resourceTemplates}). */
export const templateListTtlMs: number = Cache.templateListTtlMs

/** A `completion/complete` for one argument of a resource template. */
export interface CompleteRequest {
  /** The template, exactly as listed. */
  readonly uriTemplate: string
  /** The variable being completed and what was typed so far. */
  readonly argument: { readonly name: string; readonly value: string }
  /** The values of the template's other variables, sent as `context.arguments`. */
  readonly context?: Readonly<Record<string, string>>
}

/** A ready server that declared the skills extension. */
export interface SkillServer {
  readonly server: string
  /** The server serves `resources/directory/read`. */
  readonly directoryRead: boolean
}

/** How a read may be cached beyond what the server said. */
export interface ReadOptions {
  /**
   * Keep the result this long (milliseconds) when the server sends no `ttlMs` (a server's `ttlMs`
   * wins). Such reads are cached apart from reads without this option, so that those still go to the
   * server as before. Used by the extended tool profile's windows.
   */
  readonly defaultTtlMs?: number
  /**
   * With {@link defaultTtlMs}: the form the result is kept (and answered) in, and the bytes that form
   * holds, which are what `[cache] max_bytes` counts. The caller owns the form (the extended tool
   * profile keeps large texts as their UTF-8 bytes only: tool-handlers' `Content.keptRead`). Without
   * it the result is kept as it came, counted by its JSON text.
   */
  readonly keptForm?: (result: Mcp.ReadResourceResult) => {
    readonly value: Mcp.ReadResourceResult
    readonly size: number
  }
}

/** Counters of the result cache: entries, bytes accounted against `[cache] max_bytes`, hits, misses, evictions. */
export type CacheStats = Cache.Stats

/** A single connection outside any set (the threadless read). */
export interface ServerConnection {
  readonly name: string
  readonly readResource: (
    uri: string,
    meta?: RequestMeta
  ) => Effect.Effect<Mcp.ReadResourceResult, Errors.ResourceFailure>
}

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
    const lifetimes = yield* Lifetimes.make({ transports, cache, startupPermits, serverRequests, changes })

    const publish = (next: Setup, carryOver: boolean): Effect.Effect<void> =>
      Effect.zipRight(
        Effect.all([
          startupPermits.resize(next.config.mcp.startupConcurrency),
          threadlessPermits.resize(next.config.mcp.threadlessConcurrency)
        ]),
        lifetimes.publish(next, carryOver)
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
      config: Effect.sync(() => lifetimes.setup().config),
      latest,
      acquire: lifetimes.holdLatest,
      hold: lifetimes.hold,
      servers: Effect.map(latest, (set) => set.servers()),
      cacheStats: Effect.sync(() => cache.stats()),
      updates: changes.updates,
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
