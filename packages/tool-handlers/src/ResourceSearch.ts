/**
 * Search across every server's resources (issue #45): one full-text index per connection set over the
 * names, titles, descriptions and URIs of every server's resources and templates (never their bodies),
 * built lazily at the first search by walking each server's list pages under the pagination guard,
 * bounded by `[search] max_resources` and `[search] build_timeout_sec`, refreshed on `list_changed`
 * and after the list TTL, and dropped with its set. A search applies the access gate and the resource
 * rules of listing: what a rule hides is never found.
 */
import { Config, Errors, type Mcp, Messages, type ResourcePolicy } from "@mcp-resources/protocol"
import { Pagination, ResourceClient } from "@mcp-resources/resource-client"
import { Context, Deferred, Duration, Effect, Layer, Queue, type Scope } from "effect"
import * as Arguments from "./Arguments.js"
import type * as ToolContexts from "./internal/context.js"
import * as Index from "./internal/searchIndex.js"
import * as Rules from "./internal/rules.js"
import * as OptionalTemplates from "./OptionalTemplates.js"

/** Matches returned when a search gives no `limit`. */
export const defaultLimit = Arguments.searchLimits.default
/** The largest `limit` a search accepts. */
export const maxLimit = Arguments.searchLimits.max
/** A search waits at most this long for servers still indexing, then answers with what it has. */
export const searchWaitMillis = 5_000
/** Pages of one list walked for the index (the item bound is `[search] max_resources`). */
export const maxPages = 10_000

/** The refusals of a search's arguments (ParameterError messages) and the failures of a server's build. */
export const messages = {
  ...Arguments.searchMessages,
  buildTimedOut: (server: string, seconds: number) => `indexing MCP server '${server}' took longer than ${seconds} s`,
  notReady: (server: string, status: string, error: string | undefined) =>
    `MCP server '${server}' is ${status}${error === undefined ? "" : `: ${error}`}`
} as const

/** What a search looks for. */
export type Request = ToolContexts.SearchRequest

/** One ranked match: a resource (`uri`) or a resource template (`uriTemplate`). */
export type Match = ToolContexts.SearchMatch

/** A server whose part of the index could not be built (its entries, if any, are from an earlier build). */
export type Failure = ToolContexts.SearchFailure

/** The answer of a search. */
export type Result = ToolContexts.SearchResult

/** The ResourceSearch service: the search (waiting at most {@link searchWaitMillis}) and the warm-up. */
export interface Service extends ToolContexts.Search {
  /** Starts building the set's index in the background (e.g. after connect); never waits. */
  readonly warm: (set: ResourceClient.ConnectionSet) => Effect.Effect<void>
}

/** The ResourceSearch service tag. Layers: `layer` (over the ResourceClient's updates). */
export class ResourceSearch extends Context.Tag("@mcp-resources/tool-handlers/ResourceSearch")<
  ResourceSearch,
  Service
>() {}

/** One server's part of a set's index. */
interface Part {
  state: "building" | "ready" | "failed"
  /** The server's `list_changed` count when the build started. */
  readonly version: number
  /** When the build ended (ms); a part is stale {@link ResourceClient.templateListTtlMs} later. */
  builtAt: number
  error: string | undefined
  truncated: boolean
  readonly done: Deferred.Deferred<void>
}

/** The index of one set and its servers' parts. */
interface SetIndex {
  readonly index: Index.SearchIndex
  readonly parts: Map<string, Part>
}

/** What {@link make} needs: the stream of servers' list changes (ResourceClient `updates`). */
export interface Options {
  readonly updates: Effect.Effect<Queue.Dequeue<ResourceClient.ResourceUpdate>, never, Scope.Scope>
}

const boundsOf = (config: Config.Config): Config.SearchConfig => config.search ?? Config.searchDefaults

const guard = (request: Request): Effect.Effect<number, Errors.ParameterError> => {
  if (request.query.trim() === "") {
    return Effect.fail(new Errors.ParameterError({ message: messages.queryMustBeProvided }))
  }
  const limit = request.limit ?? defaultLimit
  if (!Number.isInteger(limit) || limit < 1 || limit > maxLimit) {
    return Effect.fail(new Errors.ParameterError({ message: messages.limitOutOfRange }))
  }
  return Effect.succeed(limit)
}

const round = (score: number): number => Math.round(score * 1000) / 1000

const matchOf = (hit: Index.Hit): Match => {
  const { entry } = hit
  return {
    server: entry.server,
    ...(entry.kind === "resource" ? { uri: entry.key } : { uriTemplate: entry.key }),
    name: entry.name,
    ...(entry.title === undefined ? {} : { title: entry.title }),
    ...(entry.mimeType === undefined ? {} : { mimeType: entry.mimeType }),
    ...(entry.description === undefined || entry.description.trim() === ""
      ? {}
      : { description: Index.excerpt(entry.description, hit.terms) }),
    score: round(hit.score)
  }
}

/**
 * Builds the service: it follows the servers' `list_changed` updates until the scope closes. Indexes
 * are held per set object (weakly: an index goes with its set); no state outside the service.
 */
export const make = (options: Options): Effect.Effect<Service, never, Scope.Scope> =>
  Effect.gen(function* () {
    const scope = yield* Effect.scope
    const indexes = new WeakMap<ResourceClient.ConnectionSet, SetIndex>()
    // `list_changed` counts per server name (a set's part is stale when its count moved on)
    const versions = new Map<string, number>()
    const changes = yield* options.updates
    yield* Queue.take(changes).pipe(
      Effect.flatMap((update) =>
        update._tag === "listChanged"
          ? Effect.sync(() => versions.set(update.server, (versions.get(update.server) ?? 0) + 1))
          : Effect.void
      ),
      Effect.forever,
      Effect.forkScoped
    )

    /** The set's index, made at its first use (the first one loads MiniSearch). */
    const indexOf = (set: ResourceClient.ConnectionSet): Effect.Effect<SetIndex> =>
      Effect.suspend(() => {
        const known = indexes.get(set)
        if (known !== undefined) return Effect.succeed(known)
        return Effect.map(Index.make, (index) => {
          // another search may have made it meanwhile
          const raced = indexes.get(set)
          if (raced !== undefined) return raced
          const created: SetIndex = { index, parts: new Map() }
          indexes.set(set, created)
          return created
        })
      })

    /** Walks one list under the pagination guard, keeping the items of every page it got. */
    const walk = <A, E>(
      method: string,
      fetch: (cursor: string | undefined) => Effect.Effect<Pagination.Page<A>, E>,
      timeoutMillis: number,
      room: number,
      into: Array<A>
    ) =>
      Pagination.collectPaginated({
        method,
        fetchPage: (cursor) =>
          Effect.tap(fetch(cursor), (page) => {
            into.push(...page.items)
          }),
        timeout: Duration.millis(Math.max(1, timeoutMillis)),
        maxItems: room,
        maxPages
      })

    const buildServer = (set: ResourceClient.ConnectionSet, target: SetIndex, server: string, part: Part) =>
      Effect.gen(function* () {
        const bounds = boundsOf(set.config)
        const timeoutMillis = bounds.buildTimeoutSec * 1000
        const clock = yield* Effect.clock
        const startedAt = clock.unsafeCurrentTimeMillis()
        const remaining = () => timeoutMillis - (clock.unsafeCurrentTimeMillis() - startedAt)
        const status = yield* set.awaitSettled(server)
        if (status._tag === "Some" && status.value.status !== "ready") {
          return yield* Effect.fail(messages.notReady(server, status.value.status, status.value.error))
        }
        const room = Math.max(0, bounds.maxResources - (target.index.size - target.index.sizeOf(server)))
        const resources: Array<Mcp.Resource> = []
        const templates: Array<Mcp.ResourceTemplate> = []
        const errors: Array<string> = []
        // the guard's item bound is `[search] max_resources`: reaching it cuts the list, it is no failure
        const record = (method: string) => (error: { readonly message: string }) =>
          Effect.sync(() => {
            if (error.message === Messages.pagination.itemLimit(method)) part.truncated = true
            else errors.push(error.message)
          })
        part.truncated = false
        yield* walk(
          "resources/list",
          (cursor) =>
            Effect.map(set.listResources(server, cursor), (r) => ({ items: r.resources, nextCursor: r.nextCursor })),
          remaining(),
          room,
          resources
        ).pipe(Effect.catchAll(record("resources/list")))
        if (resources.length < room) {
          yield* walk(
            "resources/templates/list",
            (cursor) =>
              Effect.map(
                OptionalTemplates.emptyWhenUnimplemented(server, set.listResourceTemplates(server, cursor)),
                (r) => ({ items: r.resourceTemplates, nextCursor: r.nextCursor })
              ),
            remaining(),
            room - resources.length,
            templates
          ).pipe(Effect.catchAll(record("resources/templates/list")))
        }
        if (resources.length >= room && !part.truncated) part.truncated = resources.length > room
        const entries = Index.entriesOf(server, resources, templates)
        if (entries.length > room) part.truncated = true
        // a failed refresh that got nothing keeps the entries of the last build
        if (entries.length > 0 || errors.length === 0) target.index.replace(server, entries.slice(0, room))
        if (errors.length > 0) return yield* Effect.fail(errors.join("; "))
      }).pipe(
        Effect.timeoutFail({
          duration: Duration.seconds(boundsOf(set.config).buildTimeoutSec),
          onTimeout: () => messages.buildTimedOut(server, boundsOf(set.config).buildTimeoutSec)
        }),
        Effect.matchEffect({
          onSuccess: () =>
            Effect.sync(() => {
              part.state = "ready"
              part.error = undefined
            }),
          onFailure: (error) =>
            Effect.sync(() => {
              part.state = "failed"
              part.error = error
            })
        }),
        Effect.zipRight(
          Effect.clockWith((clock) =>
            Effect.sync(() => {
              part.builtAt = clock.unsafeCurrentTimeMillis()
            })
          )
        ),
        Effect.ensuring(Deferred.succeed(part.done, undefined)),
        Effect.withSpan("ResourceSearch.build", { attributes: { server } })
      )

    /** Starts a build of every named server whose part is missing or stale; returns the parts being built. */
    const refresh = (set: ResourceClient.ConnectionSet, target: SetIndex, servers: ReadonlyArray<string>) =>
      Effect.gen(function* () {
        const now = yield* Effect.clockWith((clock) => clock.currentTimeMillis)
        const building: Array<Part> = []
        for (const server of servers) {
          const part = target.parts.get(server)
          const version = versions.get(server) ?? 0
          if (part !== undefined && part.state === "building") {
            building.push(part)
            continue
          }
          const stale =
            part === undefined || part.version !== version || now - part.builtAt >= ResourceClient.templateListTtlMs
          if (!stale) continue
          const next: Part = {
            state: "building",
            version,
            builtAt: 0,
            error: part?.error,
            truncated: part?.truncated ?? false,
            done: yield* Deferred.make<void>()
          }
          target.parts.set(server, next)
          building.push(next)
          yield* Effect.forkIn(buildServer(set, target, server, next), scope)
        }
        return building
      })

    /** The servers of the set a search covers: enabled, passing the access gate (and the `server` filter). */
    const serversOf = (ctx: ToolContexts.ToolContext, server: string | undefined) =>
      ctx.set
        .servers()
        .filter(
          (status) =>
            status.status !== "disabled" &&
            Rules.canAccess(ctx, status.name) &&
            (server === undefined || status.name === server)
        )
        .map((status) => status.name)

    const search = Effect.fn("ResourceSearch.search")(function* (ctx: ToolContexts.ToolContext, request: Request) {
      const limit = yield* guard(request)
      if (request.server !== undefined) {
        if (!ctx.set.hasServer(request.server)) {
          return yield* Effect.fail(new Errors.ParameterError({ message: Messages.unknownServer(request.server) }))
        }
        if (!Rules.canAccess(ctx, request.server)) {
          return yield* Effect.fail(
            new Errors.ParameterError({ message: Messages.serverDisabledByOrchestrator(request.server) })
          )
        }
      }
      const servers = serversOf(ctx, request.server)
      const target = yield* indexOf(ctx.set)
      const building = yield* refresh(ctx.set, target, servers)
      if (building.length > 0) {
        const wait = Math.min(searchWaitMillis, boundsOf(ctx.set.config).buildTimeoutSec * 1000)
        yield* Effect.forEach(building, (part) => Deferred.await(part.done), { discard: true }).pipe(
          Effect.timeout(Duration.millis(wait)),
          Effect.ignore
        )
      }
      const covered = new Set(servers)
      // the rules of listing (ResourcePolicy.access), compiled once per server and search
      const accesses = new Map<string, ResourcePolicy.Access>()
      const accessOf = (server: string) => {
        const known = accesses.get(server)
        if (known !== undefined) return known
        const access = Rules.accessFor(ctx, server)
        accesses.set(server, access)
        return access
      }
      const keep = (entry: Index.Entry): boolean => {
        if (!covered.has(entry.server)) return false
        if (request.mimeType !== undefined && entry.mimeType !== request.mimeType) return false
        return accessOf(entry.server).listed(entry.kind, entry.key)
      }
      const hits = target.index.search(request.query, keep)
      const indexing: Array<string> = []
      const failures: Array<Failure> = []
      const truncated: Array<string> = []
      for (const server of servers) {
        const part = target.parts.get(server)
        if (part === undefined) continue
        if (part.state === "building") indexing.push(server)
        else if (part.state === "failed" && part.error !== undefined) failures.push({ server, error: part.error })
        if (part.truncated) truncated.push(server)
      }
      return { matches: hits.slice(0, limit).map(matchOf), indexing, failures, truncated } satisfies Result
    })

    const warm = (set: ResourceClient.ConnectionSet): Effect.Effect<void> =>
      Effect.suspend(() => {
        const names = set
          .servers()
          .filter((status) => status.status !== "disabled")
          .map((status) => status.name)
        return Effect.asVoid(Effect.flatMap(indexOf(set), (target) => refresh(set, target, names)))
      })

    return { search, warm } satisfies Service
  })

/** The layer over the ResourceClient's updates; closing it stops every build. */
export const layer: Layer.Layer<ResourceSearch, never, ResourceClient.ResourceClient> = Layer.scoped(
  ResourceSearch,
  Effect.flatMap(ResourceClient.ResourceClient, (client) => make({ updates: client.updates }))
)
