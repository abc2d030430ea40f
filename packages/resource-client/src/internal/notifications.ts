/**
 * The resource change notifications of one connection (`notifications/resources/list_changed`,
 * `notifications/resources/updated`), held in a bounded, coalescing queue: a change merges with a
 * pending one for the same target, so a flood costs one pending entry per distinct uri, never a
 * backlog. Past `maxPendingUris` distinct uris the pending uris merge into "every resource changed".
 * Nothing is dropped: a merged change is always covered by a broader one.
 */
/** One notification, as the SDK delivered it. */
export type Change = { readonly _tag: "listChanged" } | { readonly _tag: "updated"; readonly uri: string }

/** What changed since the last {@link ChangeQueue.poll}. */
export interface Batch {
  /** A `list_changed` arrived. */
  readonly listChanged: boolean
  /** Uris of `resources/updated`, each once. */
  readonly uris: ReadonlyArray<string>
  /** More distinct uris arrived than the queue holds: treat every resource as changed. */
  readonly everything: boolean
  /** Notifications merged into this batch. */
  readonly received: number
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
  /** The consumer, told of every offer. */
  private wake: (() => void) | undefined = undefined
  private closed = false

  constructor(readonly maxPendingUris: number = defaultMaxPendingUris) {}

  /** Adds a change (never blocks, never drops). */
  offer(change: Change): void {
    if (this.closed) return
    this.received += 1
    if (change._tag === "listChanged") this.listChanged = true
    else if (!this.everything) {
      this.uris ??= new Set()
      this.uris.add(change.uri)
      if (this.uris.size > this.maxPendingUris) {
        this.everything = true
        this.uris = undefined
      }
    }
    this.wake?.()
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
      received: this.received
    }
    this.listChanged = false
    this.uris = undefined
    this.everything = false
    this.received = 0
    return batch
  }
}
