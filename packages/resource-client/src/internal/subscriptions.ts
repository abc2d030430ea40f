/**
 * The resource subscriptions of one server handle, reference-counted by uri, and how they reach the
 * wire on each protocol era: `resources/subscribe` / `resources/unsubscribe` on the `initialize` era
 * (sent when a uri's count goes from 0 to 1 and back), one `subscriptions/listen` stream per
 * connection carrying the whole set on 2026-07-28 (re-opened when the set changes). A new connection
 * of the handle (a reconnection) gets every held subscription again ({@link Subscriptions.restore}):
 * servers keep no subscription state across connections. On a server that declared no subscriptions
 * while change detection polls it (`detection.ts`), a uri is held without the wire: the book is what
 * the polls read.
 */
import { Errors } from "@mcp-resources/protocol"
import { Effect } from "effect"
import type { Connection } from "./connection.js"

/** What a subscribe found: sent (or already held, or held for polling), or a server that cannot tell changes. */
export type Outcome = "subscribed" | "unsupported"

/** The subscription book of one handle (shared by a reconnected handle of an unchanged entry). */
export class Subscriptions {
  private readonly refs = new Map<string, number>()
  /**
   * Wire changes of one book run one at a time, so that counts and the server agree. Made at the
   * first change: most servers never see a subscription.
   */
  private madeLock: Effect.Semaphore | undefined = undefined
  private get lock(): Effect.Semaphore {
    this.madeLock ??= Effect.unsafeMakeSemaphore(1)
    return this.madeLock
  }
  /** The connection the held set was last sent on (a new one gets the whole set first). */
  private current: Connection | undefined = undefined
  /** Told when the held set goes from empty to holding a uri (change detection starts its polls). */
  private watching: (() => void) | undefined = undefined

  /** Sets the one listener told whenever the held set stops being empty (at once when it holds a uri now). */
  onWatching(listener: () => void): void {
    this.watching = listener
    if (this.refs.size > 0) listener()
  }

  /** Adds one holder of `uri`, telling the listener when it is the first uri held. */
  private hold(uri: string): number {
    const held = this.refs.get(uri) ?? 0
    this.refs.set(uri, held + 1)
    if (this.refs.size === 1 && held === 0) this.watching?.()
    return held
  }

  /** The uris held now, in the order they were first subscribed. */
  uris(): ReadonlyArray<string> {
    return [...this.refs.keys()]
  }

  /** Whether `uri` is held now. */
  holds(uri: string): boolean {
    return this.refs.has(uri)
  }

  /** Adds a holder of `uri`; the first one sends the subscription on `connection`. */
  subscribe(
    server: string,
    connection: Connection,
    uri: string,
    timeoutMillis: number
  ): Effect.Effect<Outcome, Errors.ResourceFailure> {
    // a read of `uri` kept for change detection becomes the base its polls compare with
    connection.detection.watching(uri)
    if (!connection.capabilities.subscribe) {
      // a server that does not push: held without the wire while change detection polls it
      if (!connection.detection.polls()) return Effect.succeed("unsupported")
      return Effect.sync(() => {
        this.hold(uri)
        return "subscribed" as const
      })
    }
    return this.lock.withPermits(1)(
      Effect.suspend(() => {
        if (this.current !== connection) {
          // not yet restored there: the whole set, this one included, goes to the new connection
          this.hold(uri)
          return Effect.as(this.establish(server, connection, timeoutMillis), "subscribed" as const)
        }
        const held = this.hold(uri)
        if (held > 0) return Effect.succeed("subscribed" as const)
        return this.send(connection, "subscribe", uri, timeoutMillis).pipe(
          Effect.mapError((error) =>
            Errors.withContext(error, `resources/subscribe failed for \`${server}\` (${uri})`)
          ),
          Effect.tapError(() => Effect.sync(() => this.drop(uri))),
          Effect.as("subscribed" as const)
        )
      })
    )
  }

  /** Drops a holder of `uri`; the last one ends the subscription on `connection` (a failure is logged, not raised). */
  unsubscribe(
    server: string,
    connection: Connection | undefined,
    uri: string,
    timeoutMillis: number
  ): Effect.Effect<void> {
    return this.lock.withPermits(1)(
      Effect.suspend(() => {
        const held = this.refs.get(uri)
        if (held === undefined) return Effect.void
        if (held > 1) {
          this.refs.set(uri, held - 1)
          return Effect.void
        }
        this.refs.delete(uri)
        if (connection === undefined || connection !== this.current || !connection.capabilities.subscribe) {
          return Effect.void
        }
        return this.send(connection, "unsubscribe", uri, timeoutMillis).pipe(
          Effect.catchAll((error) =>
            Effect.logWarning(`MCP server '${server}': unsubscribing from ${uri} failed: ${error.message}`)
          )
        )
      })
    )
  }

  /** Sends every held subscription on a new connection (a failure is logged: the next change is the server's to report). */
  restore(server: string, connection: Connection, timeoutMillis: number): Effect.Effect<void> {
    // nothing held and no change ever under way: only a 2026-07-28 server with list changes needs a stream
    if (this.madeLock === undefined && this.refs.size === 0) {
      if (connection.era !== "modern" || !connection.capabilities.listChanged) {
        this.current = connection
        return Effect.void
      }
    }
    return this.lock.withPermits(1)(
      Effect.suspend(() =>
        this.current === connection ? Effect.void : this.establish(server, connection, timeoutMillis)
      )
    )
  }

  private establish(server: string, connection: Connection, timeoutMillis: number): Effect.Effect<void> {
    this.current = connection
    return Effect.suspend(() => {
      const uris = this.uris()
      if (connection.era === "modern") {
        if (uris.length === 0 && !connection.capabilities.listChanged) return Effect.void
        return connection
          .listen(connection.capabilities.subscribe ? uris : [], timeoutMillis)
          .pipe(
            Effect.catchAll((error) =>
              Effect.logWarning(`MCP server '${server}': subscriptions/listen failed: ${error.message}`)
            )
          )
      }
      if (!connection.capabilities.subscribe) return Effect.void
      return Effect.forEach(
        uris,
        (uri) =>
          connection
            .request("resources/subscribe", { uri }, timeoutMillis)
            .pipe(
              Effect.catchAll((error) =>
                Effect.logWarning(`MCP server '${server}': re-subscribing to ${uri} failed: ${error.message}`)
              )
            ),
        { discard: true }
      )
    })
  }

  private drop(uri: string): void {
    const held = this.refs.get(uri) ?? 0
    if (held <= 1) this.refs.delete(uri)
    else this.refs.set(uri, held - 1)
  }

  /** One change on the wire: a legacy request for `uri`, or the listen stream re-opened with the current set. */
  private send(
    connection: Connection,
    change: "subscribe" | "unsubscribe",
    uri: string,
    timeoutMillis: number
  ): Effect.Effect<void, Errors.TransportError | Errors.ServerError> {
    if (connection.era === "modern") return connection.listen(this.uris(), timeoutMillis)
    return Effect.asVoid(connection.request(`resources/${change}`, { uri }, timeoutMillis))
  }
}
