/**
 * The pagination guard (resource-tools.md 2.1): collects every page of a paginated MCP list, one page
 * after another, under a page limit, an item limit, a cursor size limit, a repeated-cursor check and one
 * overall deadline, kept on the current `Clock` with the request path's one timer (`internal/request.ts`).
 */
import { Errors, Messages } from "@mcp-resources/protocol"
import { Duration, Effect } from "effect"
import { timeoutOn } from "./internal/request.js"

/** At most this many pages are fetched. */
export const maxPages = 100
/** At most this many items are collected in total. */
export const maxItems = 2048
/** A next cursor longer than this many UTF-8 bytes is refused. */
export const maxCursorBytes = 65536
/** The overall deadline when none is given. */
export const defaultTimeout: Duration.Duration = Duration.seconds(30)

/** One fetched page: its items in the server's order and the cursor of the next page, if any. */
export interface Page<A> {
  readonly items: ReadonlyArray<A>
  readonly nextCursor?: string | undefined
}

/** What {@link collectPaginated} needs: the method label, a page fetcher and an optional overall deadline. */
export interface Options<A, E, R> {
  /** The label used in messages: `resources/list`, `resources/templates/list`, `tools/list`. */
  readonly method: string
  /**
   * Fetches one page; `undefined` for the first page. `remainingMillis` is what is left of the overall
   * deadline when the page starts. Its failure fails the collection unchanged.
   */
  readonly fetchPage: (cursor: string | undefined, remainingMillis: number) => Effect.Effect<Page<A>, E, R>
  /** The overall deadline across all pages (30 s when not given). */
  readonly timeout?: Duration.DurationInput
  /**
   * `true` when every page fetch ends within the `remainingMillis` it is given (a request with that
   * timeout, as the connection set's pages are). The deadline is then kept by the pages' own request
   * timers and checked as each page starts, with no timer of its own; otherwise the collection is
   * bounded by the request path's timer.
   */
  readonly pagesBounded?: boolean
  /** At most this many items in total ({@link maxItems} when not given), e.g. a search index's own bound. */
  readonly maxItems?: number
  /** At most this many pages ({@link maxPages} when not given). */
  readonly maxPages?: number
}

const guardError = (message: string) => new Errors.TransportError({ kind: "pagination", message })

/** Fetches every page and returns all items in order, or fails with the first rule broken (2.1). */
export const collectPaginated = <A, E, R>(
  options: Options<A, E, R>
): Effect.Effect<ReadonlyArray<A>, E | Errors.TransportError, R> =>
  Effect.gen(function* () {
    const { method, fetchPage } = options
    const itemLimit = options.maxItems ?? maxItems
    const pageLimit = options.maxPages ?? maxPages
    const timeoutMillis = Duration.toMillis(Duration.decode(options.timeout ?? defaultTimeout))
    // built only when the deadline passes (an error captures a stack trace)
    const deadlineError = () => guardError(Messages.pagination.timedOut(method, timeoutMillis))
    // the clock is read synchronously on every page (one service lookup per collection)
    const clock = yield* Effect.clock
    const deadline = clock.unsafeCurrentTimeMillis() + timeoutMillis
    const items: Array<A> = []
    const seen = new Set<string>()
    let cursor: string | undefined
    let pages = 0
    const fetch = (next: string | undefined, startedAt: number): Effect.Effect<Page<A>, E | Errors.TransportError, R> =>
      fetchPage(next, deadline - startedAt).pipe(
        // a page timeout that expires together with the deadline reports the deadline
        Effect.catchAll(
          (error): Effect.Effect<never, E | Errors.TransportError> =>
            clock.unsafeCurrentTimeMillis() >= deadline ? Effect.fail(deadlineError()) : Effect.fail(error)
        )
      )
    const loop: Effect.Effect<ReadonlyArray<A>, E | Errors.TransportError, R> = Effect.gen(function* () {
      while (true) {
        const now = clock.unsafeCurrentTimeMillis()
        if (now >= deadline) return yield* Effect.fail(deadlineError())
        const page = yield* fetch(cursor, now)
        pages += 1
        if (page.items.length > itemLimit - items.length) {
          return yield* Effect.fail(guardError(Messages.pagination.itemLimit(method)))
        }
        items.push(...page.items)
        const next = page.nextCursor
        if (next === undefined) return items as ReadonlyArray<A>
        if (Buffer.byteLength(next, "utf8") > maxCursorBytes) {
          return yield* Effect.fail(guardError(Messages.pagination.cursorTooLarge(method)))
        }
        if (seen.has(next)) {
          return yield* Effect.fail(guardError(Messages.pagination.repeatedCursor(method)))
        }
        if (pages >= pageLimit) {
          return yield* Effect.fail(guardError(Messages.pagination.pageLimit(method)))
        }
        seen.add(next)
        cursor = next
      }
    })
    // a race forks two fibers and a timer per collection: bounded pages need none of it
    if (options.pagesBounded === true) return yield* loop
    return yield* timeoutOn(loop, timeoutMillis, deadlineError)
  })
