/**
 * A connection set: the servers of one setup with their handles and the operations of
 * resource-tools.md 1.4 and 2.2, answered from the result cache where the server allowed it.
 */
import { type Config, Errors, Mcp, McpSkills, Messages } from "@mcp-resources/protocol"
import { Deferred, Effect, type Either, Fiber, Option } from "effect"
import { compareBytewise } from "@mcp-resources/protocol/Utf8"
import * as Pagination from "../Pagination.js"
import {
  type AggregateResult,
  type CompleteRequest,
  type ConnectionSet,
  type ReadOptions,
  type RequestMeta,
  type ServerConnection,
  type ServerFeature,
  type ServerStatus,
  templateListTtlMs
} from "../ResourceClient.js"
import type { ServerEntry, Setup } from "../ServerEntry.js"
import { type Connection, decodeResult, decodeResultEither, type Hold, transportKind } from "./connection.js"
import * as Cache from "./cache.js"
import { fastListResources, fastListResourceTemplates, withFastList } from "./listResult.js"
import { withFastPath } from "./readResult.js"
import * as Server from "./server.js"
import { httpTransportOf, status } from "./status.js"

/** A set: its operations (`view`), its setup and its handles. Its lifetime is `connectionSet.ts`'s. */
export interface SetImpl {
  readonly view: ConnectionSet
  readonly setup: Setup
  readonly handles: ReadonlyMap<string, Server.Handle>
  /** Per server name: the hash of its authorization context (see {@link CacheContext}). */
  readonly partitions: ReadonlyMap<string, string>
}

/** What a set caches its answers in: the client's cache and each server's authorization partition. */
export interface CacheContext {
  readonly cache: Cache.ResultCache
  /** Per server name: a hash of its authorization context (never the secret itself). */
  readonly partitions: ReadonlyMap<string, string>
}

/** Bytewise comparison of two strings (UTF-8 byte order). */

const unknownServer = (server: string) =>
  new Errors.TransportError({ kind: "unknownServer", message: Messages.unknownServer(server) })

const failedToGetClient = (error: string) =>
  new Errors.TransportError({ kind: "unavailable", message: Messages.failedToGetClient(error) })

const decodeListResources = withFastList(
  fastListResources,
  decodeResultEither(Mcp.ListResourcesResult, "resources/list")
)
const decodeListResourceTemplates = withFastList(
  fastListResourceTemplates,
  decodeResultEither(Mcp.ListResourceTemplatesResult, "resources/templates/list")
)
const decodeReadResourceHinted = withFastPath(decodeResultEither(Mcp.ReadResourceResult, "resources/read"))
/** A read result decoded; unusable caching hints are dropped first (the read is served, not cached). */
const decodeReadResource = (raw: unknown) => decodeReadResourceHinted(Cache.withoutUnusableHints(raw))
const decodeCallTool = decodeResult(Mcp.CallToolResult, "tools/call")
const decodeComplete = decodeResultEither(Mcp.CompleteResult, "completion/complete")
const decodeListSkills = decodeResult(McpSkills.ListSkillsResult, "skills/list")
const decodeGetSkill = decodeResult(McpSkills.GetSkillResult, "skills/get")
const decodeReadDirectory = decodeResult(McpSkills.ReadDirectoryResult, "resources/directory/read")

/** The context of a failed request of the skills extension: `{method} failed for \`{server}\`` (and the URI). */
const skillsRequestContext = (method: string, server: string, uri?: string): string =>
  uri === undefined ? `${method} failed for \`${server}\`` : `${method} failed for \`${server}\` (${uri})`

const notDeclared = (server: string, what: string) =>
  new Errors.TransportError({ kind: "unavailable", message: `MCP server '${server}' does not declare ${what}` })

type ListMethod = "resources/list" | "resources/templates/list"

/**
 * One page of a list method on a connection, decoded, with the raw result beside it (its `ttlMs`,
 * `cacheScope`); bounded by the server's tool timeout, or by `timeoutMillis` when given (what is left
 * of a pagination deadline).
 */
const listPageOn = <A>(
  connection: Connection,
  entry: ServerEntry,
  method: ListMethod,
  cursor: string | undefined,
  decode: (raw: unknown) => Either.Either<{ readonly value: A; readonly raw: unknown }, Errors.TransportError>,
  timeoutMillis = Server.millis(entry.toolTimeoutSec)
): Effect.Effect<{ readonly value: A; readonly raw: unknown }, Errors.TransportError | Errors.ServerError> =>
  // decoding and the error context inside the request's one async step (a listing runs many pages)
  connection.requestDecoded(
    method,
    cursor === undefined ? undefined : { cursor },
    timeoutMillis,
    decode,
    Messages.requestContext[method](entry.name)
  )

const resourcesPageOn = (
  connection: Connection,
  entry: ServerEntry,
  cursor: string | undefined,
  timeoutMillis?: number
) => listPageOn(connection, entry, "resources/list", cursor, decodeListResources, timeoutMillis)

const templatesPageOn = (
  connection: Connection,
  entry: ServerEntry,
  cursor: string | undefined,
  timeoutMillis?: number
) => listPageOn(connection, entry, "resources/templates/list", cursor, decodeListResourceTemplates, timeoutMillis)

/** One `resources/list` page on a connection. */
export const listResourcesOn = (connection: Connection, entry: ServerEntry, cursor: string | undefined) =>
  connection.capabilities.resources
    ? Effect.map(resourcesPageOn(connection, entry, cursor), (page) => page.value)
    : Effect.succeed<Mcp.ListResourcesResult>({ resources: [] })

/** One `resources/templates/list` page on a connection. */
export const listResourceTemplatesOn = (connection: Connection, entry: ServerEntry, cursor: string | undefined) =>
  connection.capabilities.resources
    ? Effect.map(templatesPageOn(connection, entry, cursor), (page) => page.value)
    : Effect.succeed<Mcp.ListResourceTemplatesResult>({ resourceTemplates: [] })

/**
 * One `resources/read` on a connection: params `{uri}`, plus `_meta` only when given; `hold` is held
 * while it runs.
 */
export const readResourceOn = (
  connection: Connection,
  entry: ServerEntry,
  uri: string,
  meta?: RequestMeta,
  hold?: Hold
): Effect.Effect<Mcp.ReadResourceResult, Errors.TransportError | Errors.ServerError> =>
  // decoding, the error context and the hold inside the request's one async step
  connection.requestDecoded(
    "resources/read",
    meta === undefined ? { uri } : { uri, _meta: meta },
    Server.millis(entry.toolTimeoutSec),
    decodeReadResource,
    Messages.requestContext["resources/read"](entry.name, uri),
    hold
  )

/** A {@link ServerConnection} over one connection. */
export const serverConnection = (connection: Connection, entry: ServerEntry): ServerConnection => ({
  name: entry.name,
  readResource: (uri, meta) => readResourceOn(connection, entry, uri, meta)
})

/** Invalid params on a later page: the server no longer knows the cursor (MCP's invalid-cursor error). */
const invalidParams = -32602

/** What {@link make} builds a set from. */
export interface Options {
  readonly generation: number
  readonly setup: Setup
  /** The handles of the enabled servers. */
  readonly handles: ReadonlyMap<string, Server.Handle>
  /** The set's holder count (owned by `connectionSet.ts`): every operation holds the set while it runs. */
  readonly hold: Hold
  readonly cache: CacheContext
}

/** Builds the set of `options.setup` over its handles (enabled servers only). */
export const make = (options: Options): SetImpl => {
  const { generation, setup, handles, hold } = options
  const { cache, partitions } = options.cache
  /**
   * Acquires a hold, runs the operation built by `use` interruptibly and releases the hold on every
   * exit, uninterruptibly: one mask and one match (fewer steps than acquireUseRelease or onExit).
   */
  const heldWith = <A, E>(use: () => Effect.Effect<A, E>): Effect.Effect<A, E> =>
    Effect.uninterruptibleMask((restore) => {
      hold.acquire()
      return Effect.matchCauseEffect(restore(use()), {
        onFailure: (cause) => {
          const rest = hold.release()
          return rest === Effect.void ? Effect.failCause(cause) : Effect.zipRight(rest, Effect.failCause(cause))
        },
        onSuccess: (value) => {
          const rest = hold.release()
          return rest === Effect.void ? Effect.succeed(value) : Effect.as(rest, value)
        }
      })
    })

  /** The two keys an answer may be cached under: shared by every caller, or private to this server entry's authorization. */
  const keysOf = (server: string, connection: Connection, method: string, params: string) => {
    const parts = { server, generation, connection: cache.connectionId(connection), method, params }
    return {
      shared: Cache.key({ ...parts, partition: Cache.publicPartition }),
      own: Cache.key({ ...parts, partition: partitions.get(server) ?? "none" })
    }
  }

  /**
   * Answers from the cache when a fresh entry exists; else runs `fetch` and stores its answer for the
   * server's `ttlMs` (under the shared key only when the server said `cacheScope: "public"`).
   */
  const cached = <B, A, E>(
    server: string,
    connection: Connection,
    tags: Omit<Cache.Tags, "server" | "generation">,
    /** The request's parameters as key text, built only when a key is needed. */
    params: () => string,
    fetch: Effect.Effect<B, E>,
    answer: (fetched: B) => { readonly value: A; readonly raw: unknown },
    /** The time to keep an answer whose server gave no `ttlMs` (0: not kept). */
    defaultTtlMs = 0,
    /** The form an answer is kept in and the bytes that form holds (default: the value, measured by {@link Cache.sizeOf}). */
    keptForm?: (value: A) => { readonly value: A; readonly size: number }
  ): Effect.Effect<A, E> => {
    const store = Effect.flatMap(fetch, (fetched) => {
      const { value, raw } = answer(fetched)
      // a server's `ttlMs` wins, also `0` (keep nothing); the default applies only when it sent none
      const ttlMs =
        defaultTtlMs > 0 && (raw as { readonly ttlMs?: unknown } | null)?.ttlMs === undefined
          ? Math.min(defaultTtlMs, Cache.maxTtlMs)
          : Cache.ttlOf(raw)
      if (ttlMs <= 0) return Effect.succeed(value)
      return Effect.clockWith((clock) => {
        const keys = keysOf(server, connection, tags.method, params())
        const keyText = Cache.isPublic(raw) ? keys.shared : keys.own
        const kept = keptForm?.(value)
        cache.put(keyText, kept?.value ?? value, {
          tags: { server, generation, connection: cache.connectionId(connection), ...tags },
          ttlMs,
          bytes: kept === undefined ? Cache.sizeOf(value, keyText) : Cache.sizeOfKept(kept.size, keyText),
          now: clock.unsafeCurrentTimeMillis()
        })
        // the kept form is answered (also when too large to store), so its bytes are the only copy
        return Effect.succeed(kept?.value ?? value)
      })
    })
    // a server with nothing cached (most servers send no `ttlMs`) skips the lookup
    if (!cache.holdsServer(server)) return store
    return Effect.clockWith((clock) => {
      const keys = keysOf(server, connection, tags.method, params())
      const now = clock.unsafeCurrentTimeMillis()
      const hit = cache.get(keys.own, now) ?? cache.get(keys.shared, now)
      return hit !== undefined ? Effect.succeed(hit as A) : store
    })
  }

  const pageAnswer = <A>(page: { readonly value: A; readonly raw: unknown }) => page
  // the decoded read result keeps `ttlMs` and `cacheScope`: it is its own raw
  const readAnswer = (value: Mcp.ReadResourceResult) => ({ value, raw: value })

  /** A cached list page; a refused cursor drops every cached page of that list. */
  const cachedPage = <A>(
    method: ListMethod,
    connection: Connection,
    entry: ServerEntry,
    cursor: string | undefined,
    fetch: Effect.Effect<{ readonly value: A; readonly raw: unknown }, Errors.TransportError | Errors.ServerError>
  ) =>
    (cache.enabled
      ? cached(
          entry.name,
          connection,
          { method },
          () => (cursor === undefined ? "" : JSON.stringify(cursor)),
          fetch,
          pageAnswer
        )
      : Effect.map(fetch, (page) => page.value)
    ).pipe((page) =>
      // only a later page has a cursor to refuse
      cursor === undefined
        ? page
        : Effect.tapError(page, (error) =>
            Effect.sync(() => {
              if (error._tag === "ServerError" && error.code === invalidParams)
                cache.invalidateMethod(entry.name, method)
            })
          )
    )

  /** A cached `resources/list` page; `timeoutMillis` bounds its request (the server's tool timeout when not given). */
  const cachedResources = (
    connection: Connection,
    entry: ServerEntry,
    cursor: string | undefined,
    timeoutMillis?: number
  ) =>
    connection.capabilities.resources
      ? cachedPage(
          "resources/list",
          connection,
          entry,
          cursor,
          resourcesPageOn(connection, entry, cursor, timeoutMillis)
        )
      : Effect.succeed<Mcp.ListResourcesResult>({ resources: [] })

  /** A cached `resources/templates/list` page; `timeoutMillis` as in {@link cachedResources}. */
  const cachedTemplates = (
    connection: Connection,
    entry: ServerEntry,
    cursor: string | undefined,
    timeoutMillis?: number
  ) =>
    connection.capabilities.resources
      ? cachedPage(
          "resources/templates/list",
          connection,
          entry,
          cursor,
          templatesPageOn(connection, entry, cursor, timeoutMillis)
        )
      : Effect.succeed<Mcp.ListResourceTemplatesResult>({ resourceTemplates: [] })

  const cachedRead = (
    connection: Connection,
    entry: ServerEntry,
    uri: string,
    meta: RequestMeta | undefined,
    requestHold?: Hold,
    options?: ReadOptions
  ): Effect.Effect<Mcp.ReadResourceResult, Errors.TransportError | Errors.ServerError> => {
    const read = readResourceOn(connection, entry, uri, meta, requestHold)
    if (!cache.enabled) return read
    const defaultTtlMs = options?.defaultTtlMs ?? 0
    // reads kept for a default time are keyed apart: a read without it never sees their answers
    const params =
      defaultTtlMs > 0
        ? () => JSON.stringify(["defaultTtl", uri, meta ?? null])
        : () => (meta === undefined ? JSON.stringify(uri) : JSON.stringify([uri, meta]))
    return cached(
      entry.name,
      connection,
      { method: "resources/read", uri },
      params,
      read,
      readAnswer,
      defaultTtlMs,
      // a read kept for windows keeps its large texts as UTF-8 bytes only, counted against the bound
      defaultTtlMs > 0 ? Cache.keptRead : undefined
    )
  }
  const held = <A, E>(effect: Effect.Effect<A, E>): Effect.Effect<A, E> => heldWith(() => effect)

  const readyOrFail = (handle: Server.Handle) => {
    const state = handle.state
    return state._tag === "ready"
      ? Effect.succeed({ handle, connection: state.connection, tools: state.tools })
      : Effect.fail(failedToGetClient(state._tag === "failed" ? state.error : Messages.connectionClosed))
  }

  /** Waits for startup to settle (bounded by the startup timeout), then requires `ready`. */
  const ready = (server: string) =>
    Effect.suspend(() => {
      const handle = handles.get(server)
      if (handle === undefined) return Effect.fail(unknownServer(server))
      // a handle that left `starting` has settled (the state is set just before `settled` completes)
      if (handle.state._tag !== "starting") return readyOrFail(handle)
      return Effect.flatMap(Deferred.await(handle.settled), () => readyOrFail(handle))
    })

  const listResources = Effect.fn("ConnectionSet.listResources")(function* (server: string, cursor?: string) {
    const { connection, handle } = yield* ready(server)
    return yield* cachedResources(connection, handle.entry, cursor)
  })

  const listResourceTemplates = Effect.fn("ConnectionSet.listResourceTemplates")(function* (
    server: string,
    cursor?: string
  ) {
    const { connection, handle } = yield* ready(server)
    return yield* cachedTemplates(connection, handle.entry, cursor)
  })

  // the hot path of read_mcp_resource: no span, no generator; a ready server is used at once, and
  // the request itself holds the set (one mask and match rather than two)
  const readResource = (
    server: string,
    uri: string,
    meta: RequestMeta | undefined,
    options?: ReadOptions
  ): Effect.Effect<Mcp.ReadResourceResult, Errors.ResourceFailure> =>
    Effect.suspend(() => {
      const handle = handles.get(server)
      if (handle !== undefined) {
        const state = handle.state
        if (state._tag === "ready") return cachedRead(state.connection, handle.entry, uri, meta, hold, options)
      }
      return heldWith(() =>
        Effect.flatMap(ready(server), ({ connection, handle }) =>
          cachedRead(connection, handle.entry, uri, meta, undefined, options)
        )
      )
    })

  const listTools = Effect.fn("ConnectionSet.listTools")(function* (server: string) {
    const { tools } = yield* ready(server)
    return tools
  })

  const toolInfo = Effect.fn("ConnectionSet.toolInfo")(function* (server: string, tool: string) {
    const { tools } = yield* ready(server)
    return Option.fromNullable(tools.find((t) => t.name === tool))
  })

  const callTool = Effect.fn("ConnectionSet.callTool")(function* (
    server: string,
    tool: string,
    args?: Readonly<Record<string, unknown>>
  ) {
    const { connection, handle } = yield* ready(server)
    const params = args === undefined ? { name: tool } : { name: tool, arguments: args }
    const context = Messages.requestContext["tools/call"](server)
    const raw = yield* connection
      .request("tools/call", params, Server.millis(handle.entry.toolTimeoutSec))
      .pipe(Effect.mapError((error) => Errors.withContext(error, context)))
    // validate, but keep the server's own object (its fields and key order)
    yield* decodeCallTool(raw).pipe(Effect.mapError((error) => Errors.withContext(error, context)))
    return raw as Mcp.CallToolResult
  })

  const supports = (server: string, feature: ServerFeature): boolean => {
    const state = handles.get(server)?.state
    return state?._tag === "ready" && state.connection.capabilities[feature]
  }

  const subscribe = Effect.fn("ConnectionSet.subscribe")(function* (server: string, uri: string) {
    const { connection, handle } = yield* ready(server)
    return yield* handle.subscriptions.subscribe(server, connection, uri, Server.millis(handle.entry.toolTimeoutSec))
  })

  const unsubscribe = (server: string, uri: string): Effect.Effect<void> =>
    Effect.suspend(() => {
      const handle = handles.get(server)
      if (handle === undefined) return Effect.void
      const connection = handle.state._tag === "ready" ? handle.state.connection : undefined
      return handle.subscriptions.unsubscribe(server, connection, uri, Server.millis(handle.entry.toolTimeoutSec))
    }).pipe(Effect.withSpan("ConnectionSet.unsubscribe"))

  const allTemplatesOn = (connection: Connection, entry: ServerEntry) =>
    Pagination.collectPaginated({
      method: "resources/templates/list",
      timeout: Server.millis(entry.toolTimeoutSec),
      pagesBounded: true,
      fetchPage: (cursor, remainingMillis) =>
        Effect.map(cachedTemplates(connection, entry, cursor, remainingMillis), (page) => ({
          items: page.resourceTemplates,
          nextCursor: page.nextCursor
        }))
    })

  const resourceTemplates = Effect.fn("ConnectionSet.resourceTemplates")(function* (server: string) {
    const { connection, handle } = yield* ready(server)
    const all = allTemplatesOn(connection, handle.entry)
    if (!cache.enabled || !connection.capabilities.resources) return yield* all
    // tagged like its pages: a list_changed or a closed connection drops it with them
    return yield* cached(
      server,
      connection,
      { method: "resources/templates/list" },
      () => "*all",
      all,
      (items: ReadonlyArray<Mcp.ResourceTemplate>) => ({ value: items, raw: {} }),
      templateListTtlMs
    )
  })

  const complete = Effect.fn("ConnectionSet.complete")(function* (server: string, request: CompleteRequest) {
    const { connection, handle } = yield* ready(server)
    const params = {
      ref: { type: "ref/resource", uri: request.uriTemplate },
      argument: { name: request.argument.name, value: request.argument.value },
      ...(request.context === undefined ? {} : { context: { arguments: { ...request.context } } })
    }
    const result = yield* connection.requestDecoded(
      "completion/complete",
      params,
      Server.millis(handle.entry.toolTimeoutSec),
      decodeComplete,
      Messages.requestContext["completion/complete"](server)
    )
    return result.completion
  })

  const aggregate = <A>(
    include: (server: string) => boolean,
    method: "resources/list" | "resources/templates/list",
    /** One page, its request bounded by `remainingMillis` (what is left of the server's deadline). */
    fetch: (
      connection: Connection,
      entry: ServerEntry,
      cursor: string | undefined,
      remainingMillis: number
    ) => Effect.Effect<Pagination.Page<A>, Errors.ResourceFailure>
  ): Effect.Effect<AggregateResult<A>> =>
    Effect.gen(function* () {
      const names = [...handles.keys()].filter((name) => include(name)).sort(compareBytewise)
      type Outcome = Option.Option<
        | { readonly server: string; readonly items: ReadonlyArray<A> }
        | { readonly server: string; readonly error: string }
      >
      // a ready server's pages on a fiber of its own, every fiber awaited in order: lighter than a
      // concurrent forEach, and enough here: an outcome never fails, and a fiber forked here is
      // interrupted with this one (an interrupted listing leaves no walk behind)
      const running = yield* Effect.forEach(names, (name): Effect.Effect<Outcome | Fiber.RuntimeFiber<Outcome>> => {
        const handle = handles.get(name)!
        const state = handle.state
        if (state._tag === "failed") {
          return Effect.succeed<Outcome>(Option.some({ server: name, error: Messages.failedToGetClient(state.error) }))
        }
        if (state._tag !== "ready") return Effect.succeed<Outcome>(Option.none())
        return Effect.fork(
          Pagination.collectPaginated({
            method,
            timeout: Server.millis(handle.entry.toolTimeoutSec),
            pagesBounded: true,
            fetchPage: (cursor, remainingMillis) => fetch(state.connection, handle.entry, cursor, remainingMillis)
          }).pipe(
            Effect.match({
              onFailure: (error): Outcome => Option.some({ server: name, error: error.message }),
              onSuccess: (items): Outcome => Option.some({ server: name, items })
            })
          )
        )
      })
      const outcomes = yield* Effect.forEach(running, (outcome) =>
        Option.isOption(outcome) ? Effect.succeed(outcome) : Effect.flatten(Fiber.await(outcome))
      )
      const servers: Array<{ readonly server: string; readonly items: ReadonlyArray<A> }> = []
      const failures: Array<{ readonly server: string; readonly error: string }> = []
      for (const outcome of outcomes) {
        if (Option.isNone(outcome)) continue
        const value = outcome.value
        if ("items" in value) servers.push(value)
        else {
          failures.push(value)
          yield* Effect.logWarning(
            method === "resources/list"
              ? Messages.aggregateLog.resources(value.server, value.error)
              : Messages.aggregateLog.templates(value.server, value.error)
          )
        }
      }
      return { servers, failures }
    })

  const listAllResources = Effect.fn("ConnectionSet.listAllResources")(function* (
    include: (server: string) => boolean
  ) {
    return yield* aggregate(include, "resources/list", (connection, entry, cursor, remainingMillis) =>
      Effect.map(cachedResources(connection, entry, cursor, remainingMillis), (page) => ({
        items: page.resources,
        nextCursor: page.nextCursor
      }))
    )
  })

  const listAllResourceTemplates = Effect.fn("ConnectionSet.listAllResourceTemplates")(function* (
    include: (server: string) => boolean
  ) {
    return yield* aggregate(include, "resources/templates/list", (connection, entry, cursor, remainingMillis) =>
      Effect.map(cachedTemplates(connection, entry, cursor, remainingMillis), (page) => ({
        items: page.resourceTemplates,
        nextCursor: page.nextCursor
      }))
    )
  })

  /** A ready server that declared the skills extension (`directoryRead` too, when `directory` is set). */
  const skillsReady = (server: string, directory: boolean) =>
    Effect.flatMap(ready(server), (found) => {
      const declaration = found.connection.capabilities.skills
      if (declaration === undefined) return Effect.fail(notDeclared(server, `the ${McpSkills.extensionId} extension`))
      if (directory && !declaration.directoryRead) {
        return Effect.fail(notDeclared(server, `${McpSkills.extensionId} directoryRead`))
      }
      return Effect.succeed(found)
    })

  const skillsRequest = <A>(
    server: string,
    method: string,
    params: Record<string, unknown> | undefined,
    decode: (raw: unknown) => Effect.Effect<A, Errors.TransportError>,
    uri: string | undefined,
    directory = false
  ) =>
    Effect.flatMap(skillsReady(server, directory), ({ connection, handle }) =>
      connection.request(method, params, Server.millis(handle.entry.toolTimeoutSec)).pipe(
        Effect.flatMap(decode),
        Effect.mapError((error) => Errors.withContext(error, skillsRequestContext(method, server, uri)))
      )
    )

  const skillServers = Effect.gen(function* () {
    yield* Effect.forEach([...handles.values()], (handle) => Deferred.await(handle.settled), {
      concurrency: "unbounded",
      discard: true
    })
    const found: Array<{ readonly server: string; readonly directoryRead: boolean }> = []
    for (const [name, handle] of handles) {
      const state = handle.state
      if (state._tag !== "ready" || state.connection.capabilities.skills === undefined) continue
      found.push({ server: name, directoryRead: state.connection.capabilities.skills.directoryRead })
    }
    return found.sort((a, b) => compareBytewise(a.server, b.server))
  })

  const listSkills = (server: string, cursor?: string) =>
    skillsRequest(server, "skills/list", cursor === undefined ? {} : { cursor }, decodeListSkills, undefined)

  const getSkill = (server: string, uri: string) =>
    Effect.map(skillsRequest(server, "skills/get", { uri }, decodeGetSkill, uri), (result) => result.skill)

  const readResourceDirectory = (server: string, uri: string, cursor?: string) =>
    skillsRequest(
      server,
      "resources/directory/read",
      cursor === undefined ? { uri } : { uri, cursor },
      decodeReadDirectory,
      uri,
      true
    )

  const servers = (): ReadonlyArray<ServerStatus> =>
    setup.servers
      .map((entry): ServerStatus => {
        const handle = entry.enabled ? handles.get(entry.name) : undefined
        const base = { name: entry.name, transport: transportKind(entry), ...httpTransportOf(entry, handle) }
        if (handle === undefined) return { ...base, status: "disabled" }
        return status(base, handle.state)
      })
      .sort((a, b) => compareBytewise(a.name, b.name))

  const awaitSettled = (name: string): Effect.Effect<Option.Option<ServerStatus>> =>
    Effect.gen(function* () {
      const handle = handles.get(name)
      if (handle !== undefined) yield* Deferred.await(handle.settled)
      return Option.fromNullable(servers().find((s) => s.name === name))
    })

  const view: ConnectionSet = {
    generation,
    config: setup.config as Config.Config,
    hasServers: () => handles.size > 0,
    hasServer: (name) => handles.has(name),
    servers,
    awaitSettled,
    awaitAllSettled: Effect.forEach([...handles.values()], (handle) => Deferred.await(handle.settled), {
      concurrency: "unbounded",
      discard: true
    }),
    listResources: (server, cursor) => held(listResources(server, cursor)),
    listResourceTemplates: (server, cursor) => held(listResourceTemplates(server, cursor)),
    readResource,
    listAllResources: (include) => held(listAllResources(include)),
    listAllResourceTemplates: (include) => held(listAllResourceTemplates(include)),
    listTools: (server) => held(listTools(server)),
    toolInfo: (server, tool) => held(toolInfo(server, tool)),
    callTool: (server, tool, args) => held(callTool(server, tool, args)),
    supports,
    subscribe: (server, uri) => held(subscribe(server, uri)),
    unsubscribe: (server, uri) => held(unsubscribe(server, uri)),
    resourceTemplates: (server) => held(resourceTemplates(server)),
    complete: (server, request) => held(complete(server, request)),
    skillServers: held(skillServers),
    listSkills: (server, cursor) => held(listSkills(server, cursor)),
    getSkill: (server, uri) => held(getSkill(server, uri)),
    readResourceDirectory: (server, uri, cursor) => held(readResourceDirectory(server, uri, cursor))
  }
  return { view, setup, handles, partitions }
}
