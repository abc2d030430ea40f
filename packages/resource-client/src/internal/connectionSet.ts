/**
 * A connection set: the servers of one setup with their handles and the operations of
 * resource-tools.md 1.4 and 2.2 (the per-server requests, tools, subscriptions, completion, skills),
 * answered through the result cache where the server allowed it. Its aggregate listing is
 * `aggregateListing.ts`'s, its lifetime `lifetimes.ts`'s, its cache `cache.ts`'s.
 */
import { type Config, Errors, Mcp, McpSkills, Messages } from "@mcp-resources/protocol"
import { Deferred, Effect, Option } from "effect"
import * as Pagination from "../Pagination.js"
import type {
  ChangeDetection,
  CompleteRequest,
  ConnectionSet,
  ReadOptions,
  RequestMeta,
  ServerFeature,
  ServerStatus
} from "./types.js"
import type { ServerEntry, Setup } from "../ServerEntry.js"
import { compareBytewise } from "@mcp-resources/protocol/Utf8"
import { aggregate } from "./aggregateListing.js"
import * as FastPaths from "./fastPaths.js"
import * as Cache from "./cache.js"
import * as Detection from "./detection.js"
import { type Connection, decodeResult, decodeResultEither, type Hold, transportKind } from "./connection.js"
import { type DecodedPage, readResourceOn, resourcesPageOn, templatesPageOn } from "./resourceRequests.js"
import * as Server from "./server.js"
import { httpTransportOf, status } from "./status.js"

/** A set: its operations (`view`), its setup and its handles. Its lifetime is `lifetimes.ts`'s. */
export interface SetImpl {
  readonly view: ConnectionSet
  readonly setup: Setup
  readonly handles: ReadonlyMap<string, Server.Handle>
  /** Per server name: the hash of its authorization context (see {@link Cache.partitionOf}). */
  readonly partitions: ReadonlyMap<string, string>
}

/** No state to open or abandon (a set's operation only holds the set: {@link FastPaths.heldWith}). */
const noState = (): void => {}

const unknownServer = (server: string) =>
  new Errors.TransportError({ kind: "unknownServer", message: Messages.unknownServer(server) })

const failedToGetClient = (error: string) =>
  new Errors.TransportError({ kind: "unavailable", message: Messages.failedToGetClient(error) })

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

/** What {@link make} builds a set from. */
export interface Options {
  readonly generation: number
  readonly setup: Setup
  /** The handles of the enabled servers. */
  readonly handles: ReadonlyMap<string, Server.Handle>
  /** The set's holder count (owned by `lifetimes.ts`): every operation holds the set while it runs. */
  readonly hold: Hold
  /** The result cache as this set sees it (its generation, its servers' partitions). */
  readonly cache: Cache.SetCache
}

/** Builds the set of `options.setup` over its handles (enabled servers only). */
export const make = (options: Options): SetImpl => {
  const { generation, setup, handles, hold, cache } = options
  /**
   * Acquires a hold, runs the operation built by `use` interruptibly and releases the hold on every
   * exit, uninterruptibly ({@link FastPaths.heldWith}: acquireUseRelease in fewer steps).
   */
  const heldWith = <A, E>(use: () => Effect.Effect<A, E>): Effect.Effect<A, E> =>
    FastPaths.heldWith(hold, noState, use, noState)

  const pageAnswer = <A>(page: DecodedPage<A>) => page

  /** A cached `resources/list` page; `timeoutMillis` bounds its request (the server's tool timeout when not given). */
  const cachedResources = (
    connection: Connection,
    entry: ServerEntry,
    cursor: string | undefined,
    timeoutMillis?: number
  ) =>
    connection.capabilities.resources
      ? cache.through(
          entry.name,
          connection,
          Cache.pageRequest("resources/list", cursor),
          resourcesPageOn(connection, entry, cursor, timeoutMillis),
          pageAnswer
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
      ? cache.through(
          entry.name,
          connection,
          Cache.pageRequest("resources/templates/list", cursor),
          templatesPageOn(connection, entry, cursor, timeoutMillis),
          pageAnswer
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
    const read = Detection.observed(connection, uri, readResourceOn(connection, entry, uri, meta, requestHold))
    // a read kept for windows is kept in the caller's form, counted by the bytes that form holds
    return cache.through(
      entry.name,
      connection,
      Cache.readRequest(uri, meta, options?.defaultTtlMs ?? 0, options?.keptForm),
      read
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

  const changeDetection = (server: string): ChangeDetection | undefined => {
    const state = handles.get(server)?.state
    return state?._tag === "ready" ? state.connection.detection.mode() : undefined
  }

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
    if (!connection.capabilities.resources) return yield* all
    return yield* cache.through(server, connection, Cache.allTemplatesRequest, all)
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
      () => Messages.requestContext["completion/complete"](server)
    )
    return result.completion
  })

  const listAllResources = Effect.fn("ConnectionSet.listAllResources")(function* (
    include: (server: string) => boolean
  ) {
    return yield* aggregate(handles, include, "resources/list", (connection, entry, cursor, remainingMillis) =>
      Effect.map(cachedResources(connection, entry, cursor, remainingMillis), (page) => ({
        items: page.resources,
        nextCursor: page.nextCursor
      }))
    )
  })

  const listAllResourceTemplates = Effect.fn("ConnectionSet.listAllResourceTemplates")(function* (
    include: (server: string) => boolean
  ) {
    return yield* aggregate(
      handles,
      include,
      "resources/templates/list",
      (connection, entry, cursor, remainingMillis) =>
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
    changeDetection,
    subscribe: (server, uri) => held(subscribe(server, uri)),
    unsubscribe: (server, uri) => held(unsubscribe(server, uri)),
    resourceTemplates: (server) => held(resourceTemplates(server)),
    complete: (server, request) => held(complete(server, request)),
    skillServers: held(skillServers),
    listSkills: (server, cursor) => held(listSkills(server, cursor)),
    getSkill: (server, uri) => held(getSkill(server, uri)),
    readResourceDirectory: (server, uri, cursor) => held(readResourceDirectory(server, uri, cursor))
  }
  return { view, setup, handles, partitions: cache.partitions }
}
