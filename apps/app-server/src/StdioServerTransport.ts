/**
 * JSON-RPC over standard input/output: one message per `\n`-terminated line, lines over 8 MiB answered
 * `Request too large` without being buffered whole. Standard output carries protocol messages only.
 * End of input stops the server; so does a client that does not read (unsent output over
 * `--max-send-buffer`). Requests that arrive while the server shuts down are answered
 * `server shutting down`, as on WebSocket.
 */
import { Wire } from "@mcp-resources/protocol"
import { Effect, Fiber, Layer, Option, Queue, Runtime } from "effect"
import { AppOptions } from "./AppOptions.js"
import { JsonRpcServer, maxMessageBytes } from "./JsonRpcServer.js"
import { StopSignal } from "./StopSignal.js"

/** The streams the transport uses (the process's own by default). */
export interface Streams {
  readonly input: NodeJS.ReadableStream
  readonly output: NodeJS.WritableStream
}

/** Serves the given streams until the layer closes; on close, in-flight requests are drained first. */
export const layerStreams = (streams: Streams): Layer.Layer<never, never, JsonRpcServer | StopSignal> =>
  Layer.scopedDiscard(
    Effect.gen(function* () {
      const server = yield* JsonRpcServer
      const stopSignal = yield* StopSignal
      const maxSendBuffer = Option.match(yield* Effect.serviceOption(AppOptions), {
        onNone: () => Number.POSITIVE_INFINITY,
        onSome: (options) => options.limits.maxSendBufferBytes
      })
      const runFork = Runtime.runFork(yield* Effect.runtime<never>())
      const { input, output } = streams
      const ignore = () => {}
      output.on("error", ignore)
      // Messages are buffered and written once per event-loop turn (one write for every response that
      // turn produced), in order, one JSON object per line. Closing the transport writes what is left.
      const batcher = new Wire.WriteBatcher((text) => output.write(text))
      // Set once the client stopped reading: nothing more is queued for it and the server stops.
      let abandoned = false
      yield* Effect.addFinalizer(() => Effect.sync(() => batcher.flush()))
      const unsent = (): number =>
        batcher.queuedLength + ("writableLength" in output ? Number(output.writableLength) : 0)
      const session = yield* server.attach("stdio", (text) => {
        if (abandoned) return
        // What is still unsent is over the cap: the client is not reading, so the only connection goes
        // (the server stops, as at end of input) instead of buffering without bound.
        if (unsent() > maxSendBuffer) {
          abandoned = true
          batcher.clear()
          runFork(
            Effect.zipRight(
              Effect.logError("standard output is not being read (send buffer over the limit); stopping").pipe(
                Effect.annotateLogs({ unsentBytes: unsent(), limit: maxSendBuffer })
              ),
              stopSignal.stop
            )
          )
          return
        }
        batcher.push(text)
      })
      const frames = yield* Queue.unbounded<Wire.Frame | { readonly _tag: "end" }>()
      const splitter = new Wire.LineSplitter(maxMessageBytes)
      const onData = (chunk: Buffer | string) => {
        for (const frame of splitter.push(typeof chunk === "string" ? Buffer.from(chunk) : chunk))
          frames.unsafeOffer(frame)
      }
      const onEnd = () => {
        for (const frame of splitter.end()) frames.unsafeOffer(frame)
        frames.unsafeOffer({ _tag: "end" })
      }
      yield* Effect.acquireRelease(
        Effect.sync(() => {
          input.on("data", onData)
          input.once("end", onEnd)
          input.once("error", onEnd)
          input.resume()
        }),
        () =>
          Effect.sync(() => {
            input.off("data", onData)
            input.off("end", onEnd)
            input.off("error", onEnd)
            input.pause()
            if ("destroy" in input && typeof input.destroy === "function") input.destroy()
          })
      )
      const reader = Effect.gen(function* () {
        while (true) {
          // Every frame that has arrived, in order (one wait per batch rather than per frame).
          const batch = yield* Queue.takeBetween(frames, 1, Number.POSITIVE_INFINITY)
          for (const frame of batch) {
            if (frame._tag === "end") {
              yield* Effect.logInfo("standard input ended")
              return yield* stopSignal.stop
            }
            yield* frame._tag === "oversize" ? session.tooLarge : session.receive(frame.text)
          }
        }
      })
      // The reader stops after the shutdown (finalizers run in reverse order): requests that arrive
      // while in-flight ones drain are still read, and answered `server shutting down`.
      const reading = yield* Effect.forkDaemon(reader)
      yield* Effect.addFinalizer(() => Fiber.interrupt(reading))
      // Runs before the connection detaches: in-flight requests still get their answers on stdout.
      yield* Effect.addFinalizer(() => server.shutdown)
    })
  )

/** Serves the process's standard input and output. */
export const layer: Layer.Layer<never, never, JsonRpcServer | StopSignal> = Layer.suspend(() =>
  layerStreams({ input: process.stdin, output: process.stdout })
)
