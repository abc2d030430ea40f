/**
 * One started server of a connection set (a "handle"): its startup, status, tool catalog and crash
 * watch. A handle may be shared by two sets (a reload carries an unchanged ready server over);
 * `lifetimes.ts` counts its sets and closes it when the last one closes. A remote (HTTP) server
 * whose connection drops is reconnected with bounded exponential backoff; a stdio server that exits stays failed.
 */
import { Errors, type Mcp, Messages } from "@mcp-resources/protocol"
import { Cause, Deferred, Effect, Exit, Option, type Runtime, Scope } from "effect"
import type * as ServerRequests from "../ServerRequests.js"
import type { ServerEntry } from "../ServerEntry.js"
import {
  asSse,
  type Connection,
  type HttpTransportKind,
  attemptInEra,
  open,
  type TransportFactory,
  type Verdict
} from "./connection.js"
import { serially } from "./onDemand.js"
import * as Sdk from "./sdk.js"
import { Subscriptions } from "./subscriptions.js"
import { millis } from "./request.js"
import { collectToolsAtStartup, collectToolsOrNone } from "./toolCatalog.js"

export { millis } from "./request.js"
export { collectTools } from "./toolCatalog.js"

/** The state of a handle. */
export type State =
  | { readonly _tag: "starting" }
  | { readonly _tag: "ready"; readonly connection: Connection; readonly tools: ReadonlyArray<Mcp.Tool> }
  | {
      readonly _tag: "failed"
      readonly error: string
      /** Set while a dropped remote server is being reconnected: the attempt under way or waited for. */
      readonly reconnectAttempt?: number
    }

/** A started (or starting) server. */
export interface Handle {
  readonly entry: ServerEntry
  state: State
  /** Completes when startup settled (ready or failed), or when the handle closed. */
  readonly settled: Deferred.Deferred<void>
  readonly scope: Scope.CloseableScope
  /** The era verdict of the first connection, adopted by every reconnection (the probe is paid once). */
  verdict: Verdict | undefined
  /**
   * HTTP servers: the transport the last connection spoke. A server that fell back to HTTP+SSE is
   * reconnected over HTTP+SSE at once.
   */
  httpTransport: HttpTransportKind | undefined
  /** The resource subscriptions held on this server, sent again on every new connection. */
  readonly subscriptions: Subscriptions
}

/**
 * The reconnection of a dropped remote server: attempt `n` (from 1) starts
 * `min(initialDelayMillis * factor^(n-1), maxDelayMillis)` after the previous one ended (the drop
 * for the first), for at most `maxAttempts` attempts; then the server stays failed.
 */
export const reconnectPolicy = {
  initialDelayMillis: 500,
  factor: 2,
  maxDelayMillis: 30_000,
  maxAttempts: 8
} as const

/** The delay before reconnection attempt `attempt` (from 1). */
export const reconnectDelayMillis = (attempt: number): number =>
  Math.min(reconnectPolicy.initialDelayMillis * reconnectPolicy.factor ** (attempt - 1), reconnectPolicy.maxDelayMillis)

/** The message of a failure cause: the typed failure's message chain, else the defect's text. */
export const causeMessage = (cause: Cause.Cause<{ readonly message: string }>): string =>
  Option.match(Cause.failureOption(cause), {
    onSome: (error) => error.message,
    onNone: () => {
      const squashed = Cause.squash(cause)
      return squashed instanceof Error ? squashed.message : String(squashed)
    }
  })

interface Connected {
  readonly connection: Connection
  readonly tools: ReadonlyArray<Mcp.Tool>
  readonly scope: Scope.CloseableScope
}

/**
 * Installed beside every connection a handle serves (the first and each reconnection), with that
 * connection's scope; what it runs goes through `connection.background` (stopped when the connection
 * closes). `lifetimes.ts` consumes the connection's resource notifications with it.
 */
export type ConnectionWatch = (connection: Connection, handle: Handle, scope: Scope.Scope) => Effect.Effect<void>

/** What every handle of a connection set starts with (one object, shared by the set's handles). */
export interface StartOptions {
  readonly transports: TransportFactory
  /** The set's runtime: every connection's work on demand runs on it. */
  readonly runtime: Runtime.Runtime<never>
  /** With permits, a start waits for one of them first (bounded start-up concurrency). */
  readonly permits?: Effect.Semaphore
  readonly watch?: ConnectionWatch
  readonly serverRequests?: ServerRequests.Service
  /** Told after every change of a handle's state (its status may have changed: `mcpServer/statusChanged`). */
  readonly onStateChange?: () => void
}

/**
 * Creates a handle and starts its server in the background (connect, initialize, tools), bounded by the
 * startup timeout, which counts from when the server's own start begins (after its permit).
 */
export const start = (
  entry: ServerEntry,
  { transports, runtime, permits, watch, serverRequests, onStateChange }: StartOptions,
  /** The subscriptions of a handle this one replaces for the same entry (a reconnect of the set). */
  subscriptions: Subscriptions = new Subscriptions()
): Effect.Effect<Handle> =>
  Effect.gen(function* () {
    const scope = yield* Scope.make()
    const settled = yield* Deferred.make<void>()
    const handle: Handle = {
      entry,
      state: { _tag: "starting" },
      settled,
      scope,
      verdict: undefined,
      httpTransport: undefined,
      subscriptions
    }
    /** Every change of the state goes through here, so that the set's owner hears of it. */
    const setState = (state: State): void => {
      handle.state = state
      onStateChange?.()
    }
    // runs last on close: whoever still waits sees a settled, closed server
    yield* Scope.addFinalizer(
      scope,
      Effect.suspend(() => {
        if (handle.state._tag !== "failed") setState({ _tag: "failed", error: Messages.connectionClosed })
        return Deferred.succeed(settled, undefined)
      })
    )
    const startupMillis = millis(entry.startupTimeoutSec)

    /**
     * One connection with its tool catalog, in a scope of its own (`attemptInEra`: a modern-only
     * server slow to start is started again in its era); the failure is the message.
     */
    const connect: Effect.Effect<Connected, string> = Effect.gen(function* () {
      // the SDK is loaded (once per process) before the server's startup timeout starts counting
      yield* Sdk.load
      const exit = yield* Effect.exit(
        attemptInEra(handle.httpTransport === "sse" ? asSse(entry) : entry, scope, (target) =>
          Effect.gen(function* () {
            const connection = yield* open(target, {
              timeoutMillis: startupMillis,
              transports,
              runtime,
              ...(handle.verdict === undefined ? {} : { prior: handle.verdict }),
              ...(serverRequests === undefined ? {} : { handlers: serverRequests })
            })
            const tools = yield* collectToolsAtStartup(connection, entry)
            return { connection, tools }
          }).pipe(
            Effect.timeoutFail({
              duration: startupMillis,
              onTimeout: () =>
                new Errors.TransportError({ kind: "startup", message: Messages.startupTimedOut(startupMillis) })
            }),
            (bounded) => (permits === undefined ? bounded : permits.withPermits(1)(bounded))
          )
        )
      )
      if (Exit.isFailure(exit)) {
        return yield* Effect.fail(causeMessage(exit.cause as Cause.Cause<{ readonly message: string }>))
      }
      const [connected, connectionScope] = exit.value
      return { ...connected, scope: connectionScope }
    })

    const isCurrent = (connection: Connection) =>
      handle.state._tag === "ready" && handle.state.connection === connection

    /**
     * Serves a connection: its catalog refresh, its crash watch and the set's watch run on demand in
     * the connection's scope (no fiber waits for their events; closing the server stops them before
     * the transport closes); a remote server that drops is then reconnected beside it.
     */
    const serve = ({ connection, tools, scope: connectionScope }: Connected): Effect.Effect<void> =>
      Effect.gen(function* () {
        setState({ _tag: "ready", connection, tools })
        handle.verdict ??= connection.verdict
        handle.httpTransport = connection.httpTransport
        const { background } = connection
        if (watch !== undefined) yield* watch(connection, handle, connectionScope)
        // the server keeps no subscription across connections: every held one is sent again
        background.run(subscriptions.restore(entry.name, connection, millis(entry.toolTimeoutSec)))
        // notifications/tools/list_changed refreshes the catalog
        connection.toolsChanged.listen(
          serially(background, () =>
            Effect.flatMap(collectToolsOrNone(connection, entry), (tools) =>
              Effect.sync(() => {
                if (isCurrent(connection)) setState({ _tag: "ready", connection, tools })
              })
            )
          )
        )
        // a crash (transport closed) marks the server failed with the close reason
        connection.onClosed((reason) =>
          background.run(
            Effect.suspend(() => {
              if (!isCurrent(connection)) return Effect.void
              const remote = entry.transport._tag === "http"
              // a server that needs a login stays failed until one (a login reloads the set)
              const reconnects = remote && !connection.needsLogin()
              setState(
                reconnects ? { _tag: "failed", error: reason, reconnectAttempt: 1 } : { _tag: "failed", error: reason }
              )
              const logged = Effect.logWarning(`MCP server '${entry.name}' closed: ${reason}`)
              if (!remote) return logged
              // the dead connection is cleaned up beside the reconnection (ending a session may take its time)
              // the reconnection is forked first: closing this scope interrupts this very fiber
              const cleanedUp = Effect.forkIn(Scope.close(connectionScope, Exit.void), scope)
              return reconnects
                ? logged.pipe(Effect.zipRight(Effect.forkIn(reconnect(reason), scope)), Effect.zipRight(cleanedUp))
                : Effect.zipRight(logged, cleanedUp)
            })
          )
        )
      })

    /** Reconnects a dropped remote server with the backoff of {@link reconnectPolicy}. */
    const reconnect = (reason: string): Effect.Effect<void> =>
      Effect.gen(function* () {
        let last = reason
        for (let attempt = 1; attempt <= reconnectPolicy.maxAttempts; attempt++) {
          setState({ _tag: "failed", error: reason, reconnectAttempt: attempt })
          yield* Effect.sleep(reconnectDelayMillis(attempt))
          const outcome = yield* Effect.either(connect)
          if (outcome._tag === "Right") {
            yield* Effect.logInfo(`MCP server '${entry.name}' reconnected (attempt ${attempt})`)
            return yield* serve(outcome.right)
          }
          last = outcome.left
          yield* Effect.logWarning(`MCP server '${entry.name}' reconnection attempt ${attempt} failed: ${last}`)
        }
        setState({ _tag: "failed", error: Messages.reconnectFailed(reconnectPolicy.maxAttempts, last) })
      })

    const startup = Effect.gen(function* () {
      const outcome = yield* Effect.either(connect)
      if (outcome._tag === "Left") {
        setState({ _tag: "failed", error: outcome.left })
        yield* Effect.logWarning(`MCP server '${entry.name}' failed to start: ${outcome.left}`)
        return yield* Deferred.succeed(settled, undefined)
      }
      setState({ _tag: "ready", connection: outcome.right.connection, tools: outcome.right.tools })
      yield* Deferred.succeed(settled, undefined)
      yield* serve(outcome.right)
    })
    // interruptible: `publish` runs uninterruptibly, and a forked fiber inherits that (timeouts would then wait out their sleeps)
    yield* Effect.forkIn(Effect.interruptible(startup), scope)
    return handle
  })

/** Closes the handle's connection (stdio children end, HTTP sessions end). */
export const close = (handle: Handle): Effect.Effect<void> => Scope.close(handle.scope, Exit.void)
