/**
 * What happens to learn of a server's changes ("change detection", docs/templates-and-changes.md,
 * "Detecting changes"): per connection, the mode its declaration gives, and the fallbacks.
 *
 * - `stream`: a 2026-07-28 server that declared `resources.subscribe`: the watched uris ride the
 *   connection's `subscriptions/listen` stream. A stream the server drops is reopened here with
 *   exponential backoff ({@link reopenDelayMillis}); after `[changes] stream_reopen_max` tries it is
 *   given up and the server is polled.
 * - `subscribe`: an `initialize`-era server that declared `resources.subscribe`: `resources/subscribe`.
 * - `poll`: any other server (and one that fell back): the uris threads watch are read again every
 *   `mcp_servers.NAME.poll_changes_sec` (the read's `ttlMs` as a floor), their SHA-256 compared
 *   (`Digest.ofContents`); a changed body is one change, carrying its new digest and size. At most
 *   one request per watched uri per interval, at most {@link maxPollsPerInterval} per interval per
 *   server; each interval's tick comes up to a tenth early (jitter); failed reads skip intervals
 *   (doubling, up to {@link maxSkippedIntervals}).
 * - `none`: no subscriptions and polling off (`poll_changes_sec = 0`), or no resources.
 *
 * While a server that subscribes is trusted, `[changes] verify_push_sec` polls its watched uris as
 * well: a change it did not push since the last check marks it as not pushing, and it is polled from
 * then on. What is found is one more {@link Changes.Source} of the change path (`changes.ts`).
 */
import { type Config, Digest, type Errors, Mcp } from "@mcp-resources/protocol"
import { Clock, Deferred, Effect, type Either, Queue, Random, Stream } from "effect"
import type { ServerEntry } from "../ServerEntry.js"
import type * as Changes from "./changes.js"
import { decodeResultEither } from "./request.js"
import type { ChangeDetection } from "./types.js"

/** The most watched uris read in one interval of one server; the rest wait for the next, most overdue first. */
export const maxPollsPerInterval = 64

/** Reads of one poll run at once. */
const pollConcurrency = 4

/** The most intervals skipped after failed polls (the skip doubles with each failed one). */
export const maxSkippedIntervals = 32

/** The digests remembered per connection (reads of uris nobody watches are forgotten first). */
const maxKnown = 4096

/** The delay before reopening a dropped subscription stream, try `attempt` (from 1): 0.5 s doubling, at most 30 s. */
export const reopenDelayMillis = (attempt: number): number => Math.min(500 * 2 ** (attempt - 1), 30_000)

/** A stream that stayed open this long before it dropped counts as a success: the tries start again. */
const stableStreamMillis = 60_000

/** What was last found for one uri. */
interface Known {
  readonly digest: string
  /**
   * The earliest time it may be read again: its interval (`ttlMs` when longer), less the jitter
   * allowance, after the grid time of the tick that polled it, or after a thread's read of it.
   */
  readonly dueAt: number
}

/** The change detection of one connection: the declared mode and what it fell back to. */
export class State {
  private fellBack: "notPushing" | "streamGivenUp" | undefined = undefined
  /** What reads and polls found, per uri. */
  readonly known = new Map<string, Known>()

  constructor(
    /** The mode the server's declaration gives. */
    readonly declared: ChangeDetection,
    /** `poll_changes_sec` in milliseconds (0: off). */
    readonly pollMillis: number
  ) {}

  /** The mode now: the declared one, or `poll` (`none` with polling off) once the server fell back. */
  mode(): ChangeDetection {
    if (this.fellBack === undefined) return this.declared
    return this.pollMillis > 0 ? "poll" : "none"
  }

  /** Falls back from pushing to polling; false when it already had. */
  fallBack(why: "notPushing" | "streamGivenUp"): boolean {
    if (this.fellBack !== undefined || (this.declared !== "stream" && this.declared !== "subscribe")) return false
    this.fellBack = why
    return true
  }

  /** Whether the watched uris are learnt by reading them again (a watch holds without the wire). */
  polls(): boolean {
    return this.mode() === "poll"
  }

  /** Records what a read of `uri` returned (the base a poll compares with), while polling. */
  observeRead(uri: string, result: Mcp.ReadResourceResult, now: number): void {
    if (!this.polls()) return
    this.remember(uri, Digest.ofContents(result.contents).digest, now + this.intervalOf(result))
  }

  /** The time between two reads of one uri: the poll interval, `ttlMs` when longer, less the jitter allowance. */
  intervalOf(result: Mcp.ReadResourceResult): number {
    return Math.floor(Math.max(this.pollMillis, result.ttlMs ?? 0) * 0.8)
  }

  remember(uri: string, digest: string, dueAt: number): void {
    this.known.delete(uri)
    this.known.set(uri, { digest, dueAt })
    if (this.known.size > maxKnown) {
      const oldest = this.known.keys().next()
      if (oldest.done !== true) this.known.delete(oldest.value)
    }
  }
}

/**
 * What detection uses of a connection (`connection.ts`'s `Connection` has it all; named here so that
 * this module does not import the connection, which holds a {@link State}).
 */
export interface Connection {
  readonly detection: State
  readonly requestDecoded: <A>(
    method: string,
    params: Record<string, unknown> | undefined,
    timeoutMillis: number,
    decode: (raw: unknown) => Either.Either<A, Errors.TransportError>,
    context: () => string
  ) => Effect.Effect<A, Errors.TransportError | Errors.ServerError>
  /** What the server pushed since the last check (`changes.ts`). */
  readonly resourceChanges: Pick<Changes.ChangeQueue, "takePushed">
  readonly onStreamDropped: (listener: () => void) => void
  readonly reopenStream: (timeoutMillis: number) => Effect.Effect<void, Errors.TransportError>
}

/** The state of a new connection of `entry`: its mode from what the server declared. */
export const initial = (
  entry: ServerEntry,
  capabilities: { readonly resources: boolean; readonly subscribe: boolean },
  era: "legacy" | "modern"
): State => {
  const pollMillis = Math.round((entry.pollChangesSec ?? 60) * 1000)
  const declared: ChangeDetection = !capabilities.resources
    ? "none"
    : capabilities.subscribe
      ? era === "modern"
        ? "stream"
        : "subscribe"
      : pollMillis > 0
        ? "poll"
        : "none"
  return new State(declared, pollMillis)
}

/** `read`, its result recorded as the base polls of `uri` compare with (only while the connection polls). */
export const observed = <E>(
  connection: Connection,
  uri: string,
  read: Effect.Effect<Mcp.ReadResourceResult, E>
): Effect.Effect<Mcp.ReadResourceResult, E> =>
  connection.detection.polls()
    ? Effect.tap(read, (result) =>
        Effect.map(Clock.currentTimeMillis, (now) => connection.detection.observeRead(uri, result, now))
      )
    : read

const decodeRead = decodeResultEither(Mcp.ReadResourceResult, "resources/read")

/** The changes `[changes]` settings of the latest config. */
export type ChangesSettings = () => Pick<Config.ChangesConfig, "verifyPushSec" | "streamReopenMax">

/**
 * The source of one connection's detected changes: polls (or verification polls) on an interval
 * grid, and the reopening of a dropped subscription stream. Runs until the connection closes.
 */
export const source =
  (settings: ChangesSettings) =>
  (entry: ServerEntry, connection: Connection, watched: Changes.Watched): Changes.Source => {
    const state = connection.detection
    if (state.declared === "none") return Stream.empty
    return Stream.unwrapScoped(
      Effect.gen(function* () {
        const out = yield* Queue.unbounded<Changes.Change>()
        const streamGivenUp = yield* Deferred.make<void>()
        yield* Effect.forkScoped(pollLoop(entry, connection, watched, settings, out, streamGivenUp))
        if (state.declared === "stream") {
          yield* Effect.forkScoped(reopenLoop(entry, connection, settings, streamGivenUp))
        }
        return Stream.fromQueue(out)
      })
    )
  }

/**
 * One read of `uri` for the poll of the tick scheduled at `tick`: its digest and size and when it is
 * next due (from the tick's grid time, not the read's: a tick that ran late, or a read that came late in
 * its tick, does not make the uri skip the next tick), or the failure.
 */
const readDigest = (entry: ServerEntry, connection: Connection, uri: string, tick: number) =>
  Effect.map(
    connection.requestDecoded(
      "resources/read",
      { uri },
      Math.round(entry.toolTimeoutSec * 1000),
      decodeRead,
      () => `polling ${uri} of \`${entry.name}\` failed`
    ),
    (result) => ({ ...Digest.ofContents(result.contents), dueAt: tick + connection.detection.intervalOf(result) })
  )

/**
 * Polls (`poll`) or verifies (`stream`, `subscribe` with `verify_push_sec`) on a grid of intervals:
 * tick `k` at `start + k * interval`, up to a tenth early, so that each interval has exactly one.
 */
const pollLoop = (
  entry: ServerEntry,
  connection: Connection,
  watched: Changes.Watched,
  settings: ChangesSettings,
  out: Queue.Enqueue<Changes.Change>,
  streamGivenUp: Deferred.Deferred<void>
) =>
  Effect.gen(function* () {
    const state = connection.detection
    let grid: { mode: ChangeDetection; start: number; interval: number; tick: number } | undefined
    let failures = 0
    for (;;) {
      const mode = state.mode()
      const interval = mode === "poll" ? state.pollMillis : mode === "none" ? 0 : settings().verifyPushSec * 1000
      if (interval <= 0) {
        if (mode !== "stream" || (yield* Deferred.isDone(streamGivenUp))) return
        yield* Deferred.await(streamGivenUp)
        continue
      }
      const now = yield* Clock.currentTimeMillis
      if (grid === undefined || grid.mode !== mode || grid.interval !== interval) {
        grid = { mode, start: now, interval, tick: 0 }
        failures = 0
        // trace, not debug: every server that does not push starts one, even in a short CLI command
        yield* Effect.logTrace(
          `MCP server '${entry.name}': ${mode === "poll" ? "polling" : "verifying pushes"} every ${interval} ms`
        )
      }
      grid.tick += failures === 0 ? 1 : Math.min(2 ** failures, maxSkippedIntervals)
      const early = yield* Random.nextIntBetween(0, Math.max(1, Math.floor(interval / 10)))
      // from the grid, not from now: a tick that ran late does not push the next one back
      const at = grid.start + grid.tick * interval - early
      const wait = Effect.sleep(Math.max(0, at - now))
      if (mode === "stream") {
        const woke = yield* Effect.raceFirst(Effect.as(wait, true), Effect.as(Deferred.await(streamGivenUp), false))
        if (!woke) continue
      } else yield* wait
      const failed = yield* pollOnce(entry, connection, watched, mode, out, at)
      failures = failed ? failures + 1 : 0
      if (failed) {
        yield* Effect.logWarning(
          `MCP server '${entry.name}': ${failures} failed poll${failures === 1 ? "" : "s"} in a row; the next in ${Math.min(2 ** failures, maxSkippedIntervals)} intervals`
        )
      }
    }
  })

/**
 * One tick, scheduled at `tick` on the grid: reads the watched uris due by then and offers what
 * changed; true when a read failed.
 */
const pollOnce = (
  entry: ServerEntry,
  connection: Connection,
  watched: Changes.Watched,
  mode: ChangeDetection,
  out: Queue.Enqueue<Changes.Change>,
  tick: number
) =>
  Effect.gen(function* () {
    const state = connection.detection
    const now = Math.max(tick, yield* Clock.currentTimeMillis)
    const held = watched.uris()
    // forget what nobody watches any more
    const holding = new Set(held)
    for (const uri of state.known.keys()) if (!holding.has(uri)) state.known.delete(uri)
    const due = held
      .filter((uri) => (state.known.get(uri)?.dueAt ?? 0) <= now)
      .sort((a, b) => (state.known.get(a)?.dueAt ?? 0) - (state.known.get(b)?.dueAt ?? 0))
      .slice(0, maxPollsPerInterval)
    const found = yield* Effect.forEach(due, (uri) => Effect.either(readDigest(entry, connection, uri, tick)), {
      concurrency: pollConcurrency
    })
    // what the server pushed since the last check, up to the reads' answers
    const pushed = mode === "poll" ? undefined : connection.resourceChanges.takePushed()
    let failed = false
    for (let i = 0; i < due.length; i++) {
      const uri = due[i]!
      const read = found[i]!
      if (read._tag === "Left") {
        failed = true
        yield* Effect.logWarning(`MCP server '${entry.name}': ${read.left.message}`)
        continue
      }
      const { digest, size, dueAt } = read.right
      const before = state.known.get(uri)
      state.remember(uri, digest, dueAt)
      if (before === undefined || before.digest === digest) continue
      if (pushed !== undefined) {
        if (pushed(uri)) continue
        if (state.fallBack("notPushing")) {
          yield* Effect.logWarning(
            `MCP server '${entry.name}': ${uri} changed without an update from the server; polling it from now on`
          )
        }
      }
      yield* Queue.offer(out, { _tag: "updated", uri, polled: { digest, size } })
    }
    return failed
  })

/**
 * Reopens the connection's dropped subscription stream after {@link reopenDelayMillis}; once
 * `stream_reopen_max` tries in a row failed (a reopened stream dropped again, or did not open), the
 * stream is given up and the server polled.
 */
const reopenLoop = (
  entry: ServerEntry,
  connection: Connection,
  settings: ChangesSettings,
  streamGivenUp: Deferred.Deferred<void>
) =>
  Effect.gen(function* () {
    const drops = yield* Queue.unbounded<void>()
    connection.onStreamDropped(() => Queue.unsafeOffer(drops, undefined))
    let tries = 0
    let openedAt = yield* Clock.currentTimeMillis
    for (;;) {
      yield* Queue.take(drops)
      const dropped = yield* Clock.currentTimeMillis
      if (dropped - openedAt >= stableStreamMillis) tries = 0
      for (;;) {
        tries += 1
        if (tries > settings().streamReopenMax) {
          connection.detection.fallBack("streamGivenUp")
          yield* Deferred.succeed(streamGivenUp, undefined)
          return yield* Effect.logWarning(
            `MCP server '${entry.name}': the subscriptions/listen stream dropped ${tries} times in a row; polling from now on`
          )
        }
        const delay = reopenDelayMillis(tries)
        const at = (yield* Clock.currentTimeMillis) + delay
        yield* Effect.logWarning(
          `MCP server '${entry.name}': the subscriptions/listen stream dropped; opening it again in ${delay} ms (try ${tries})`
        )
        yield* Effect.sleep(Math.max(0, at - (yield* Clock.currentTimeMillis)))
        const reopened = yield* Effect.either(connection.reopenStream(Math.round(entry.toolTimeoutSec * 1000)))
        if (reopened._tag === "Right") break
        yield* Effect.logWarning(`MCP server '${entry.name}': ${reopened.left.message}`)
      }
      openedAt = yield* Clock.currentTimeMillis
    }
  })
