/**
 * Resources that tell the model they changed (docs/templates-and-changes.md): one
 * `ResourceChanges.Tracker` per loaded thread, its subscriptions made on the latest connection set
 * (held here, and moved to the new set after a reload), fed the resource client's updates by
 * `ResourceChanges.followAll`; a change a thread's tracker records is sent as `mcp/resource/changed`
 * to the thread's connections. What a thread subscribed is thread state: the handlers record it
 * (`resourceSubscribed` / `resourceUnsubscribed`), and a loaded thread subscribes again from its records.
 * So are the changes not yet handed over: the tracker's journal records the first update of a resource
 * since the previous `turn/start` (`resourceChanged`) and each hand-over (`resourceChangesTaken`), and a
 * loaded thread's tracker starts with the pending changes its records hold.
 */
import type { ThreadEvent } from "@mcp-resources/protocol"
import { ResourceClient } from "@mcp-resources/resource-client"
import { ResourceChanges } from "@mcp-resources/tool-handlers"
import { Context, Effect, Exit, Layer, Scope } from "effect"
import { Connections } from "./Connections.js"

/** Records a thread event of the subscriptions (the caller's thread, through `Threads.record`). */
export type Record = (event: ThreadEvent.ThreadEvent) => Effect.Effect<void, { readonly message: string }>

/** What a thread's records hold of its subscriptions: a `ResourceChanges.replayer` fed them. */
export interface Restored {
  /** The subscriptions (`result()`). */
  readonly subscribed: ReadonlyArray<ResourceChanges.Subscription>
  /** The changes not yet handed over (`pending()`). */
  readonly pending: ReadonlyArray<ResourceChanges.Change>
}

/** A thread with nothing to restore (a new one). */
export const nothingRestored: Restored = { subscribed: [], pending: [] }

/** The operations on the threads' subscriptions. */
export interface Service {
  /**
   * A thread was started or loaded: its tracker, claiming the subscriptions its records hold and
   * starting with their pending changes, subscribed on the wire in the background. `holders` is the
   * thread's live set of connections (told of changes); `record` stores the thread's pending changes
   * and their hand-overs.
   */
  readonly open: (
    threadId: string,
    holders: ReadonlySet<number>,
    restored: Restored,
    record: Record
  ) => Effect.Effect<void>
  /** The thread was unloaded or removed: its subscriptions end (the stored ones come back at the next load). */
  readonly close: (threadId: string) => Effect.Effect<void>
  /** These turns were rolled back: the subscriptions they made end. */
  readonly rolledBack: (threadId: string, turnIds: ReadonlyArray<string>) => Effect.Effect<void>
  /** What the read tool of a call tells: each read subscribes, recorded with the call's turn. */
  readonly watch: (threadId: string, turnId: string, record: Record) => ResourceChanges.ReadWatch
  /** `mcp/resource/subscribe`: a subscription without a call (recorded when the server takes it). */
  readonly subscribe: (
    threadId: string,
    server: string,
    uri: string,
    record: Record
  ) => Effect.Effect<"subscribed" | "unsupported" | "failed", { readonly message: string }>
  /** `mcp/resource/unsubscribe` (recorded when there was one). */
  readonly unsubscribe: (
    threadId: string,
    server: string,
    uri: string,
    record: Record
  ) => Effect.Effect<void, { readonly message: string }>
  /** The thread's changes since the previous take (`turn/start`). */
  readonly take: (threadId: string) => Effect.Effect<ReadonlyArray<ResourceChanges.Change>>
  /** Moves every thread's subscriptions to the latest set when it is a new one (after a reload). */
  readonly follow: Effect.Effect<void>
}

/** The ResourceSubscriptions tag. Layer: `layer`. */
export class ResourceSubscriptions extends Context.Tag("@mcp-resources/app-server/ResourceSubscriptions")<
  ResourceSubscriptions,
  Service
>() {}

/** A loaded thread's tracker; its changes go to the thread's connections. */
type Watched = ResourceChanges.Followed

interface Held {
  readonly scope: Scope.CloseableScope
  readonly set: ResourceClient.ConnectionSet
}

/** Builds the service: holds the latest set and forwards the resource client's updates. */
export const make = Effect.gen(function* () {
  const client = yield* ResourceClient.ResourceClient
  const connections = yield* Connections
  const scope = yield* Effect.scope
  const threads = new Map<string, Watched>()
  const moving = yield* Effect.makeSemaphore(1)

  const acquire = Effect.gen(function* () {
    const held = yield* Scope.make()
    const set = yield* Scope.extend(client.acquire, held)
    return { scope: held, set } satisfies Held
  })
  let held: Held = yield* acquire
  yield* Effect.addFinalizer(() => Scope.close(held.scope, Exit.void))

  const background = <A, E>(effect: Effect.Effect<A, E>) =>
    Effect.asVoid(Effect.forkIn(Effect.interruptible(effect), scope))

  const follow: Service["follow"] = moving.withPermits(1)(
    Effect.gen(function* () {
      const latest = yield* client.generation
      if (latest === held.set.generation) return
      const previous = held
      held = yield* acquire
      for (const [threadId, watched] of threads) {
        const dropped = yield* watched.tracker.resubscribe(held.set)
        if (dropped.length > 0)
          yield* Effect.logInfo("subscriptions the new set does not take").pipe(
            Effect.annotateLogs({ threadId, dropped: dropped.length })
          )
      }
      yield* Scope.close(previous.scope, Exit.void)
    })
  )

  /** Keeps the thread's pending changes with it; a record that fails is logged (the change is still handed over). */
  const journal = (threadId: string, record: Record): ResourceChanges.Journal => {
    const stored = (event: ThreadEvent.ThreadEvent, what: string) =>
      record(event).pipe(
        Effect.catchAll((error) =>
          Effect.logWarning(`${what} was not stored: ${error.message}`).pipe(Effect.annotateLogs({ threadId }))
        )
      )
    return {
      changed: (change) => stored({ _tag: "resourceChanged", change }, `the change of ${change.uri}`),
      taken: (changes) =>
        stored({ _tag: "resourceChangesTaken" }, `the hand-over of ${changes.length} resource changes`)
    }
  }

  const open: Service["open"] = (threadId, holders, restored, record) =>
    Effect.gen(function* () {
      const initial = restored.subscribed
      const tracker = yield* ResourceChanges.make(held.set, {
        initial,
        pending: restored.pending,
        journal: journal(threadId, record)
      })
      threads.set(threadId, {
        tracker,
        onChange: (change) => connections.notify(holders, "mcp/resource/changed", { threadId, ...change })
      })
      if (initial.length === 0) return
      yield* Effect.logInfo("restoring resource subscriptions").pipe(
        Effect.annotateLogs({ threadId, subscriptions: initial.length })
      )
      // in the background: a server still starting does not hold up the thread's load
      yield* background(moving.withPermits(1)(Effect.suspend(() => tracker.resubscribe(held.set))))
    })

  const close: Service["close"] = (threadId) =>
    Effect.suspend(() => {
      const watched = threads.get(threadId)
      threads.delete(threadId)
      return watched === undefined ? Effect.void : watched.tracker.close
    })

  const withTracker = <A, E = never>(
    threadId: string,
    orElse: A,
    use: (tracker: ResourceChanges.Tracker) => Effect.Effect<A, E>
  ): Effect.Effect<A, E> =>
    Effect.suspend(() => {
      const watched = threads.get(threadId)
      return watched === undefined ? Effect.succeed(orElse) : use(watched.tracker)
    })

  const recordTracked = (tracked: ResourceChanges.Tracked, record: Record) =>
    Effect.gen(function* () {
      for (const subscription of tracked.subscription._tag === "Some" ? [tracked.subscription.value] : []) {
        yield* record({ _tag: "resourceSubscribed", ...subscription })
      }
      for (const dropped of tracked.dropped) {
        yield* record({ _tag: "resourceUnsubscribed", server: dropped.server, uri: dropped.uri })
      }
    })

  const watch: Service["watch"] = (threadId, turnId, record) => ({
    track: (read) =>
      withTracker(threadId, undefined, (tracker) =>
        Effect.flatMap(tracker.track({ ...read, turnId }), (tracked) =>
          recordTracked(tracked, record).pipe(
            Effect.catchAll((error) =>
              Effect.logWarning(`the subscription to ${read.uri} was not stored: ${error.message}`).pipe(
                Effect.annotateLogs({ threadId })
              )
            )
          )
        )
      )
  })

  const subscribe: Service["subscribe"] = (threadId, server, uri, record) =>
    withTracker(threadId, "failed" as const, (tracker) =>
      Effect.flatMap(tracker.track({ server, uri, callId: null, turnId: null }), (tracked) =>
        Effect.as(recordTracked(tracked, record), tracked.status)
      )
    )

  const unsubscribe: Service["unsubscribe"] = (threadId, server, uri, record) =>
    withTracker(threadId, undefined, (tracker) =>
      Effect.flatMap(tracker.untrack(server, uri), (was) =>
        was ? record({ _tag: "resourceUnsubscribed", server, uri }) : Effect.void
      )
    )

  const updates = yield* client.updates
  yield* Effect.forkScoped(ResourceChanges.followAll(updates, () => threads.values()))

  return ResourceSubscriptions.of({
    open,
    close,
    rolledBack: (threadId, turnIds) =>
      turnIds.length === 0
        ? Effect.void
        : withTracker(threadId, undefined, (tracker) => Effect.asVoid(tracker.dropTurns(turnIds))),
    watch,
    subscribe,
    unsubscribe,
    take: (threadId) => withTracker(threadId, [], (tracker) => tracker.take),
    follow
  })
})

/** The ResourceSubscriptions layer. */
export const layer = Layer.scoped(ResourceSubscriptions, make)
