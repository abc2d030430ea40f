/**
 * The one owner of connection-set lifetimes: which set is the latest, who holds which set, which
 * sets share which server handle, and when a set or a handle closes. A caller keeps a given set with
 * {@link Lifetimes.hold} for the life of a scope; a superseded set closes when its last holder lets
 * go, and a handle closes when the last set holding it closes. Every operation of a set holds it while
 * it runs. When a set or a connection closes, it tells the result cache (`cache.ts`), which owns what
 * that drops; each connection's changes are handed to the change path (`changes.ts`).
 */
import type { Config } from "@mcp-resources/protocol"
import type * as ServerRequests from "../ServerRequests.js"
import { Effect, Scope } from "effect"
import type { ConnectionSet } from "./types.js"
import type { ServerEntry, Setup } from "../ServerEntry.js"
import * as Cache from "./cache.js"
import type * as Changes from "./changes.js"
import type { Connection, Hold, TransportFactory } from "./connection.js"
import * as Server from "./server.js"
import { Subscriptions } from "./subscriptions.js"
import * as ConnectionSetImpl from "./connectionSet.js"

/** The lifetimes of one resource client's sets. */
export interface Lifetimes {
  /** The latest set (defined from the first publish until the scope closes). */
  readonly latest: () => ConnectionSetImpl.SetImpl
  /** The latest set, or undefined before the first publish and once the scope is closing. */
  readonly latestIfOpen: () => ConnectionSetImpl.SetImpl | undefined
  /** The setup of the latest set. */
  readonly setup: () => Setup
  /** The config of the latest set's setup (the client's `config`). */
  readonly config: () => Config.Config
  /**
   * Publishes a set of `setup` as the latest (its enabled servers start in the background); with
   * `carryOver`, unchanged ready servers of the previous set are shared rather than restarted.
   */
  readonly publish: (setup: Setup, carryOver: boolean) => Effect.Effect<void>
  /** Keeps `set` open until the scope closes (a set that already closed stays closed: its servers answer `connection closed`). */
  readonly hold: (set: ConnectionSet) => Effect.Effect<ConnectionSet, never, Scope.Scope>
  /** Keeps the latest set open until the scope closes. */
  readonly holdLatest: Effect.Effect<ConnectionSet, never, Scope.Scope>
}

interface Held {
  set: ConnectionSetImpl.SetImpl | undefined
  /** The latest-set hold plus every binding and in-flight operation. */
  holders: number
  closed: boolean
}

const sameTransport = (a: ServerEntry["transport"], b: ServerEntry["transport"]): boolean => {
  if (a._tag === "memory" || b._tag === "memory") {
    return a._tag === "memory" && b._tag === "memory" && a.connect === b.connect
  }
  return JSON.stringify(Cache.canonical(a)) === JSON.stringify(Cache.canonical(b))
}

/** Two entries are unchanged when every field, the transport included, is equal. */
const sameEntry = (a: ServerEntry, b: ServerEntry): boolean =>
  a.name === b.name &&
  a.enabled === b.enabled &&
  a.startupTimeoutSec === b.startupTimeoutSec &&
  a.toolTimeoutSec === b.toolTimeoutSec &&
  a.maxMessageBytes === b.maxMessageBytes &&
  (a.protocolVersion ?? "auto") === (b.protocolVersion ?? "auto") &&
  a.pollChangesSec === b.pollChangesSec &&
  sameTransport(a.transport, b.transport)

/** What the lifetimes need: the transports, the cache, and the permits bounding concurrent start-ups. */
export interface Options {
  readonly transports: TransportFactory
  readonly cache: Cache.ResultCache
  readonly startupPermits: Effect.Semaphore
  /** The host's server-request handlers, given to every connection of every set. */
  readonly serverRequests?: ServerRequests.Service
  /** The change path every connection's changes go through (none: changes are not followed). */
  readonly changes?: Changes.Path
  /** The sources of a connection's changes besides its notifications (see `changes.ts`; change detection's is one). */
  readonly changeSources?: ReadonlyArray<(entry: ServerEntry, connection: Connection) => Changes.Source>
  /** Told after every change of a server's state in any set (see `Server.StartOptions.onStateChange`). */
  readonly onStateChange?: () => void
}

/** Makes the lifetimes; closing the scope closes every set (children end, sessions end). */
export const make = (options: Options): Effect.Effect<Lifetimes, never, Scope.Scope> =>
  Effect.gen(function* () {
    const { transports, cache, startupPermits, serverRequests, changes, changeSources = [], onStateChange } = options
    const publishLock = yield* Effect.makeSemaphore(1)
    const open = new Map<ConnectionSet, Held>()
    /** How many open sets share each handle. */
    const handleRefs = new Map<Server.Handle, number>()
    let current: Held | undefined
    let currentSetup: Setup | undefined

    /**
     * Beside every connection a handle serves (the first and each reconnection), that connection's
     * changes go through the change path; when the connection closes, the answers it gave are dropped
     * (a reconnection is a new connection: nothing of the old one is served).
     */
    const watch: Server.ConnectionWatch = (connection, { entry, subscriptions }, scope) => {
      const server = entry.name
      changes?.follow(
        { server, queue: connection.resourceChanges, background: connection.background, subscriptions },
        changeSources.map((source) => source(entry, connection))
      )
      return Scope.addFinalizer(
        scope,
        Effect.sync(() => cache.invalidateConnection(server, cache.connectionId(connection)))
      )
    }
    const startOptions: Server.StartOptions = {
      transports,
      runtime: yield* Effect.runtime<never>(),
      permits: startupPermits,
      watch,
      ...(serverRequests === undefined ? {} : { serverRequests }),
      ...(onStateChange === undefined ? {} : { onStateChange })
    }

    const releaseHandle = (handle: Server.Handle): boolean => {
      const refs = (handleRefs.get(handle) ?? 1) - 1
      if (refs > 0) {
        handleRefs.set(handle, refs)
        return false
      }
      handleRefs.delete(handle)
      return true
    }

    const closeSet = (held: Held): Effect.Effect<void> =>
      Effect.suspend(() => {
        const set = held.set
        if (held.closed || set === undefined) return Effect.void
        held.closed = true
        open.delete(set.view)
        cache.invalidateGeneration(set.view.generation)
        const toClose = [...set.handles.values()].filter(releaseHandle)
        return Effect.forEach(toClose, Server.close, { concurrency: "unbounded", discard: true })
      })

    /** Drops one holder at once; returns closing the set when that was its last holder and it is superseded. */
    const releaseNow = (held: Held): Effect.Effect<void> => {
      held.holders -= 1
      return held.holders <= 0 && held !== current ? closeSet(held) : Effect.void
    }

    const holdOf = (held: Held): Hold => ({
      acquire: () => {
        held.holders += 1
      },
      release: () => releaseNow(held)
    })

    const holdHeld = (held: Held): Effect.Effect<ConnectionSet, never, Scope.Scope> =>
      Effect.acquireRelease(
        Effect.sync(() => {
          held.holders += 1
          return held.set!.view
        }),
        () => Effect.suspend(() => releaseNow(held))
      )

    /** A new handle for `entry`, started with the set's options (and {@link watch} beside each connection). */
    const startHandle = (entry: ServerEntry, subscriptions = new Subscriptions()): Effect.Effect<Server.Handle> =>
      Server.start(entry, startOptions, subscriptions)

    const publish = (next: Setup, carryOver: boolean): Effect.Effect<void> =>
      publishLock.withPermits(1)(
        Effect.gen(function* () {
          const previous = current
          const handles = new Map<string, Server.Handle>()
          const partitions = new Map<string, string>()
          for (const entry of next.servers) {
            if (!entry.enabled) continue
            const partition = yield* Cache.partitionOf(entry)
            partitions.set(entry.name, partition)
            const old = previous?.set?.handles.get(entry.name)
            // a changed bearer token (same entry, another value of its variable) starts a new connection:
            // the old one still sends the old token
            if (
              carryOver &&
              old !== undefined &&
              old.state._tag === "ready" &&
              sameEntry(old.entry, entry) &&
              previous?.set?.partitions.get(entry.name) === partition
            ) {
              handleRefs.set(old, (handleRefs.get(old) ?? 1) + 1)
              handles.set(entry.name, old)
            } else {
              // the same entry started again (a reconnect, or a failed server): its subscriptions go with it
              const inherited =
                old !== undefined && sameEntry(old.entry, entry) ? old.subscriptions : new Subscriptions()
              const handle = yield* startHandle(entry, inherited)
              handleRefs.set(handle, 1)
              handles.set(entry.name, handle)
            }
          }
          const generation = (previous?.set?.view.generation ?? 0) + 1
          const held: Held = { set: undefined, holders: 1, closed: false }
          const set = ConnectionSetImpl.make({
            generation,
            setup: next,
            handles,
            hold: holdOf(held),
            cache: new Cache.SetCache(cache, generation, partitions)
          })
          held.set = set
          open.set(set.view, held)
          current = held
          currentSetup = next
          cache.configure(next.config.cache)
          if (previous !== undefined) yield* Effect.suspend(() => releaseNow(previous))
        }).pipe(Effect.uninterruptible)
      )

    yield* Effect.addFinalizer(() =>
      Effect.suspend(() => {
        current = undefined
        return Effect.forEach([...open.values()], closeSet, { concurrency: "unbounded", discard: true })
      })
    )

    return {
      latest: () => current!.set!,
      latestIfOpen: () => current?.set,
      setup: () => currentSetup!,
      config: () => currentSetup!.config,
      publish,
      hold: (set) =>
        Effect.suspend(() => {
          const held = open.get(set)
          return held === undefined || held.closed ? Effect.succeed(set) : holdHeld(held)
        }),
      holdLatest: Effect.suspend(() => holdHeld(current!))
    }
  })
