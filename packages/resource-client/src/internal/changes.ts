/**
 * What happens on a resource change: the one path from a server's change to the subscribers of the
 * resource client's updates (docs/DEVELOPING.md, "What happens on a resource change").
 *
 * 1. **Sources.** A connection's changes come from its notification gate (`notificationGate.ts`
 *    offers each `notifications/resources/updated` and `.../list_changed` to the connection's
 *    {@link ChangeQueue} as it arrives, before the SDK: flood protection) and from any further
 *    {@link Source}, armed with the same queue, which offers to it on events (a uri becoming
 *    watched, a stream dropping) and keeps no fiber otherwise: change detection (`detection.ts`:
 *    polling for servers that never push, the subscription stream's reopening) is one. A polled
 *    change carries the body's new digest and size; the queue remembers which uris the server
 *    pushed, so that detection can tell a server that stays silent.
 * 2. **Coalesced once.** The queue is bounded and coalescing: a change merges with a pending one for
 *    the same target, so a flood costs one pending entry per distinct uri, never a backlog; past
 *    `maxPendingUris` distinct uris the pending uris merge into "every resource changed". Nothing is
 *    dropped: a merged change is always covered by a broader one. One run at a time per connection
 *    takes what is pending as one {@link Batch}.
 * 3. **The cache.** The batch drops the cached answers it makes stale (`Cache.invalidateBatch`: the
 *    cache owns what a change drops), in one pass.
 * 4. **Published.** The batch becomes {@link ResourceUpdate}s (one per list on `list_changed`; an
 *    `updated` only for a uri a subscription holds: a flood of arbitrary uris gives the subscribers no
 *    work) and is published to every subscriber of `ResourceClient.updates` — the threads' trackers
 *    (`tool-handlers`' `ResourceChanges.followAll`), resource search, `mcp-resources watch`.
 */
import { Effect, PubSub, type Queue, type Scope } from "effect"
import type { ResourceUpdate } from "./types.js"
import * as Cache from "./cache.js"
import { type Background, serially } from "./onDemand.js"

/** The SHA-256 (hex) and byte size of a resource's new body, as a poll found it. */
export interface Polled {
  readonly digest: string
  readonly size: number
}

/**
 * One change of one server: a list changed, or one resource (from a notification, or any other
 * {@link Source}; a poll says what it found in `polled`).
 */
export type Change =
  | { readonly _tag: "listChanged" }
  | { readonly _tag: "updated"; readonly uri: string; readonly polled?: Polled }

/** What changed since the last {@link ChangeQueue.poll}: what the cache drops by, and how many notifications. */
export interface Batch extends Cache.Changed {
  /** Notifications merged into this batch. */
  readonly received: number
  /** The uris whose latest change was a poll's, with what it found (absent when none was). */
  readonly polled?: ReadonlyMap<string, Polled>
}

/** Distinct pending uris held before they merge into "every resource changed". */
export const defaultMaxPendingUris = 1024

/** A bounded, coalescing queue of changes with one consumer, told of every offer. */
export class ChangeQueue {
  private listChanged = false
  /** The pending uris (made at the first `updated`). */
  private uris: Set<string> | undefined = undefined
  private everything = false
  private received = 0
  /** What polls found for pending uris (made at the first polled change). */
  private polled: Map<string, Polled> | undefined = undefined
  /** The uris the server pushed an update for since the last {@link takePushed} (bounded like the pending uris). */
  private pushed: Set<string> | undefined = undefined
  private pushedEverything = false
  /** The consumer, told of every offer. */
  private wake: (() => void) | undefined = undefined
  private closed = false

  constructor(readonly maxPendingUris: number = defaultMaxPendingUris) {}

  /** Adds a change (never blocks, never drops). */
  offer(change: Change): void {
    if (this.closed) return
    this.received += 1
    if (change._tag === "listChanged") this.listChanged = true
    else {
      if (change.polled === undefined) this.notePushed(change.uri)
      if (!this.everything) {
        this.uris ??= new Set()
        this.uris.add(change.uri)
        if (change.polled !== undefined) {
          this.polled ??= new Map()
          this.polled.set(change.uri, change.polled)
        } else this.polled?.delete(change.uri)
        if (this.uris.size > this.maxPendingUris) {
          this.everything = true
          this.uris = undefined
          this.polled = undefined
        }
      }
    }
    this.wake?.()
  }

  private notePushed(uri: string): void {
    if (this.pushedEverything) return
    this.pushed ??= new Set()
    this.pushed.add(uri)
    if (this.pushed.size > this.maxPendingUris) {
      this.pushedEverything = true
      this.pushed = undefined
    }
  }

  /** Whether the server pushed an update of `uri` since the last call (which forgets every push). */
  takePushed(): (uri: string) => boolean {
    const everything = this.pushedEverything
    const pushed = this.pushed
    this.pushedEverything = false
    this.pushed = undefined
    return (uri) => everything || (pushed?.has(uri) ?? false)
  }

  /** Ends the queue: nothing is offered or announced any more. */
  shutdown(): void {
    this.closed = true
    this.wake = undefined
  }

  /** Sets the consumer's listener, called after every offer (and at once when changes are pending). */
  listen(listener: () => void): void {
    this.wake = listener
    if (this.received > 0) listener()
  }

  /** Takes everything pending as one batch, or nothing when no change arrived since the last poll. */
  poll(): Batch | undefined {
    return this.received > 0 ? this.drain() : undefined
  }

  private drain(): Batch {
    const batch: Batch = {
      listChanged: this.listChanged,
      uris: this.uris === undefined ? [] : [...this.uris],
      everything: this.everything,
      received: this.received,
      ...(this.polled === undefined || this.polled.size === 0 ? {} : { polled: this.polled })
    }
    this.listChanged = false
    this.uris = undefined
    this.polled = undefined
    this.everything = false
    this.received = 0
    return batch
  }
}

/**
 * A source of one connection's changes besides its notifications (change detection's is one): armed
 * once when the connection is followed, it works on events only (a uri becoming watched, a stream
 * dropping), on the connection's background, and offers what it finds to the connection's queue. A
 * connection nobody watches keeps no fiber for it: a waiting fiber per connection doubled what a
 * connection costs (BENCHMARKS.md, scenario 12, "memory per connection").
 */
export type Source = (armed: Armed) => void

/** What a {@link Source} is armed with, for one connection. */
export interface Armed {
  /** Adds a change to the connection's queue (never blocks). */
  readonly offer: (change: Change) => void
  /** Where the source runs its work (stopped when the connection closes). */
  readonly background: Background
  /** The uris held on the server. */
  readonly watched: Watched
}

/** One connection whose changes are followed. */
export interface Target {
  readonly server: string
  /** The connection's queue (its notification gate offers to it). */
  readonly queue: ChangeQueue
  /** Where the connection runs work on demand (stopped when it closes). */
  readonly background: Background
  /** The uris subscriptions hold on the server (only their updates have takers). */
  readonly subscriptions: Watched
}

/** The uris subscriptions (or polling watches) hold on one server. */
export interface Watched {
  readonly holds: (uri: string) => boolean
  readonly uris: () => ReadonlyArray<string>
  /**
   * Sets the one listener told whenever the held set goes from empty to holding a uri (at once when
   * it holds one now); a later call replaces it (a reconnection's source replaces the old one's).
   */
  readonly onWatching: (listener: () => void) => void
}

/** The change path of one resource client. */
export interface Path {
  /** Follows `target`'s changes (its queue, and `sources` armed to offer to it) until the connection closes. */
  readonly follow: (target: Target, sources?: ReadonlyArray<Source>) => void
  /** Every update published from now on, until the scope closes. */
  readonly updates: Effect.Effect<Queue.Dequeue<ResourceUpdate>, never, Scope.Scope>
}

/** The updates of one batch of `server`'s changes: the lists, and the uris held by a subscription (every held uri on an overflow). */
export const updatesOf = (
  server: string,
  batch: Batch,
  subscriptions: Target["subscriptions"]
): ReadonlyArray<ResourceUpdate> => {
  const out: Array<ResourceUpdate> = []
  if (batch.listChanged) {
    out.push({ _tag: "listChanged", server, list: "resources" }, { _tag: "listChanged", server, list: "templates" })
  }
  if (batch.everything) {
    for (const uri of subscriptions.uris()) out.push({ _tag: "updated", server, uri })
  } else {
    for (const uri of batch.uris) {
      if (!subscriptions.holds(uri)) continue
      const polled = batch.polled?.get(uri)
      out.push(
        polled === undefined
          ? { _tag: "updated", server, uri }
          : { _tag: "updated", server, uri, digest: polled.digest, size: polled.size }
      )
    }
  }
  return out
}

/** Makes the path over `cache`; closing the scope ends every subscriber's queue. */
export const make = (cache: Cache.ResultCache): Effect.Effect<Path, never, Scope.Scope> =>
  Effect.map(Effect.acquireRelease(PubSub.unbounded<ResourceUpdate>(), PubSub.shutdown), (published) => ({
    follow: ({ server, queue, background, subscriptions }, sources = []) => {
      const offer = (change: Change): void => queue.offer(change)
      for (const source of sources) source({ offer, background, watched: subscriptions })
      queue.listen(
        serially(background, () => {
          const batch = queue.poll()
          if (batch === undefined) return Effect.void
          Cache.invalidateBatch(cache, server, batch)
          const out = updatesOf(server, batch, subscriptions)
          return out.length === 0 ? Effect.void : PubSub.publishAll(published, out)
        })
      )
    },
    updates: PubSub.subscribe(published)
  }))
