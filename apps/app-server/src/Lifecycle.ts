/** When the server stops: end of standard input (stdio transport) or a signal (handled by the runtime). */
import { Context, Deferred, Effect, Layer } from "effect"

/** The operations of the lifecycle. */
export interface Service {
  /** Asks the server to stop (idempotent). */
  readonly stop: Effect.Effect<void>
  /** Completes once {@link Service.stop} was called. */
  readonly awaitStop: Effect.Effect<void>
}

/** The Lifecycle tag. Layer: `layer`. */
export class Lifecycle extends Context.Tag("@mcp-resources/app-server/Lifecycle")<Lifecycle, Service>() {}

/** The lifecycle layer. */
export const layer: Layer.Layer<Lifecycle> = Layer.effect(
  Lifecycle,
  Effect.map(Deferred.make<void>(), (stopped) =>
    Lifecycle.of({ stop: Effect.asVoid(Deferred.succeed(stopped, undefined)), awaitStop: Deferred.await(stopped) })
  )
)
