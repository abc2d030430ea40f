/** When the server stops: end of standard input (stdio transport) or a signal (handled by the runtime). */
import { Context, Deferred, Effect, Layer } from "effect"

/** The operations of the stop signal. */
export interface Service {
  /** Asks the server to stop (idempotent). */
  readonly stop: Effect.Effect<void>
  /** Completes once {@link Service.stop} was called. */
  readonly awaitStop: Effect.Effect<void>
}

/** The StopSignal tag. Layer: `layer`. */
export class StopSignal extends Context.Tag("@mcp-resources/app-server/StopSignal")<StopSignal, Service>() {}

/** The stop signal layer. */
export const layer: Layer.Layer<StopSignal> = Layer.effect(
  StopSignal,
  Effect.map(Deferred.make<void>(), (stopped) =>
    StopSignal.of({ stop: Effect.asVoid(Deferred.succeed(stopped, undefined)), awaitStop: Deferred.await(stopped) })
  )
)
