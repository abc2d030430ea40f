/**
 * Resources that tell the model they changed (extended profile): a per-thread tracker of the resources
 * the thread read with `read_mcp_resource`, subscribed on the server (`resources/subscribe`), at most
 * {@link maxSubscriptions} (the oldest is dropped and unsubscribed). Updates are recorded as changes,
 * one per (server, uri) however many updates came, and {@link Tracker.take} hands over the changes
 * since the previous take, so that a host can put one line per changed resource into the model's next
 * input. A host gives the tracker to the tools as {@link ToolHandlers.ToolContext.resourceChanges}, and
 * feeds its trackers the resource client's updates with {@link followAll}: the last step of a resource
 * change's path (after `resource-client`'s `notificationGate.ts` and `changes.ts`). A {@link Journal}
 * stores the changes not yet handed over with the thread, and {@link replayer} gives them back at load.
 */
import type { Errors, ThreadEvent } from "@mcp-resources/protocol"
import { Clock, Effect, Option, Queue } from "effect"

/** How many resources a thread stays subscribed to; a further one drops the oldest. */
export const maxSubscriptions = 64

/**
 * Where subscriptions are made: a connection set (`ResourceClient.ConnectionSet` has both, ref-counted
 * per server; `unsupported` when the server did not declare `resources.subscribe`).
 */
export interface Subscriber {
  readonly subscribe: (
    server: string,
    uri: string
  ) => Effect.Effect<"subscribed" | "unsupported", Errors.ResourceFailure>
  readonly unsubscribe: (server: string, uri: string) => Effect.Effect<void>
}

/**
 * The body a read returned, when it was one content item: its SHA-256 (hex) and size, and whether a
 * later read can ask for a diff against it (`since`: it is text and its bytes were kept).
 */
export interface Body {
  readonly digest: string
  readonly size: number
  readonly diffAvailable: boolean
}

/** One resource the thread is subscribed to. */
export interface Subscription {
  readonly server: string
  readonly uri: string
  /** The call id of the read that last read it; null when a UI subscribed it. */
  readonly readInCallId: string | null
  /** The turn of that read; null when unknown (a UI subscription). A rollback of the turn drops it. */
  readonly turnId: string | null
  /** The body that read returned (one content item), when known. */
  readonly body?: Body
}

/**
 * A subscribed resource that changed: the latest update's time, ISO 8601 UTC, and what is known of the
 * bodies: before, the one the thread last read (null when unknown: a UI subscription, several
 * contents); after, the new one when the change came with it (a polled change), null when pushed.
 */
export interface Change {
  readonly server: string
  readonly uri: string
  readonly readInCallId: string | null
  readonly changedAt: string
  readonly sizeBefore: number | null
  readonly sizeAfter: number | null
  readonly digestBefore: string | null
  readonly digestAfter: string | null
  /** A re-read with `since: "last"` can answer with a diff (the body read before is text and was kept). */
  readonly diffAvailable: boolean
}

/** A successful read (or a UI's subscribe): the resource, and the call and turn it came in when known. */
export interface Read {
  readonly server: string
  readonly uri: string
  readonly callId?: string | null
  readonly turnId?: string | null
  /**
   * The body the read returned when it was one content item (the extended read gives it); `undefined`
   * given: unknown (several contents); absent: the read says nothing of it, and the body known stays.
   */
  readonly body?: Body | undefined
}

/** The new body of a change, when the source of the change fetched it (polling compares digests). */
export interface After {
  readonly digest?: string | undefined
  readonly size?: number | undefined
}

/** What {@link Tracker.track} did. */
export interface Tracked {
  /** `subscribed` (now or already), `unsupported` (the server offers no subscriptions: nothing claimed) or `failed`. */
  readonly status: "subscribed" | "unsupported" | "failed"
  /** The subscription as now held (when subscribed). */
  readonly subscription: Option.Option<Subscription>
  /** Subscriptions dropped to stay within {@link maxSubscriptions} (unsubscribed). */
  readonly dropped: ReadonlyArray<Subscription>
}

/** The part of a tracker the read tool uses: {@link ToolHandlers.ToolContext.resourceChanges}. */
export interface ReadWatch {
  /**
   * Called after each successful extended-profile read of a server that declares `resources.subscribe`,
   * with the URI read (a template's expanded URI).
   */
  readonly track: (read: Read) => Effect.Effect<unknown>
}

/** A thread's subscriptions and changes. */
export interface Tracker extends ReadWatch {
  /** Subscribes to the resource (once per resource; a later read makes it the newest and names its call). */
  readonly track: (read: Read) => Effect.Effect<Tracked>
  /** Ends the subscription; false when there was none. */
  readonly untrack: (server: string, uri: string) => Effect.Effect<boolean>
  /** Ends the subscriptions made in these turns (a rollback); returns them. */
  readonly dropTurns: (turnIds: ReadonlyArray<string>) => Effect.Effect<ReadonlyArray<Subscription>>
  /** Records an update of a subscribed resource (coalesced per resource); `None` when not subscribed. */
  readonly update: (server: string, uri: string, after?: After) => Effect.Effect<Option.Option<Change>>
  /** The changes since the previous take, oldest first, and forgets them. */
  readonly take: Effect.Effect<ReadonlyArray<Change>>
  /** The subscriptions, oldest first. */
  readonly subscriptions: Effect.Effect<ReadonlyArray<Subscription>>
  /**
   * Subscribes every subscription on `set` (a new connection set after a reload, or the first set
   * after a restore) and then lets the previous set's go. Those the server no longer takes are dropped
   * and returned.
   */
  readonly resubscribe: (set: Subscriber) => Effect.Effect<ReadonlyArray<Subscription>>
  /** Unsubscribes everything and forgets the changes (the thread ended). */
  readonly close: Effect.Effect<void>
}

/**
 * Where a tracker keeps its pending changes across restarts (the app-server: records of the thread).
 * Both run while the tracker holds its hand-over lock, so that the records are in the order of the
 * changes and the takes; a failure to keep one is the journal's to report (it cannot fail the update).
 */
export interface Journal {
  /** A change became pending: the first update of the resource since the previous take (later ones coalesce), or every update with `journalEvery`. */
  readonly changed: (change: Change) => Effect.Effect<void>
  /** {@link Tracker.take} handed these over (never called with none). */
  readonly taken: (changes: ReadonlyArray<Change>) => Effect.Effect<void>
}

interface Entry {
  subscription: Subscription
  /** The set the wire subscription is on; undefined until made (restored ones, before resubscribe). */
  live: Subscriber | undefined
}

const keyOf = (server: string, uri: string): string => `${server}\u0000${uri}`

/**
 * A tracker whose subscriptions are made on `set`. `initial` (for example {@link replay} of a stored
 * thread) is claimed at once and subscribed on the wire by the next {@link Tracker.resubscribe};
 * `pending` (a {@link Replayer}'s `pending()`) are the changes of those not yet handed over, and
 * `journal` keeps the changes and takes from now on.
 */
export const make = (
  set: Subscriber,
  options: {
    readonly initial?: ReadonlyArray<Subscription>
    readonly pending?: ReadonlyArray<Change>
    readonly journal?: Journal
    readonly max?: number
    /**
     * Journal every update, not only the first since a take (a clustered app-server's thread owner: the
     * other instances tell their connections of each change they read from the journal).
     */
    readonly journalEvery?: boolean
  } = {}
): Effect.Effect<Tracker> =>
  Effect.gen(function* () {
    const max = options.max ?? maxSubscriptions
    const journal = options.journal
    const journalEvery = options.journalEvery === true
    const lock = yield* Effect.makeSemaphore(1)
    // orders an update and its journal record against a take and its record
    const handover = yield* Effect.makeSemaphore(1)
    const entries = new Map<string, Entry>()
    const pending = new Map<string, Change>()
    let current = set
    for (const subscription of options.initial ?? []) {
      const key = keyOf(subscription.server, subscription.uri)
      entries.delete(key)
      entries.set(key, { subscription, live: undefined })
    }
    for (const change of options.pending ?? []) {
      const key = keyOf(change.server, change.uri)
      if (entries.has(key)) pending.set(key, change)
    }
    const release = (entry: Entry) =>
      entry.live === undefined ? Effect.void : entry.live.unsubscribe(entry.subscription.server, entry.subscription.uri)
    const remove = (key: string, entry: Entry) =>
      Effect.suspend(() => {
        entries.delete(key)
        pending.delete(key)
        return release(entry)
      })
    const subscribeOn = (target: Subscriber, subscription: Subscription) =>
      target
        .subscribe(subscription.server, subscription.uri)
        .pipe(
          Effect.catchAll((error) =>
            Effect.as(
              Effect.logWarning(
                `could not subscribe to resource ${subscription.uri} of MCP server '${subscription.server}': ${error.message}`
              ),
              "failed" as const
            )
          )
        )

    const track: Tracker["track"] = (read) =>
      lock.withPermits(1)(
        Effect.gen(function* () {
          const key = keyOf(read.server, read.uri)
          const existing = entries.get(key)
          // a read that says nothing of the body (a window further into it, a UI's subscribe) keeps the one known
          const body = Object.hasOwn(read, "body") ? read.body : existing?.subscription.body
          const subscription: Subscription = {
            server: read.server,
            uri: read.uri,
            readInCallId: read.callId ?? null,
            turnId: read.turnId ?? null,
            ...(body === undefined ? {} : { body })
          }
          if (existing?.live === current) {
            entries.delete(key)
            existing.subscription = subscription
            entries.set(key, existing)
            return { status: "subscribed", subscription: Option.some(subscription), dropped: [] } satisfies Tracked
          }
          const status = yield* subscribeOn(current, subscription)
          if (status !== "subscribed") return { status, subscription: Option.none(), dropped: [] } satisfies Tracked
          if (existing !== undefined) {
            yield* release(existing)
            entries.delete(key)
          }
          entries.set(key, { subscription, live: current })
          const dropped: Array<Subscription> = []
          for (const [oldest, entry] of entries) {
            if (entries.size <= max) break
            dropped.push(entry.subscription)
            yield* remove(oldest, entry)
          }
          return { status, subscription: Option.some(subscription), dropped } satisfies Tracked
        })
      )

    const untrack: Tracker["untrack"] = (server, uri) =>
      lock.withPermits(1)(
        Effect.suspend(() => {
          const key = keyOf(server, uri)
          const entry = entries.get(key)
          return entry === undefined ? Effect.succeed(false) : Effect.as(remove(key, entry), true)
        })
      )

    const dropTurns: Tracker["dropTurns"] = (turnIds) =>
      lock.withPermits(1)(
        Effect.gen(function* () {
          const turns = new Set(turnIds)
          const dropped: Array<Subscription> = []
          for (const [key, entry] of [...entries]) {
            if (entry.subscription.turnId === null || !turns.has(entry.subscription.turnId)) continue
            dropped.push(entry.subscription)
            yield* remove(key, entry)
          }
          return dropped
        })
      )

    const update: Tracker["update"] = (server, uri, after) =>
      handover.withPermits(1)(
        Effect.flatMap(Clock.currentTimeMillis, (now) => {
          const key = keyOf(server, uri)
          const entry = entries.get(key)
          if (entry === undefined) return Effect.succeed(Option.none())
          const body = entry.subscription.body
          const change: Change = {
            server,
            uri,
            readInCallId: entry.subscription.readInCallId,
            changedAt: new Date(now).toISOString(),
            sizeBefore: body?.size ?? null,
            sizeAfter: after?.size ?? null,
            digestBefore: body?.digest ?? null,
            digestAfter: after?.digest ?? null,
            diffAvailable: body?.diffAvailable ?? false
          }
          // the first change keeps its place (and is the one journaled); the latest update gives the time
          const first = !pending.has(key)
          pending.set(key, change)
          const some = Option.some(change)
          return (first || journalEvery) && journal !== undefined
            ? Effect.as(journal.changed(change), some)
            : Effect.succeed(some)
        })
      )

    const take: Tracker["take"] = handover.withPermits(1)(
      Effect.suspend(() => {
        const changes = [...pending.values()]
        pending.clear()
        return changes.length > 0 && journal !== undefined
          ? Effect.as(journal.taken(changes), changes)
          : Effect.succeed(changes)
      })
    )

    const resubscribe: Tracker["resubscribe"] = (target) =>
      lock.withPermits(1)(
        Effect.gen(function* () {
          current = target
          const dropped: Array<Subscription> = []
          for (const [key, entry] of [...entries]) {
            if (entry.live === target) continue
            const status = yield* subscribeOn(target, entry.subscription)
            if (status === "subscribed") {
              yield* release(entry)
              entry.live = target
            } else {
              dropped.push(entry.subscription)
              yield* remove(key, entry)
            }
          }
          return dropped
        })
      )

    const close: Tracker["close"] = lock.withPermits(1)(
      Effect.gen(function* () {
        for (const [key, entry] of [...entries]) yield* remove(key, entry)
        pending.clear()
      })
    )

    return {
      track,
      untrack,
      dropTurns,
      update,
      take,
      subscriptions: Effect.sync(() => [...entries.values()].map((entry) => entry.subscription)),
      resubscribe,
      close
    }
  })

/**
 * An update of a resource client (`ResourceClient.updates`): only `updated` ones concern trackers;
 * `digest` and `size` of the new body when its source fetched it (polling).
 */
export interface Update {
  readonly _tag: string
  readonly server: string
  readonly uri?: string
  readonly digest?: string | undefined
  readonly size?: number | undefined
}

/** A tracker {@link followAll} feeds, and what to do with each change it records (for example tell a UI). */
export interface Followed<E = never, R = never> {
  readonly tracker: Tracker
  readonly onChange: (change: Change) => Effect.Effect<void, E, R>
}

/**
 * The last step of a resource change (docs/DEVELOPING.md, "What happens on a resource change"): feeds a
 * resource client's updates (`ResourceClient.updates`: already coalesced, and `updated` only for uris a
 * subscription holds) to every tracker `followed` gives at the time, forever; a tracker subscribed to
 * the resource records the change and its `onChange` gets it. Fork it in the scope of the trackers' owner.
 */
export const followAll = <E, R>(
  updates: Queue.Dequeue<Update>,
  followed: () => Iterable<Followed<E, R>>
): Effect.Effect<never, E, R> =>
  Effect.forever(
    Effect.flatMap(Queue.take(updates), (update) => {
      const uri = update.uri
      if (update._tag !== "updated" || uri === undefined) return Effect.void
      return Effect.forEach(
        [...followed()],
        ({ tracker, onChange }) =>
          Effect.flatMap(tracker.update(update.server, uri, update), (change) =>
            Option.isSome(change) ? onChange(change.value) : Effect.void
          ),
        { discard: true }
      )
    })
  )

/**
 * {@link followAll} for one tracker; `onChange` gets each recorded change (for example to tell a UI).
 * Fork it in the thread's scope.
 */
export const follow = <E, R>(
  tracker: Tracker,
  updates: Queue.Dequeue<Update>,
  onChange: (change: Change) => Effect.Effect<void, E, R> = () => Effect.void as Effect.Effect<void, E, R>
): Effect.Effect<never, E, R> => followAll(updates, () => [{ tracker, onChange }])

/**
 * The subscriptions a stored thread holds, fed its events in order one at a time (a thread read page
 * by page): `resourceSubscribed` adds (or makes the newest), `resourceUnsubscribed` removes, a
 * rollback drops those of the turns it removes, and at most `max` are kept (the oldest go). Each gets
 * the body its resource's latest read recorded (`resourceRead` of a completed item), when one. Its
 * pending changes likewise: `resourceChanged` adds one of a held subscription, `resourceChangesTaken`
 * clears them, and a subscription that goes takes its pending change with it (as in the tracker).
 */
export interface Replayer {
  readonly add: (event: ThreadEvent.ThreadEvent) => void
  /** The subscriptions held after the events added so far, oldest first. */
  readonly result: () => ReadonlyArray<Subscription>
  /** The changes not yet handed over after the events added so far, oldest first (`make`'s `pending`). */
  readonly pending: () => ReadonlyArray<Change>
}

/** A stored pending change as a {@link Change}: what it does not say is unknown. */
export const storedChange = (stored: ThreadEvent.StoredResourceChange): Change => ({
  server: stored.server,
  uri: stored.uri,
  readInCallId: stored.readInCallId,
  changedAt: stored.changedAt,
  sizeBefore: stored.sizeBefore ?? null,
  sizeAfter: stored.sizeAfter ?? null,
  digestBefore: stored.digestBefore ?? null,
  digestAfter: stored.digestAfter ?? null,
  diffAvailable: stored.diffAvailable ?? false
})

/** A {@link Replayer} holding no subscription yet. */
export const replayer = (max: number = maxSubscriptions): Replayer => {
  const held = new Map<string, Subscription>()
  const pending = new Map<string, Change>()
  const turns: Array<string> = []
  // the body each resource's latest read returned (its completed item; undefined: several contents)
  const bodies = new Map<string, { readonly turnId: string; readonly body: Body | undefined }>()
  const drop = (key: string) => {
    held.delete(key)
    pending.delete(key)
  }
  return {
    add: (event) => {
      switch (event._tag) {
        case "itemCompleted": {
          const read = event.item.resourceRead
          if (read === undefined || event.item.status !== "completed") return
          const only = read.contents.length === 1 ? read.contents[0]! : undefined
          const key = keyOf(event.item.server, read.uri)
          bodies.delete(key)
          bodies.set(key, {
            turnId: event.turnId,
            body:
              only === undefined
                ? undefined
                : { digest: only.digest, size: only.size, diffAvailable: only.text && only.kept }
          })
          return
        }
        case "turnStarted":
          if (turns.at(-1) !== event.turnId) turns.push(event.turnId)
          return
        case "threadRolledBack": {
          const removed = new Set(turns.splice(Math.max(0, turns.length - event.numTurns)))
          for (const [key, subscription] of [...held])
            if (subscription.turnId !== null && removed.has(subscription.turnId)) drop(key)
          for (const [key, read] of [...bodies]) if (removed.has(read.turnId)) bodies.delete(key)
          return
        }
        case "resourceSubscribed": {
          const key = keyOf(event.server, event.uri)
          held.delete(key)
          held.set(key, {
            server: event.server,
            uri: event.uri,
            readInCallId: event.readInCallId,
            turnId: event.turnId
          })
          for (const oldest of held.keys()) {
            if (held.size <= max) break
            drop(oldest)
          }
          return
        }
        case "resourceUnsubscribed":
          drop(keyOf(event.server, event.uri))
          return
        case "resourceChanged": {
          const key = keyOf(event.change.server, event.change.uri)
          if (held.has(key)) pending.set(key, storedChange(event.change))
          return
        }
        case "resourceChangesTaken":
          pending.clear()
          return
        default:
          return
      }
    },
    result: () =>
      [...held.values()].map((subscription) => {
        const body = bodies.get(keyOf(subscription.server, subscription.uri))?.body
        return body === undefined ? subscription : { ...subscription, body }
      }),
    pending: () => [...pending.values()]
  }
}

/** The subscriptions a stored thread holds after all of `events` (see {@link Replayer}). */
export const replay = (
  events: ReadonlyArray<ThreadEvent.ThreadEvent>,
  max: number = maxSubscriptions
): ReadonlyArray<Subscription> => {
  const r = replayer(max)
  for (const event of events) r.add(event)
  return r.result()
}
