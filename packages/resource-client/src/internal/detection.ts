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
import { Clock, Effect, type Either, Exit, Fiber, Random } from "effect"
import type { ServerEntry } from "../ServerEntry.js"
import type * as Changes from "./changes.js"
import { serially } from "./onDemand.js"
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

/** Reads kept undigested, awaiting a watch ({@link State.observeRead}). */
const maxRecentReads = 4

/** The largest body (in UTF-16 units or base64 characters) kept undigested; a larger one is digested at once. */
const maxRecentChars = 64 * 1024

/** A read of a uri nobody watched when it came: its result, digested only once a watch needs its base. */
interface RecentRead {
  readonly uri: string
  readonly result: Mcp.ReadResourceResult
  readonly dueAt: number
}

/** The length of a read's bodies (text or base64), or more than {@link maxRecentChars} once past it. */
const charsOf = (result: Mcp.ReadResourceResult): number => {
  let chars = 0
  for (const item of result.contents) {
    chars += "text" in item ? item.text.length : item.blob.length
    if (chars > maxRecentChars) break
  }
  return chars
}

/** The change detection of one connection: the declared mode and what it fell back to. */
export class State {
  private fellBack: "notPushing" | "streamGivenUp" | undefined = undefined
  /** What reads and polls found, per watched uri (made at the first). */
  private knownMap: Map<string, Known> | undefined = undefined
  /** The latest reads of uris nobody watched, newest last (made at the first). */
  private recent: Array<RecentRead> | undefined = undefined

  constructor(
    /** The mode the server's declaration gives. */
    readonly declared: ChangeDetection,
    /** `poll_changes_sec` in milliseconds (0: off). */
    readonly pollMillis: number
  ) {}

  /** What reads and polls found, per uri. */
  get known(): Map<string, Known> {
    this.knownMap ??= new Map()
    return this.knownMap
  }

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

  /**
   * Records what a read of `uri` returned (the base a poll compares with), while polling. The read of
   * a uri a poll already follows is digested at once; that of any other uri is kept as it is among
   * the last {@link maxRecentReads} (bodies up to {@link maxRecentChars}) and digested only when a
   * watch of the uri begins ({@link watching}) or a poll finds it watched ({@link settleBases}): the
   * common read (nobody watches it, or a thread's read before its watch) pays no SHA-256
   * (BENCHMARKS.md, scenario 1, "tool overhead 1 KiB").
   */
  observeRead(uri: string, result: Mcp.ReadResourceResult, now: number): void {
    if (!this.polls()) return
    const dueAt = now + this.intervalOf(result)
    if (this.knownMap?.has(uri) === true || charsOf(result) > maxRecentChars) {
      this.remember(uri, Digest.ofContents(result.contents).digest, dueAt)
      return
    }
    this.recent ??= []
    const at = this.recent.findIndex((read) => read.uri === uri)
    if (at >= 0) this.recent.splice(at, 1)
    else if (this.recent.length >= maxRecentReads) this.recent.shift()
    this.recent.push({ uri, result, dueAt })
  }

  /** A watch of `uri` begins: its kept read, if any, becomes its base now (a thread's read, then its watch). */
  watching(uri: string): void {
    const at = this.recent?.findIndex((read) => read.uri === uri) ?? -1
    if (at < 0) return
    this.adopt(this.recent!.splice(at, 1)[0]!)
  }

  /** Makes the kept reads of `watched` uris known (their digests as the base); forgets the others' digests. */
  settleBases(watched: ReadonlyArray<string>): void {
    const holding = new Set(watched)
    if (this.knownMap !== undefined) {
      for (const uri of this.knownMap.keys()) if (!holding.has(uri)) this.knownMap.delete(uri)
    }
    const recent = this.recent
    if (recent === undefined) return
    this.recent = undefined
    for (const read of recent) if (holding.has(read.uri)) this.adopt(read)
  }

  /** A kept read becomes its uri's base: digested now. */
  private adopt(read: RecentRead): void {
    this.remember(read.uri, Digest.ofContents(read.result.contents).digest, read.dueAt)
  }

  /** The time between two reads of one uri: the poll interval, `ttlMs` when longer, less the jitter allowance. */
  intervalOf(result: Mcp.ReadResourceResult): number {
    return Math.floor(Math.max(this.pollMillis, result.ttlMs ?? 0) * 0.8)
  }

  remember(uri: string, digest: string, dueAt: number): void {
    const known = this.known
    known.delete(uri)
    known.set(uri, { digest, dueAt })
    if (known.size > maxKnown) {
      const oldest = known.keys().next()
      if (oldest.done !== true) known.delete(oldest.value)
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
 * The source of one connection's detected changes: polls (or verification polls) on an interval grid
 * while a uri is watched, and the reopening of a dropped subscription stream. Nothing runs while
 * nothing is watched and the stream is up: the poll loop starts when the first uri is watched and ends
 * at the first tick that finds none; a drop starts the reopening.
 */
export const source =
  (settings: ChangesSettings) =>
  (entry: ServerEntry, connection: Connection): Changes.Source =>
  ({ offer, background, watched }) => {
    const state = connection.detection
    if (state.declared === "none") return
    let loop: Fiber.RuntimeFiber<boolean> | undefined
    /** Starts the poll loop unless it runs; one that ended idle while a uri came to be watched starts again. */
    const start = (): void => {
      if (loop !== undefined) return
      const fiber = background.fork(pollLoop(entry, connection, watched, settings, offer))
      if (fiber === undefined) return
      loop = fiber
      fiber.addObserver((exit) => {
        if (loop === fiber) loop = undefined
        if (Exit.isSuccess(exit) && exit.value && watched.uris().length > 0) start()
      })
    }
    watched.onWatching(start)
    if (state.declared !== "stream") return
    // a stream given up for polls: the loop verifying pushes starts again, polling
    const restart = Effect.suspend(() => {
      const running = loop
      loop = undefined
      return Effect.zipRight(
        running === undefined ? Effect.void : Fiber.interrupt(running),
        Effect.sync(() => {
          if (watched.uris().length > 0) start()
        })
      )
    })
    const reopen = reopener(entry, connection, settings, restart)
    connection.onStreamDropped(serially(background, reopen))
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
 * Ends with true once nothing is watched (idle), with false when the mode has no interval.
 */
const pollLoop = (
  entry: ServerEntry,
  connection: Connection,
  watched: Changes.Watched,
  settings: ChangesSettings,
  offer: (change: Changes.Change) => void
): Effect.Effect<boolean> =>
  Effect.gen(function* () {
    const state = connection.detection
    let grid: { mode: ChangeDetection; start: number; interval: number; tick: number } | undefined
    let failures = 0
    for (;;) {
      if (watched.uris().length === 0) return true
      const mode = state.mode()
      const interval = mode === "poll" ? state.pollMillis : mode === "none" ? 0 : settings().verifyPushSec * 1000
      if (interval <= 0) return false
      const now = yield* Clock.currentTimeMillis
      if (grid === undefined || grid.mode !== mode || grid.interval !== interval) {
        grid = { mode, start: now, interval, tick: 0 }
        failures = 0
        // trace, not debug: every watch of a server that does not push starts one, even in a short CLI command
        yield* Effect.logTrace(
          `MCP server '${entry.name}': ${mode === "poll" ? "polling" : "verifying pushes"} every ${interval} ms`
        )
      }
      grid.tick += failures === 0 ? 1 : Math.min(2 ** failures, maxSkippedIntervals)
      const early = yield* Random.nextIntBetween(0, Math.max(1, Math.floor(interval / 10)))
      // from the grid, not from now: a tick that ran late does not push the next one back
      const at = grid.start + grid.tick * interval - early
      yield* Effect.sleep(Math.max(0, at - now))
      const failed = yield* pollOnce(entry, connection, watched, mode, offer, at)
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
  offer: (change: Changes.Change) => void,
  tick: number
) =>
  Effect.gen(function* () {
    const state = connection.detection
    const now = Math.max(tick, yield* Clock.currentTimeMillis)
    const held = watched.uris()
    // the kept reads of watched uris become their bases; what nobody watches any more is forgotten
    state.settleBases(held)
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
      offer({ _tag: "updated", uri, polled: { digest, size } })
    }
    return failed
  })

/**
 * What a drop of the connection's subscription stream starts (one run at a time): reopening it after
 * {@link reopenDelayMillis}; once `stream_reopen_max` tries in a row failed (a reopened stream dropped
 * again, or did not open), the stream is given up and the server polled (`givenUp`).
 */
const reopener = (
  entry: ServerEntry,
  connection: Connection,
  settings: ChangesSettings,
  givenUp: Effect.Effect<void>
): (() => Effect.Effect<void>) => {
  let tries = 0
  let openedAt: number | undefined
  let over = false
  return () =>
    Effect.gen(function* () {
      if (over) return
      const dropped = yield* Clock.currentTimeMillis
      if (openedAt !== undefined && dropped - openedAt >= stableStreamMillis) tries = 0
      for (;;) {
        tries += 1
        if (tries > settings().streamReopenMax) {
          over = true
          connection.detection.fallBack("streamGivenUp")
          yield* Effect.logWarning(
            `MCP server '${entry.name}': the subscriptions/listen stream dropped ${tries} times in a row; polling from now on`
          )
          return yield* givenUp
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
    })
}
