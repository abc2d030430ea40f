/**
 * One started server of a connection set (a "handle"): its startup, status, tool catalog and crash
 * watch. A handle may be shared by two sets (a reload carries an unchanged ready server over);
 * `connectionSet.ts` counts its sets and closes it when the last one closes.
 */
import { Errors, Mcp, Messages } from "@mcp-resources/protocol"
import { Cause, Deferred, Effect, ExecutionStrategy, Exit, Option, Scope } from "effect"
import * as Pagination from "../Pagination.js"
import type { ServerEntry } from "../ServerEntry.js"
import { type Connection, decodeResult, open, type TransportFactory } from "./connection.js"

/** The state of a handle. */
export type State =
  | { readonly _tag: "starting" }
  | { readonly _tag: "ready"; readonly connection: Connection; readonly tools: ReadonlyArray<Mcp.Tool> }
  | { readonly _tag: "failed"; readonly error: string }

/** A started (or starting) server. */
export interface Handle {
  readonly entry: ServerEntry
  state: State
  /** Completes when startup settled (ready or failed), or when the handle closed. */
  readonly settled: Deferred.Deferred<void>
  readonly scope: Scope.CloseableScope
}

/** Milliseconds of a number of seconds. */
export const millis = (seconds: number): number => Math.round(seconds * 1000)

/** The message of a failure cause: the typed failure's message chain, else the defect's text. */
export const causeMessage = (cause: Cause.Cause<{ readonly message: string }>): string =>
  Option.match(Cause.failureOption(cause), {
    onSome: (error) => error.message,
    onNone: () => {
      const squashed = Cause.squash(cause)
      return squashed instanceof Error ? squashed.message : String(squashed)
    }
  })

/** Collects the tool catalog of a connection with the pagination guard (resource-tools.md 2.3). */
export const collectTools = (
  connection: Connection,
  entry: ServerEntry
): Effect.Effect<ReadonlyArray<Mcp.Tool>, Errors.ResourceFailure> => {
  if (!connection.capabilities.tools) return Effect.succeed([])
  const timeout = millis(entry.toolTimeoutSec)
  return Pagination.collectPaginated({
    method: "tools/list",
    timeout,
    fetchPage: (cursor) =>
      connection.request("tools/list", cursor === undefined ? undefined : { cursor }, timeout).pipe(
        Effect.flatMap(decodeResult(Mcp.ListToolsResult, "tools/list")),
        Effect.map((page) => ({ items: page.tools, nextCursor: page.nextCursor })),
        Effect.mapError((error) => Errors.withContext(error, Messages.requestContext["tools/list"](entry.name)))
      )
  })
}

const collectToolsOrNone = (connection: Connection, entry: ServerEntry) =>
  collectTools(connection, entry).pipe(
    Effect.catchAll((error) =>
      Effect.as(
        Effect.logWarning(`Failed to collect tools of MCP server '${entry.name}': ${error.message}`),
        [] as ReadonlyArray<Mcp.Tool>
      )
    )
  )

/**
 * Creates a handle and starts its server in the background (connect, initialize, tools), bounded by the
 * startup timeout. With `permits`, the start waits for one of them first (bounded start-up
 * concurrency); the startup timeout counts from when the server's own start begins.
 */
export const start = (
  entry: ServerEntry,
  transports: TransportFactory,
  permits?: Effect.Semaphore
): Effect.Effect<Handle> =>
  Effect.gen(function* () {
    const scope = yield* Scope.make()
    const settled = yield* Deferred.make<void>()
    const handle: Handle = { entry, state: { _tag: "starting" }, settled, scope }
    // runs last on close: whoever still waits sees a settled, closed server
    yield* Scope.addFinalizer(
      scope,
      Effect.suspend(() => {
        if (handle.state._tag !== "failed") handle.state = { _tag: "failed", error: Messages.connectionClosed }
        return Deferred.succeed(settled, undefined)
      })
    )
    const startupMillis = millis(entry.startupTimeoutSec)
    const startup = Effect.gen(function* () {
      const connectionScope = yield* Scope.fork(scope, ExecutionStrategy.sequential)
      const exit = yield* Effect.gen(function* () {
        const connection = yield* open(entry, startupMillis, transports)
        const tools = yield* collectToolsOrNone(connection, entry)
        return { connection, tools }
      }).pipe(
        Scope.extend(connectionScope),
        Effect.timeoutFail({
          duration: startupMillis,
          onTimeout: () =>
            new Errors.TransportError({ kind: "startup", message: Messages.startupTimedOut(startupMillis) })
        }),
        (bounded) => (permits === undefined ? bounded : permits.withPermits(1)(bounded)),
        Effect.exit
      )
      if (Exit.isFailure(exit)) {
        const error = causeMessage(exit.cause)
        yield* Scope.close(connectionScope, exit)
        handle.state = { _tag: "failed", error }
        yield* Effect.logWarning(`MCP server '${entry.name}' failed to start: ${error}`)
        return yield* Deferred.succeed(settled, undefined)
      }
      const { connection, tools } = exit.value
      handle.state = { _tag: "ready", connection, tools }
      yield* Deferred.succeed(settled, undefined)
      // a crash (transport closed) marks the server failed with the close reason
      yield* Deferred.await(connection.closed).pipe(
        Effect.flatMap((reason) =>
          Effect.suspend(() => {
            if (handle.state._tag === "ready" && handle.state.connection === connection) {
              handle.state = { _tag: "failed", error: reason }
              return Effect.logWarning(`MCP server '${entry.name}' closed: ${reason}`)
            }
            return Effect.void
          })
        ),
        Effect.forkIn(connectionScope)
      )
      // notifications/tools/list_changed refreshes the catalog
      yield* connection.toolsChanged.take.pipe(
        Effect.zipRight(collectToolsOrNone(connection, entry)),
        Effect.flatMap((tools) =>
          Effect.sync(() => {
            if (handle.state._tag === "ready" && handle.state.connection === connection) {
              handle.state = { _tag: "ready", connection, tools }
            }
          })
        ),
        Effect.forever,
        Effect.forkIn(connectionScope)
      )
    })
    // interruptible: `publish` runs uninterruptibly, and a forked fiber inherits that (timeouts would then wait out their sleeps)
    yield* Effect.forkIn(Effect.interruptible(startup), scope)
    return handle
  })

/** Closes the handle's connection (stdio children end, HTTP sessions end). */
export const close = (handle: Handle): Effect.Effect<void> => Scope.close(handle.scope, Exit.void)
