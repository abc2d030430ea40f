/**
 * Work a connection does when an event arrives (a catalog refresh on `notifications/tools/list_changed`,
 * a batch of resource changes, the crash watch, a host's answer to a server request), without a fiber
 * that waits for the event: a fiber runs only while there is work. A waiting fiber keeps its stack and
 * context for the life of the connection (a few KiB each); with many servers those were most of what a
 * connection cost beyond the SDK's client. The runtime is the connection set's, shared by every
 * connection, so that a connection keeps no copy of its own.
 */
import { Cause, Effect, Exit, Fiber, FiberId, Runtime } from "effect"

/** The fibers a connection runs on demand; {@link Background.stop} interrupts them when it closes. */
export class Background {
  private readonly fibers = new Set<Fiber.RuntimeFiber<unknown, unknown>>()
  private stopped = false
  private readonly forkOn: <A, E>(effect: Effect.Effect<A, E>) => Fiber.RuntimeFiber<A, E>

  constructor(runtime: Runtime.Runtime<never>) {
    this.forkOn = Runtime.runFork(runtime)
  }

  /** Starts `effect` now (nothing once stopped); it is interrupted by {@link stop}. */
  fork<A, E>(effect: Effect.Effect<A, E>): Fiber.RuntimeFiber<A, E> | undefined {
    if (this.stopped) return undefined
    const fiber = this.forkOn(effect)
    this.fibers.add(fiber)
    fiber.addObserver(() => {
      this.fibers.delete(fiber)
    })
    return fiber
  }

  /** {@link fork} for work nobody waits on. */
  readonly run = (effect: Effect.Effect<void>): void => {
    this.fork(effect)
  }

  /** {@link fork} as a promise (rejected with the failure, or the interruption, as `Runtime.runPromise` does). */
  promise<A>(effect: Effect.Effect<A, Error>): Promise<A> {
    return new Promise((resolve, reject) => {
      const fiber = this.fork(effect)
      if (fiber === undefined) return reject(Runtime.makeFiberFailure(Cause.interrupt(FiberId.none)))
      fiber.addObserver((exit) => {
        if (Exit.isSuccess(exit)) resolve(exit.value)
        else reject(Runtime.makeFiberFailure(exit.cause))
      })
    })
  }

  /** Stops: nothing starts any more, and what runs is interrupted (and awaited). */
  readonly stop: Effect.Effect<void> = Effect.suspend(() => {
    this.stopped = true
    const running = [...this.fibers]
    this.fibers.clear()
    return Fiber.interruptAll(running)
  })
}

/** An event without a payload; one fired before anybody listens is kept (once) until someone does. */
export class Signal {
  private listener: (() => void) | undefined = undefined
  private pending = false

  fire(): void {
    if (this.listener === undefined) this.pending = true
    else this.listener()
  }

  /** Sets the one listener (replacing the previous one); a pending event reaches it at once. */
  listen(listener: () => void): void {
    this.listener = listener
    if (this.pending) {
      this.pending = false
      listener()
    }
  }
}

/**
 * The effect of `work()` on every call of the returned trigger, one run at a time on `background`:
 * triggers during a run make exactly one more run after it (events are coalesced, none is lost).
 * A run starts after the fiber first yields, so that the triggers of one synchronous burst (every
 * notification of a chunk a transport read) are one run, not one each (a fiber forked from plain code
 * runs at once, up to its first yield). Nothing is built before the first trigger: most connections
 * never see the event.
 */
export const serially = (background: Background, work: () => Effect.Effect<void>): (() => void) => {
  let running = false
  let again = false
  const start = (): void => {
    running = true
    again = false
    const fiber = background.fork(Effect.zipRight(Effect.yieldNow(), Effect.suspend(work)))
    if (fiber === undefined) return
    fiber.addObserver(() => {
      running = false
      if (again) start()
    })
  }
  return () => {
    if (running) again = true
    else start()
  }
}
