/**
 * The bodies threads read (docs/templates-and-changes.md, "What changed"): the body store of
 * `@mcp-resources/thread-store` beside the thread store, on the `[persistence]` driver and bounded by
 * `[changes]`, opened at the first use (a read that keeps a body, a diff, a rollback or a thread's
 * removal), never at start-up. A thread's tools get it as `ToolContext.bodies`, with the thread's
 * earlier reads (ThreadState.ts keeps their digests from the recorded items); a rollback releases what
 * the removed turns read and a removed thread drops its bodies. A store that cannot be opened is
 * logged once a use and taken as keeping nothing: reads go on, `since` answers with the whole body.
 */
import { Config } from "@mcp-resources/protocol"
import { ResourceClient } from "@mcp-resources/resource-client"
import { BodyStore } from "@mcp-resources/thread-store"
import type { ToolHandlers } from "@mcp-resources/tool-handlers"
import { Context, Effect, Layer, Option } from "effect"
import { AppOptions } from "./AppOptions.js"

/** The operations on the threads' bodies. */
export interface Service {
  /** A thread's bodies for its tool context; `earlier` finds its reads (ThreadState.ts's index). */
  readonly of: (threadId: string, earlier: ToolHandlers.Bodies["earlier"]) => ToolHandlers.Bodies
  /** A rollback removed reads: the thread's references to these bodies end. */
  readonly release: (threadId: string, digests: ReadonlyArray<string>) => Effect.Effect<void>
  /** The thread was removed (deleted, or an ephemeral thread ended): its bodies go. */
  readonly drop: (threadId: string) => Effect.Effect<void>
}

/** The ThreadBodies tag. Layer: `layer`. */
export class ThreadBodies extends Context.Tag("@mcp-resources/app-server/ThreadBodies")<ThreadBodies, Service>() {}

/** Builds the service; the store is opened at its first use, in the service's scope. */
export const make = Effect.gen(function* () {
  const client = yield* ResourceClient.ResourceClient
  const options = yield* Effect.serviceOption(AppOptions)
  const scope = yield* Effect.scope
  const open = Effect.gen(function* () {
    const config = yield* client.config
    const bounds = config.changes ?? Config.changesDefaults
    // without the server's options (a host composing the layers itself) there is no data dir: memory
    const layer = Option.match(options, {
      onNone: () =>
        config.persistence.driver === "sqlite"
          ? BodyStore.layerMemory(bounds)
          : BodyStore.layerFromConfig({ ...config.persistence, dataDir: "" }, bounds),
      onSome: (o) =>
        BodyStore.layerFromConfig(
          { driver: config.persistence.driver, url: config.persistence.url, dataDir: o.dataDir },
          bounds
        )
    })
    const built = yield* Layer.buildWithScope(layer, scope)
    yield* Effect.logInfo("body store opened").pipe(Effect.annotateLogs({ driver: config.persistence.driver }))
    return Option.some(Context.get(built, BodyStore.BodyStore))
  }).pipe(
    Effect.catchAll((error) =>
      Effect.as(Effect.logWarning(`the body store could not be opened: ${error.message}`), Option.none())
    )
  )
  const store = yield* Effect.cached(open)

  /** Runs `use` on the store; a failure is logged and gives `fallback`. */
  const withStore = <A>(
    what: string,
    fallback: A,
    use: (store: BodyStore.Service) => Effect.Effect<A, BodyStore.BodyStoreError>
  ): Effect.Effect<A> =>
    Effect.flatMap(store, (opened) =>
      Option.isNone(opened)
        ? Effect.succeed(fallback)
        : use(opened.value).pipe(
            Effect.catchAll((error) => Effect.as(Effect.logWarning(`${what}: ${error.message}`), fallback))
          )
    )

  const of: Service["of"] = (threadId, earlier) => ({
    earlier,
    // a body over the bounds is not handed to the store (which would hash it again to keep nothing)
    keep: (body, meta) =>
      withStore(`could not keep a body of thread ${threadId}`, false, (s) =>
        body.byteLength > Math.min(s.bounds.bodyMaxBytes, s.bounds.threadMaxBytes, s.bounds.storeMaxBytes)
          ? Effect.succeed(false)
          : Effect.map(s.put(threadId, body, meta), (put) => put.kept)
      ),
    get: (digest) => withStore(`could not read body ${digest}`, Option.none<Uint8Array>(), (s) => s.get(digest))
  })

  return ThreadBodies.of({
    of,
    release: (threadId, digests) =>
      digests.length === 0
        ? Effect.void
        : withStore(`could not release bodies of thread ${threadId}`, undefined, (s) =>
            Effect.asVoid(s.release(threadId, digests))
          ),
    drop: (threadId) =>
      withStore(`could not drop the bodies of thread ${threadId}`, undefined, (s) =>
        Effect.asVoid(s.dropThread(threadId))
      )
  })
})

/** The ThreadBodies layer (nothing is opened until a thread uses it). */
export const layer = Layer.scoped(ThreadBodies, make)
