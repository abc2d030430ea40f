/**
 * The instance feed: what one app-server of a cluster tells the others that is no thread's record.
 * It reloaded its config (`configReloaded`), so that each other instance reloads its own; an OAuth
 * login through it ended (`loginEnded`), so that each other instance brings the server up with the
 * stored tokens and tells its own clients that waited for that login. PostgreSQL `LISTEN`/`NOTIFY` on
 * a channel of its own, like the thread feed (ThreadFeed.ts); a notice names the instance that sent
 * it, so that an instance passes over its own.
 */
import * as Reactivity from "@effect/experimental/Reactivity"
import { Context, type Duration, Effect, Layer, Option, Redacted, Schema, type Scope } from "effect"
import * as Errors from "./internal/error.js"
import type { ThreadStoreError } from "./internal/error.js"
import * as Persistence from "./internal/persistence.js"
import { defaultCheck } from "./ThreadFeed.js"

/** The PostgreSQL channel of the notices. */
export const channel = "mcp_resources_instances"

/** An instance reloaded its config file (`config/mcpServer/reload`). */
export const ConfigReloaded = Schema.Struct({
  kind: Schema.Literal("configReloaded"),
  /** The instance that sent it (an id of its own, new at each start). */
  instance: Schema.String
})

/**
 * An OAuth login of an MCP server through an instance ended (`mcpServer/oauth/login`). It names the
 * server only: its outcome is read from the shared token store.
 */
export const LoginEnded = Schema.Struct({
  kind: Schema.Literal("loginEnded"),
  /** The instance that sent it. */
  instance: Schema.String,
  /** The server's name in the config. */
  server: Schema.String
})

/** What one instance tells the others. */
export const Notice = Schema.Union(ConfigReloaded, LoginEnded)
/** What one instance tells the others. */
export type Notice = typeof Notice.Type

/** The feed's operations. */
export interface Service {
  /** Sends `notice` to every instance listening (this one too). */
  readonly announce: (notice: Notice) => Effect.Effect<void, ThreadStoreError>
  /**
   * Runs `onNotice` for every notice from now on, one at a time, until the scope closes; succeeds
   * once the process listens. When the listening connection is lost it listens again on a new one
   * and then runs `onMissed` (the notices in between are lost).
   */
  readonly subscribe: (
    onNotice: (notice: Notice) => Effect.Effect<void>,
    onMissed: Effect.Effect<void>
  ) => Effect.Effect<void, ThreadStoreError, Scope.Scope>
}

/** The InstanceFeed tag. Layer: `layerPg`, `layerFromConfig`. */
export class InstanceFeed extends Context.Tag("@mcp-resources/thread-store/InstanceFeed")<InstanceFeed, Service>() {}

const decodeNotice = Schema.decodeUnknownOption(Schema.parseJson(Notice))
const encodeNotice = Schema.encodeSync(Schema.parseJson(Notice))

const loadPg = Effect.tryPromise({
  try: () => import("./internal/pg.js"),
  catch: (cause) => Errors.storage("cannot load the PostgreSQL driver", Errors.describe(cause))
})

/**
 * The notices of the PostgreSQL database at `url`: announcements go through a pool of their own
 * (opened with the layer), each subscription listens on a connection of its own, checked every `check`.
 */
export const layerPg = (options: {
  readonly url: string | Redacted.Redacted
  readonly check?: Duration.DurationInput | undefined
}): Layer.Layer<InstanceFeed, ThreadStoreError> =>
  Layer.scoped(
    InstanceFeed,
    Effect.gen(function* () {
      const driver = yield* loadPg
      const url = Redacted.isRedacted(options.url) ? options.url : Redacted.make(options.url)
      const context = "cannot announce to the other instances"
      const client = yield* driver.connectPg(url, context)
      const reactivity = yield* Reactivity.Reactivity
      return InstanceFeed.of({
        announce: (notice) => driver.notifyPg(client, channel, encodeNotice(notice), context),
        subscribe: (onNotice, onMissed) =>
          driver
            .listenPg(url, channel, {
              onNotice: (payload) =>
                Option.match(decodeNotice(payload), {
                  onNone: () => Effect.logWarning("an instance notice that is not one was ignored"),
                  onSome: onNotice
                }),
              onRelisten: onMissed,
              check: options.check ?? defaultCheck
            })
            .pipe(Effect.provideService(Reactivity.Reactivity, reactivity))
      })
    })
  ).pipe(Layer.provide(Reactivity.layer))

/** The feed of the `[persistence]` PostgreSQL store (`url`, else `DATABASE_URL`). */
export const layerFromConfig = (options: {
  readonly url?: string | undefined
}): Layer.Layer<InstanceFeed, ThreadStoreError> =>
  Layer.unwrapEffect(
    Effect.map(Persistence.pgUrl(options, "cannot announce to the other instances"), (url) => layerPg({ url }))
  )
