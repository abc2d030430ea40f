/**
 * Per-thread ordering (app-server-protocol.md section 2): `exclusive` requests (turn/start,
 * thread/rollback, thread/compact, thread/delete) wait for every earlier request of the thread; a
 * `call` (tool/call) waits until the earlier requests reached their start point, then lets the next one
 * go once its started item is recorded. Tickets are taken synchronously, in arrival order.
 *
 * A `call` reaches its start point when its started item is recorded: the thread's state says so
 * ({@link reached}, ThreadState.record) through the {@link StartPoint} the dispatcher gives the body of
 * every ordered request; nothing else releases a ticket early.
 *
 * {@link ThreadQueues} owns every queue: one exists only while a request of its thread is in flight,
 * so ids that name no thread (or threads long idle) hold no memory.
 */
import { Context, Deferred, Effect, Exit, FiberId, Option } from "effect"
import type { Ordering, Ticket } from "../Method.js"

/** A ticket plus the completion the server signals when the request ends. */
export interface QueueTicket extends Ticket {
  readonly done: Effect.Effect<void>
}

/** The start point of the request whose body runs (the dispatcher provides it to ordered requests). */
export class StartPoint extends Context.Tag("@mcp-resources/app-server/StartPoint")<
  StartPoint,
  { readonly reached: Effect.Effect<void> }
>() {}

/** The running request reached its start point: later requests of its thread may start (outside an ordered request: nothing). */
export const reached: Effect.Effect<void> = Effect.flatMap(Effect.serviceOption(StartPoint), (point) =>
  Option.isSome(point) ? point.value.reached : Effect.void
)

/** Runs an ordered request's body with its ticket's start point. */
export const withStartPoint = <A, E, R>(ticket: Ticket, body: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.provideService(body, StartPoint, { reached: ticket.release })

/** A ticket that never waits (requests that are not ordered on a thread). */
export const free: QueueTicket = { ready: Effect.void, release: Effect.void, done: Effect.void }

const open = (): Deferred.Deferred<void> => Deferred.unsafeMake<void>(FiberId.none)
const complete = (d: Deferred.Deferred<void>): Effect.Effect<void> => Effect.asVoid(Deferred.done(d, Exit.void))

/** The queue of one thread; `onIdle` runs when its last request ended. */
export class ThreadQueue {
  private gate: Deferred.Deferred<void> | undefined
  private readonly inflight = new Set<Deferred.Deferred<void>>()

  constructor(private readonly onIdle: () => void = () => {}) {}

  /** The number of requests that took a ticket and have not ended. */
  get size(): number {
    return this.inflight.size
  }

  /** Takes the next ticket (synchronous: call it in arrival order). */
  enter(kind: "exclusive" | "call"): QueueTicket {
    const done = open()
    const end = () => {
      this.inflight.delete(done)
      if (this.inflight.size === 0) this.onIdle()
    }
    if (kind === "exclusive") {
      const waits = [...this.inflight]
      if (this.gate !== undefined) waits.push(this.gate)
      this.gate = done
      this.inflight.add(done)
      return {
        ready: Effect.forEach(waits, Deferred.await, { discard: true }),
        release: Effect.void,
        done: Effect.suspend(() => {
          end()
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
        end()
        return Effect.zipRight(complete(started), complete(done))
      })
    }
  }
}

/**
 * The queues of every thread, keyed by thread id. A queue is created by the first request of its
 * thread and dropped when its last request ends: every earlier gate has then completed, so a fresh
 * queue orders the next request exactly as the old one would.
 */
export class ThreadQueues {
  private readonly queues = new Map<string, ThreadQueue>()

  /** The number of threads with a request in flight. */
  get size(): number {
    return this.queues.size
  }

  /** Takes the request's ticket on its thread's queue (synchronous: call it in arrival order). */
  enter(threadId: string | undefined, ordering: Ordering): QueueTicket {
    if (threadId === undefined || ordering === "none") return free
    let queue = this.queues.get(threadId)
    if (queue === undefined) {
      const created: ThreadQueue = new ThreadQueue(() => {
        if (this.queues.get(threadId) === created) this.queues.delete(threadId)
      })
      queue = created
      this.queues.set(threadId, queue)
    }
    return queue.enter(ordering)
  }
}
