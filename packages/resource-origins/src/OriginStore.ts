/**
 * The origin store service (resource-origins.md section 7): the origin state of every loaded thread,
 * driven by the thread's recorded events and rebuilt from its records on load.
 */
import type { Errors, OriginCheckpoint, ThreadEvent } from "@mcp-resources/protocol"
import { ResourceClient } from "@mcp-resources/resource-client"
import { Context, Effect, HashMap, Layer, Option, Ref } from "effect"
import * as OriginState from "./OriginState.js"

/** The operations of the origin store. Threads that were never observed or loaded have the empty state. */
export interface Service {
  /** Applies one live event to the thread's state (call it when the event is recorded). */
  readonly observe: (threadId: string, event: ThreadEvent.ThreadEvent) => Effect.Effect<void>
  /** The newest origin with that call id in the thread, or `originating MCP tool call was not found…`. */
  readonly find: (threadId: string, callId: string) => Effect.Effect<OriginState.Origin, Errors.AccessError>
  /** The thread's checkpoint for a `compacted` record; `None` when it has no origins. */
  readonly checkpoint: (threadId: string) => Effect.Effect<Option.Option<OriginCheckpoint.OriginCheckpoint>>
  /** The thread's current state. */
  readonly state: (threadId: string) => Effect.Effect<OriginState.State>
  /** Rebuilds the thread's state from its records (newest compaction and every later record) and replaces it. */
  readonly load: (threadId: string, events: ReadonlyArray<ThreadEvent.ThreadEvent>) => Effect.Effect<OriginState.State>
  /**
   * `load` for records read a page at a time: feed the thread's records in order to `add` (from its
   * first record or from its newest compaction), then `commit` replaces the thread's state with the
   * result, as `load` of the same records would.
   */
  readonly loader: (threadId: string) => Effect.Effect<Loader>
  /** True when the thread was observed or loaded since the store started (and not forgotten). */
  readonly isLoaded: (threadId: string) => Effect.Effect<boolean>
  /** Drops the thread's state (unloaded or deleted thread). */
  readonly forget: (threadId: string) => Effect.Effect<void>
}

/** A thread's records fed one at a time, then committed (see {@link Service.loader}). */
export interface Loader {
  readonly add: (event: ThreadEvent.ThreadEvent) => void
  readonly commit: Effect.Effect<OriginState.State>
}

/** The OriginStore service tag. Layers: `layer({appsServerName})`, `layerFromResourceClient`. */
export class OriginStore extends Context.Tag("@mcp-resources/resource-origins/OriginStore")<OriginStore, Service>() {}

/** Options of {@link make}. */
export interface Options {
  /** The apps server name, read at every event (it follows config reloads). */
  readonly appsServerName: Effect.Effect<string>
}

/** Builds the store over an in-memory map of thread states. */
export const make = (options: Options): Effect.Effect<Service> =>
  Effect.gen(function* () {
    const threads = yield* Ref.make(HashMap.empty<string, OriginState.State>())
    const stateOf = (threadId: string) =>
      Ref.get(threads).pipe(Effect.map((map) => Option.getOrElse(HashMap.get(map, threadId), () => OriginState.empty)))

    const observe = Effect.fn("OriginStore.observe")(function* (threadId: string, event: ThreadEvent.ThreadEvent) {
      const appsServerName = yield* options.appsServerName
      yield* Ref.update(threads, (map) =>
        HashMap.set(
          map,
          threadId,
          OriginState.apply(
            Option.getOrElse(HashMap.get(map, threadId), () => OriginState.empty),
            event,
            {
              appsServerName
            }
          )
        )
      )
    })

    const find = Effect.fn("OriginStore.find")(function* (threadId: string, callId: string) {
      return yield* OriginState.find(yield* stateOf(threadId), callId)
    })

    const checkpoint = Effect.fn("OriginStore.checkpoint")(function* (threadId: string) {
      return OriginState.checkpoint(yield* stateOf(threadId))
    })

    const state = Effect.fn("OriginStore.state")(function* (threadId: string) {
      return yield* stateOf(threadId)
    })

    /** Makes a replay's state the thread's, warning when its checkpoint was discarded. */
    const commit = (threadId: string, result: OriginState.ReplayResult) =>
      Effect.gen(function* () {
        if (result.restored?.discarded === true) {
          yield* Effect.logWarning(`discarded the resource-origin checkpoint of thread ${threadId}`).pipe(
            Effect.annotateLogs({ threadId, reason: result.restored.reason ?? "" })
          )
        }
        yield* Ref.update(threads, HashMap.set(threadId, result.state))
        return result.state
      })

    const load = Effect.fn("OriginStore.load")(function* (
      threadId: string,
      events: ReadonlyArray<ThreadEvent.ThreadEvent>
    ) {
      const appsServerName = yield* options.appsServerName
      return yield* commit(threadId, OriginState.replay(events, { appsServerName }))
    })

    const loader = Effect.fn("OriginStore.loader")(function* (threadId: string) {
      const replayer = OriginState.replayer({ appsServerName: yield* options.appsServerName })
      return {
        add: replayer.add,
        commit: Effect.suspend(() => commit(threadId, replayer.result())).pipe(Effect.withSpan("OriginStore.commit"))
      } satisfies Loader
    })

    const isLoaded = Effect.fn("OriginStore.isLoaded")(function* (threadId: string) {
      return HashMap.has(yield* Ref.get(threads), threadId)
    })

    const forget = Effect.fn("OriginStore.forget")(function* (threadId: string) {
      yield* Ref.update(threads, HashMap.remove(threadId))
    })

    return OriginStore.of({ observe, find, checkpoint, state, load, loader, isLoaded, forget })
  })

/** The store with the apps server name given by `options`. */
export const layer = (options: Options): Layer.Layer<OriginStore> => Layer.effect(OriginStore, make(options))

/** The store with the apps server name of the latest config loaded by `ResourceClient` (`apps.server_name`). */
export const layerFromResourceClient: Layer.Layer<OriginStore, never, ResourceClient.ResourceClient> = Layer.effect(
  OriginStore,
  Effect.gen(function* () {
    const client = yield* ResourceClient.ResourceClient
    return yield* make({ appsServerName: Effect.map(client.config, (config) => config.apps.serverName) })
  })
)
