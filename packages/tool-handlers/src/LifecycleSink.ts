/**
 * Where lifecycle items go: every tool call in phase 2 emits a `started` item and a `completed` item
 * (resource-tools.md section 9). Hosts choose the sink; tests record.
 */
import type { ToolCallItem } from "@mcp-resources/protocol"
import { Context, Data, Effect, Layer, type Queue, Ref } from "effect"

/** One lifecycle notification: the item as it stands at that phase. */
export interface LifecycleEvent {
  readonly phase: "started" | "completed"
  readonly item: ToolCallItem.McpToolCallItem
}

/**
 * A lifecycle item the sink could not record (a host's durable store refused it): the call ends with
 * this failure instead of an output. The sink's own error is the host's to keep (`message` is its text).
 */
export class EmitError extends Data.TaggedError("LifecycleEmitError")<{ readonly message: string }> {}

/** Receives the lifecycle items of tool calls, in order; a failed `emit` ends the call with {@link EmitError}. */
export class LifecycleSink extends Context.Tag("@mcp-resources/tool-handlers/LifecycleSink")<
  LifecycleSink,
  { readonly emit: (event: LifecycleEvent) => Effect.Effect<void, EmitError> }
>() {}

/** Reads what {@link layerRecorder} recorded. */
export class Recorder extends Context.Tag("@mcp-resources/tool-handlers/LifecycleSink/Recorder")<
  Recorder,
  {
    /** Every event emitted so far, in order. */
    readonly events: Effect.Effect<ReadonlyArray<LifecycleEvent>>
    /** Forgets the recorded events. */
    readonly clear: Effect.Effect<void>
  }
>() {}

/** Records every event in memory (for tests); read them through {@link Recorder}. */
export const layerRecorder: Layer.Layer<LifecycleSink | Recorder> = Layer.effectContext(
  Effect.gen(function* () {
    const ref = yield* Ref.make<ReadonlyArray<LifecycleEvent>>([])
    return Context.make(LifecycleSink, { emit: (event) => Ref.update(ref, (events) => [...events, event]) }).pipe(
      Context.add(Recorder, { events: Ref.get(ref), clear: Ref.set(ref, []) })
    )
  })
)

/** The recorded events (needs {@link layerRecorder}). */
export const recorded: Effect.Effect<ReadonlyArray<LifecycleEvent>, never, Recorder> = Effect.flatMap(
  Recorder,
  (recorder) => recorder.events
)

/** Calls `f` for every event; `f` may return an effect, which is run before the call continues (its failure ends the call). */
export const layerCallback = (
  f: (event: LifecycleEvent) => void | Effect.Effect<void, EmitError>
): Layer.Layer<LifecycleSink> =>
  Layer.succeed(LifecycleSink, {
    emit: (event) =>
      Effect.suspend(() => {
        const out = f(event)
        return Effect.isEffect(out) ? out : Effect.void
      })
  })

/** Offers every event to a queue the host reads. */
export const layerQueue = (queue: Queue.Enqueue<LifecycleEvent>): Layer.Layer<LifecycleSink> =>
  Layer.succeed(LifecycleSink, { emit: (event) => Effect.asVoid(queue.offer(event)) })

/** Drops every event. */
export const layerNoop: Layer.Layer<LifecycleSink> = Layer.succeed(LifecycleSink, { emit: () => Effect.void })
