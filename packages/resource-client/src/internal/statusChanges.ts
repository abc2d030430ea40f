/**
 * What happens when a server's status changes: every change of a handle's state (`server.ts`, through
 * `StartOptions.onStateChange`) and every published set (a start, a reload, a reconnect) asks this
 * module to compare the latest set's statuses with those last announced; each server whose status
 * (any field of `mcpServer/list`'s entry from the resource client) differs is published once to every
 * subscriber of `ResourceClient.statusChanges` (the app-server's `mcpServer/statusChanged`). A state
 * change that leaves the status as it was (a refreshed tool catalog) announces nothing; a server of an
 * older set is not announced.
 */
import { Effect, PubSub, type Queue, type Scope } from "effect"
import type { ServerStatus } from "./types.js"

/** The announcer of one resource client. */
export interface StatusChanges {
  /** Compares the statuses of `servers` (the latest set's, or none while no set is open) with those announced, and publishes what changed. */
  readonly announce: (servers: (() => ReadonlyArray<ServerStatus>) | undefined) => void
  /** A queue of every status change from now on, until the scope closes. */
  readonly subscribe: Effect.Effect<Queue.Dequeue<ServerStatus>, never, Scope.Scope>
}

/** Makes the announcer; its hub ends with the scope. */
export const make: Effect.Effect<StatusChanges, never, Scope.Scope> = Effect.gen(function* () {
  const hub = yield* Effect.acquireRelease(PubSub.unbounded<ServerStatus>(), PubSub.shutdown)
  // the last status announced per server, as its JSON (statuses are small flat records)
  const announced = new Map<string, string>()
  return {
    announce: (servers) => {
      if (servers === undefined) return
      for (const status of servers()) {
        const key = JSON.stringify(status)
        if (announced.get(status.name) === key) continue
        announced.set(status.name, key)
        hub.unsafeOffer(status)
      }
    },
    subscribe: PubSub.subscribe(hub)
  }
})
