/**
 * A connection set: the servers of one setup with their handles, the operations of
 * resource-tools.md 1.4 and 2.2, and the holder count that decides when a superseded set closes.
 */
import { type Config, Errors, Mcp, Messages } from "@mcp-resources/protocol"
import { Deferred, Effect, Option } from "effect"
import * as Pagination from "../Pagination.js"
import type { AggregateResult, ConnectionSet, RequestMeta, ServerConnection, ServerStatus } from "../ResourceClient.js"
import type { ServerEntry, Setup } from "../ServerEntry.js"
import { type Connection, decodeResult, decodeResultEither, type Hold, transportKind } from "./connection.js"
import { withFastPath } from "./readResult.js"
import * as Server from "./server.js"
import { status } from "./status.js"

/** A set with its bookkeeping. */
export interface SetImpl {
  readonly view: ConnectionSet
  readonly setup: Setup
  readonly handles: ReadonlyMap<string, Server.Handle>
  /** The latest-set hold plus every binding and in-flight operation. */
  holders: number
  closed: boolean
}

/** Bytewise comparison of two strings (UTF-8 byte order). */
export const compareBytewise = (a: string, b: string): number => Buffer.compare(Buffer.from(a), Buffer.from(b))

const unknownServer = (server: string) =>
  new Errors.TransportError({ kind: "unknownServer", message: Messages.unknownServer(server) })

const failedToGetClient = (error: string) =>
  new Errors.TransportError({ kind: "unavailable", message: Messages.failedToGetClient(error) })

const decodeListResources = decodeResult(Mcp.ListResourcesResult, "resources/list")
const decodeListResourceTemplates = decodeResult(Mcp.ListResourceTemplatesResult, "resources/templates/list")
const decodeReadResource = withFastPath(decodeResultEither(Mcp.ReadResourceResult, "resources/read"))
const decodeCallTool = decodeResult(Mcp.CallToolResult, "tools/call")

/** One `resources/list` page on a connection. */
export const listResourcesOn = (connection: Connection, entry: ServerEntry, cursor: string | undefined) =>
  connection.capabilities.resources
    ? connection
        .request("resources/list", cursor === undefined ? undefined : { cursor }, Server.millis(entry.toolTimeoutSec))
        .pipe(
          Effect.flatMap(decodeListResources),
          Effect.mapError((error) => Errors.withContext(error, Messages.requestContext["resources/list"](entry.name)))
        )
    : Effect.succeed<Mcp.ListResourcesResult>({ resources: [] })

/** One `resources/templates/list` page on a connection. */
export const listResourceTemplatesOn = (connection: Connection, entry: ServerEntry, cursor: string | undefined) =>
  connection.capabilities.resources
    ? connection
        .request(
          "resources/templates/list",
          cursor === undefined ? undefined : { cursor },
          Server.millis(entry.toolTimeoutSec)
        )
        .pipe(
          Effect.flatMap(decodeListResourceTemplates),
          Effect.mapError((error) =>
            Errors.withContext(error, Messages.requestContext["resources/templates/list"](entry.name))
          )
        )
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

/**
 * Builds the set of `setup` over `handles` (enabled servers only). `release` drops one holder at
 * once and returns what remains to do (closing the set, or `Effect.void`).
 */
export const make = (
  generation: number,
  setup: Setup,
  handles: ReadonlyMap<string, Server.Handle>,
  release: (set: SetImpl) => Effect.Effect<void>
): SetImpl => {
  /**
   * Acquires a hold, runs the operation built by `use` interruptibly and releases the hold on every
   * exit, uninterruptibly: one mask and one match (fewer steps than acquireUseRelease or onExit).
   */
  const heldWith = <A, E>(use: () => Effect.Effect<A, E>): Effect.Effect<A, E> =>
    Effect.uninterruptibleMask((restore) => {
      impl.holders += 1
      return Effect.matchCauseEffect(restore(use()), {
        onFailure: (cause) => {
          const rest = release(impl)
          return rest === Effect.void ? Effect.failCause(cause) : Effect.zipRight(rest, Effect.failCause(cause))
        },
        onSuccess: (value) => {
          const rest = release(impl)
          return rest === Effect.void ? Effect.succeed(value) : Effect.as(rest, value)
        }
      })
    })
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
    return yield* listResourcesOn(connection, handle.entry, cursor)
  })

  const listResourceTemplates = Effect.fn("ConnectionSet.listResourceTemplates")(function* (
    server: string,
    cursor?: string
  ) {
    const { connection, handle } = yield* ready(server)
    return yield* listResourceTemplatesOn(connection, handle.entry, cursor)
  })

  /** The set held by one request: taken as it starts, released once it ends. */
  const requestHold: Hold = {
    acquire: () => {
      impl.holders += 1
    },
    release: () => release(impl)
  }

  // the hot path of read_mcp_resource: no span, no generator; a ready server is used at once, and
  // the request itself holds the set (one mask and match rather than two)
  const readResource = (
    server: string,
    uri: string,
    meta: RequestMeta | undefined
  ): Effect.Effect<Mcp.ReadResourceResult, Errors.ResourceFailure> =>
    Effect.suspend(() => {
      const handle = handles.get(server)
      if (handle !== undefined) {
        const state = handle.state
        if (state._tag === "ready") return readResourceOn(state.connection, handle.entry, uri, meta, requestHold)
      }
      return heldWith(() =>
        Effect.flatMap(ready(server), ({ connection, handle }) => readResourceOn(connection, handle.entry, uri, meta))
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

  const aggregate = <A>(
    include: (server: string) => boolean,
    method: "resources/list" | "resources/templates/list",
    fetch: (
      connection: Connection,
      entry: ServerEntry,
      cursor: string | undefined
    ) => Effect.Effect<Pagination.Page<A>, Errors.ResourceFailure>
  ): Effect.Effect<AggregateResult<A>> =>
    Effect.gen(function* () {
      const names = [...handles.keys()].filter((name) => include(name)).sort(compareBytewise)
      type Outcome = Option.Option<
        | { readonly server: string; readonly items: ReadonlyArray<A> }
        | { readonly server: string; readonly error: string }
      >
      const outcomes = yield* Effect.forEach(
        names,
        (name): Effect.Effect<Outcome> => {
          const handle = handles.get(name)!
          const state = handle.state
          if (state._tag === "failed") {
            return Effect.succeed<Outcome>(
              Option.some({ server: name, error: Messages.failedToGetClient(state.error) })
            )
          }
          if (state._tag !== "ready") return Effect.succeed<Outcome>(Option.none())
          return Pagination.collectPaginated({
            method,
            timeout: Server.millis(handle.entry.toolTimeoutSec),
            fetchPage: (cursor) => fetch(state.connection, handle.entry, cursor)
          }).pipe(
            Effect.match({
              onFailure: (error): Outcome => Option.some({ server: name, error: error.message }),
              onSuccess: (items): Outcome => Option.some({ server: name, items })
            })
          )
        },
        { concurrency: "unbounded" }
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
    return yield* aggregate(include, "resources/list", (connection, entry, cursor) =>
      Effect.map(listResourcesOn(connection, entry, cursor), (page) => ({
        items: page.resources,
        nextCursor: page.nextCursor
      }))
    )
  })

  const listAllResourceTemplates = Effect.fn("ConnectionSet.listAllResourceTemplates")(function* (
    include: (server: string) => boolean
  ) {
    return yield* aggregate(include, "resources/templates/list", (connection, entry, cursor) =>
      Effect.map(listResourceTemplatesOn(connection, entry, cursor), (page) => ({
        items: page.resourceTemplates,
        nextCursor: page.nextCursor
      }))
    )
  })

  const servers = (): ReadonlyArray<ServerStatus> =>
    setup.servers
      .map((entry): ServerStatus => {
        const handle = entry.enabled ? handles.get(entry.name) : undefined
        const base = { name: entry.name, transport: transportKind(entry) }
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
    callTool: (server, tool, args) => held(callTool(server, tool, args))
  }
  const impl: SetImpl = { view, setup, handles, holders: 0, closed: false }
  return impl
}
