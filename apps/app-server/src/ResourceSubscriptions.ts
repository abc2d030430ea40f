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
 *
 * Where changes are detected is this module's to say: on one app-server, for every loaded thread
 * (`layer`); on a cluster, for the threads whose owner this instance is (`layerOnOwner`: the thread's
 * entity calls `detect` when it starts here and `release` when it stops), so that one instance
 * subscribes on the wire and journals each change, and the other instances tell their connections of
 * the changes they read from the records (`ThreadState.notificationOf`). Every loaded thread keeps its
 * subscriptions as its records say (a `ResourceChanges.Replayer` fed each record), so that detection
 * starts from them wherever and whenever the thread's owner moves.
 */
import type { ThreadEvent } from "@mcp-resources/protocol"
import { ResourceClient } from "@mcp-resources/resource-client"
import { ResourceChanges } from "@mcp-resources/tool-handlers"
import { Context, Effect, Exit, Layer, Scope } from "effect"
import { Connections } from "./Connections.js"

/** Records a thread event of the subscriptions (the caller's thread, through `Threads.record`). */
export type Record = (event: ThreadEvent.ThreadEvent) => Effect.Effect<void, { readonly message: string }>

/** The operations on the threads' subscriptions. */
export interface Service {
  /**
   * A thread was started or loaded: `held` its records so far (fed each later one by `observe`).
   * Detecting its changes here (every thread of `layer`, an ephemeral one of `layerOnOwner`), its
   * tracker claims the subscriptions they hold, starts with their pending changes, and subscribes on
   * the wire in the background. `holders` is the thread's live set of connections (told of changes);
   * `record` stores the thread's pending changes and their hand-overs.
   */
  readonly open: (
    threadId: string,
    holders: ReadonlySet<number>,
    held: ResourceChanges.Replayer,
    record: Record,
    options: { readonly ephemeral: boolean }
  ) => Effect.Effect<void>
  /** A record of the loaded thread was applied (appended here or read from the store), in the thread's order. */
  readonly observe: (threadId: string, event: ThreadEvent.ThreadEvent) => void
  /**
   * This instance is the thread's owner now (`layerOnOwner`): it detects the thread's changes, from the
   * subscriptions its records hold. `holding` is told whenever the thread comes to hold subscriptions or
   * holds none any more (the owner keeps the thread's entity alive while it holds some).
   */
  readonly detect: (threadId: string, holding: (held: boolean) => Effect.Effect<void>) => Effect.Effect<void>
  /** This instance is no longer the thread's owner: its wire subscriptions end; its records keep them. */
  readonly release: (threadId: string) => Effect.Effect<void>
  /**
   * The thread was unloaded or deleted: its subscriptions end (an unloaded one's come back at the next
   * load). A deleted thread's owner holds none any more (`holding(false)`).
   */
  readonly close: (threadId: string, options?: { readonly deleted: boolean }) => Effect.Effect<void>
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

/** A loaded thread: its subscriptions as its records say, and its tracker while its changes are detected here. */
interface Watched {
  readonly threadId: string
  readonly holders: ReadonlySet<number>
  readonly record: Record
  /** Fed every record while the thread's detection may move (`layerOnOwner`); undefined on `layer`. */
  readonly held: ResourceChanges.Replayer | undefined
  followed: ResourceChanges.Followed | undefined
  /** What `holding` was last told. */
  holds: boolean
  holding: (held: boolean) => Effect.Effect<void>
}

/** Where a thread's changes are detected: at every loaded thread, or at the owner's. */
type Placement = "everyLoaded" | "owner"

const notHolding = () => Effect.void

interface Held {
  readonly scope: Scope.CloseableScope
  readonly set: ResourceClient.ConnectionSet
}

/** Builds the service: holds the latest set and forwards the resource client's updates. */
export const make = (placement: Placement) =>
  Effect.gen(function* () {
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
          if (watched.followed === undefined) continue
          const dropped = yield* watched.followed.tracker.resubscribe(held.set)
          if (dropped.length > 0)
            yield* Effect.logInfo("subscriptions the new set does not take").pipe(
              Effect.annotateLogs({ threadId, dropped: dropped.length })
            )
          yield* settled(watched)
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

    /**
     * Tells `holding` when the thread came to hold subscriptions or holds none any more: by its tracker
     * or by its records (a subscription the wire lost for a moment, while a server starts or the set
     * moves, is still held: the entity stays alive for the next owner).
     */
    const settled = (watched: Watched): Effect.Effect<void> =>
      watched.followed === undefined
        ? Effect.void
        : Effect.flatMap(watched.followed.tracker.subscriptions, (subscriptions) => {
            const holds = subscriptions.length > 0 || (watched.held?.result().length ?? 0) > 0
            if (holds === watched.holds) return Effect.void
            watched.holds = holds
            return watched.holding(holds)
          })

    /** Detection of the thread's changes starts here, from `initial` and `pending`. */
    const start = (watched: Watched, restored: ResourceChanges.Replayer) =>
      Effect.gen(function* () {
        const initial = restored.result()
        const tracker = yield* ResourceChanges.make(held.set, {
          initial,
          pending: restored.pending(),
          journal: journal(watched.threadId, watched.record),
          journalEvery: placement === "owner"
        })
        const threadId = watched.threadId
        watched.followed = {
          tracker,
          onChange: (change) => connections.notify(watched.holders, "mcp/resource/changed", { threadId, ...change })
        }
        if (initial.length === 0) return yield* settled(watched)
        yield* Effect.logInfo("restoring resource subscriptions").pipe(
          Effect.annotateLogs({ threadId, subscriptions: initial.length })
        )
        // in the background: a server still starting does not hold up the thread's load
        yield* background(
          moving
            .withPermits(1)(Effect.suspend(() => tracker.resubscribe(held.set)))
            .pipe(Effect.zipRight(Effect.suspend(() => settled(watched))))
        )
      })

    const open: Service["open"] = (threadId, holders, restored, record, options) =>
      Effect.suspend(() => {
        const detectHere = placement === "everyLoaded" || options.ephemeral
        const watched: Watched = {
          threadId,
          holders,
          record,
          held: detectHere ? undefined : restored,
          followed: undefined,
          holds: false,
          holding: notHolding
        }
        threads.set(threadId, watched)
        return detectHere ? start(watched, restored) : Effect.void
      })

    const observe: Service["observe"] = (threadId, event) => {
      threads.get(threadId)?.held?.add(event)
    }

    const detect: Service["detect"] = (threadId, holding) =>
      Effect.suspend(() => {
        const watched = threads.get(threadId)
        if (watched === undefined || watched.held === undefined) return Effect.void
        watched.holding = holding
        if (watched.followed !== undefined) return settled(watched)
        return start(watched, watched.held)
      })

    const release: Service["release"] = (threadId) =>
      Effect.suspend(() => {
        const watched = threads.get(threadId)
        if (watched === undefined || watched.held === undefined || watched.followed === undefined) return Effect.void
        const tracker = watched.followed.tracker
        watched.followed = undefined
        watched.holds = false
        watched.holding = notHolding
        return tracker.close
      })

    const close: Service["close"] = (threadId, options) =>
      Effect.suspend(() => {
        const watched = threads.get(threadId)
        threads.delete(threadId)
        if (watched?.followed === undefined) return Effect.void
        // an unloaded thread (also at a stop) keeps its entity alive for the next owner; a deleted one does not
        const ended = watched.followed.tracker.close
        return watched.holds && options?.deleted === true ? Effect.zipRight(ended, watched.holding(false)) : ended
      })

    /** `use` of the thread's tracker where its changes are detected (else `orElse`), then `holding` told of a change. */
    const withTracker = <A, E = never>(
      threadId: string,
      orElse: A,
      use: (tracker: ResourceChanges.Tracker) => Effect.Effect<A, E>
    ): Effect.Effect<A, E> =>
      Effect.suspend(() => {
        const watched = threads.get(threadId)
        return watched?.followed === undefined
          ? Effect.succeed(orElse)
          : Effect.tap(use(watched.followed.tracker), () => settled(watched))
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

    /** The trackers of the threads whose changes are detected here. */
    function* following(): Generator<ResourceChanges.Followed> {
      for (const watched of threads.values()) if (watched.followed !== undefined) yield watched.followed
    }

    const updates = yield* client.updates
    yield* Effect.forkScoped(ResourceChanges.followAll(updates, () => following()))

    return ResourceSubscriptions.of({
      open,
      observe,
      detect,
      release,
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

/** The ResourceSubscriptions layer of one app-server: every loaded thread's changes are detected here. */
export const layer = Layer.scoped(ResourceSubscriptions, make("everyLoaded"))

/**
 * The ResourceSubscriptions layer of a clustered app-server: a persistent thread's changes are detected
 * by its owner only (`detect`/`release`, Cluster.ts); an ephemeral thread's here, where it lives.
 */
export const layerOnOwner = Layer.scoped(ResourceSubscriptions, make("owner"))
