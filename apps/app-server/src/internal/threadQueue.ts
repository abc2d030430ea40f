/**
 * Per-thread ordering (app-server-protocol.md section 2): `exclusive` requests (turn/start,
 * thread/rollback, thread/compact) wait for every earlier request of the thread; a `call`
 * (tool/call) waits until the earlier requests reached their start point, then lets the next one go
 * once its started item is recorded. Tickets are taken synchronously, in arrival order.
 */
import { Deferred, Effect, Exit, FiberId } from "effect"
import type { Ticket } from "../Method.js"

/** A ticket plus the completion the server signals when the request ends. */
export interface QueueTicket extends Ticket {
  readonly done: Effect.Effect<void>
}

/** A ticket that never waits (requests that are not ordered on a thread). */
export const free: QueueTicket = { ready: Effect.void, release: Effect.void, done: Effect.void }

const open = (): Deferred.Deferred<void> => Deferred.unsafeMake<void>(FiberId.none)
const complete = (d: Deferred.Deferred<void>): Effect.Effect<void> => Effect.asVoid(Deferred.done(d, Exit.void))

/** The queue of one thread. */
export class ThreadQueue {
  private gate: Deferred.Deferred<void> | undefined
  private readonly inflight = new Set<Deferred.Deferred<void>>()

  /** Takes the next ticket (synchronous: call it in arrival order). */
  enter(kind: "exclusive" | "call"): QueueTicket {
    const done = open()
    if (kind === "exclusive") {
      const waits = [...this.inflight]
      if (this.gate !== undefined) waits.push(this.gate)
      this.gate = done
      this.inflight.add(done)
      return {
        ready: Effect.forEach(waits, Deferred.await, { discard: true }),
        release: Effect.void,
        done: Effect.suspend(() => {
          this.inflight.delete(done)
          return complete(done)
        })
      }
    }
    const previous = this.gate
    const started = open()
    this.gate = started
    this.inflight.add(done)
    return {
      ready: previous === undefined ? Effect.void : Deferred.await(previous),
      release: complete(started),
      done: Effect.suspend(() => {
        this.inflight.delete(done)
        return Effect.zipRight(complete(started), complete(done))
      })
    }
  }
}
