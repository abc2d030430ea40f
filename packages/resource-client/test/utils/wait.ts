import { Clock, Effect, Queue } from "effect"
import type { ResourceClient } from "../../src/index.js"

/** `event`, or a failure naming `what` once `millis` pass on the real clock (so it holds under TestClock too). */
export const within = <A>(event: Promise<A>, what: string, millis = 10_000): Promise<A> => {
  let timer: ReturnType<typeof setTimeout> | undefined
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${millis} ms waiting for ${what}`)), millis)
  })
  return Promise.race([event, timeout]).finally(() => clearTimeout(timer))
}

/** How a promise ended: `resolved`, or the rejection as `{name}: {message}`. */
export const outcome = (promise: Promise<unknown>): Promise<string> =>
  promise.then(
    () => "resolved",
    (error: unknown) => (error instanceof Error ? `${error.name}: ${error.message}` : String(error))
  )

/** A server's status as the client gives it now. */
export const statusOf = (client: ResourceClient.Service, name: string) =>
  Effect.map(client.servers, (servers) => servers.find((s) => s.name === name)!)

/**
 * Awaits the server's status until `done` holds: the current one, then each change the client
 * announces (`statusChanges`); at most 20 s on the real clock (so it holds under a TestClock that
 * stands still), failing with the status last seen.
 */
export const awaitStatus = (
  client: ResourceClient.Service,
  name: string,
  done: (status: ResourceClient.ServerStatus) => boolean
) => {
  let last: ResourceClient.ServerStatus | undefined
  return Effect.scoped(
    Effect.gen(function* () {
      const changes = yield* client.statusChanges
      last = yield* statusOf(client, name)
      if (done(last)) return last
      for (;;) {
        const changed = yield* Queue.take(changes)
        if (changed.name !== name) continue
        last = changed
        if (done(changed)) return changed
      }
    })
  ).pipe(
    Effect.timeoutFail({
      duration: "20 seconds",
      onTimeout: () => new Error(`${name}: status not reached; last seen ${JSON.stringify(last)}`)
    }),
    Effect.withClock(Clock.make()),
    Effect.orDie
  )
}

/**
 * Runs `trigger` and awaits the first update of `client.updates` that `wanted` accepts; at most 20 s
 * on the real clock. A server's notifications are handled in order, and the cached answers they make
 * stale are dropped before their update is published: once it is here, the cache knows.
 */
export const awaitUpdate = <E, R>(
  client: ResourceClient.Service,
  wanted: (update: ResourceClient.ResourceUpdate) => boolean,
  trigger: Effect.Effect<unknown, E, R>
) =>
  Effect.scoped(
    Effect.gen(function* () {
      const updates = yield* client.updates
      yield* trigger
      for (;;) {
        const update = yield* Queue.take(updates)
        if (wanted(update)) return update
      }
    })
  ).pipe(
    Effect.timeoutFail({ duration: "20 seconds", onTimeout: () => new Error("the awaited update did not come") }),
    Effect.withClock(Clock.make()),
    Effect.orDie
  )

/** The `list_changed` update of `server`'s resource list. */
export const listChangedOf =
  (server: string) =>
  (update: ResourceClient.ResourceUpdate): boolean =>
    update._tag === "listChanged" && update.server === server && update.list === "resources"

/** A count of events (requests a test server answered, say) whose growth can be awaited. */
export class Counter {
  value = 0
  private readonly waiters = new Set<() => void>()

  /** Counts one event. */
  add(): void {
    this.value += 1
    for (const waiter of [...this.waiters]) waiter()
  }

  /** Resolves once the count exceeds `count`; rejects after 20 s on the real clock. */
  exceeds(count: number): Promise<void> {
    return within(
      new Promise<void>((resolve) => {
        if (this.value > count) return resolve()
        const waiter = () => {
          if (this.value <= count) return
          this.waiters.delete(waiter)
          resolve()
        }
        this.waiters.add(waiter)
      }),
      `more than ${count} events`,
      20_000
    )
  }
}
