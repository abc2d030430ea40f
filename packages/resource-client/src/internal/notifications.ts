/**
 * The resource change notifications of one connection (`notifications/resources/list_changed`,
 * `notifications/resources/updated`), held in a bounded, coalescing queue: a change merges with a
 * pending one for the same target, so a flood costs one pending entry per distinct uri, never a
 * backlog. Past `maxPendingUris` distinct uris the pending uris merge into "every resource changed".
 * Nothing is dropped: a merged change is always covered by a broader one.
 */
import { Effect } from "effect"

/** One notification, as the SDK delivered it. */
export type Change = { readonly _tag: "listChanged" } | { readonly _tag: "updated"; readonly uri: string }

/** What changed since the last {@link ChangeQueue.take}. */
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

/** A bounded, coalescing queue of changes with one consumer. */
export class ChangeQueue {
  private listChanged = false
  private uris = new Set<string>()
  private everything = false
  private received = 0
  private wake: (() => void) | undefined = undefined
  private closed = false

  constructor(readonly maxPendingUris: number = defaultMaxPendingUris) {}

  /** Adds a change (never blocks, never drops). */
  offer(change: Change): void {
    if (this.closed) return
    this.received += 1
    if (change._tag === "listChanged") this.listChanged = true
    else if (!this.everything) {
      this.uris.add(change.uri)
      if (this.uris.size > this.maxPendingUris) {
        this.everything = true
        this.uris.clear()
      }
    }
    const wake = this.wake
    this.wake = undefined
    wake?.()
  }

  /** Ends the queue: a waiting {@link take} never resumes (its fiber is interrupted with the connection's scope). */
  shutdown(): void {
    this.closed = true
    this.wake = undefined
  }

  /** Waits for at least one change and takes everything pending as one batch. */
  readonly take: Effect.Effect<Batch> = Effect.async<Batch>((resume) => {
    if (this.received > 0) {
      resume(Effect.succeed(this.drain()))
      return
    }
    this.wake = () => resume(Effect.succeed(this.drain()))
    return Effect.sync(() => {
      this.wake = undefined
    })
  })

  private drain(): Batch {
    const batch: Batch = {
      listChanged: this.listChanged,
      uris: [...this.uris],
      everything: this.everything,
      received: this.received
    }
    this.listChanged = false
    this.uris = new Set()
    this.everything = false
    this.received = 0
    return batch
  }
}
