/**
 * The one WebSocket transport of the client, over either implementation: the browser's `WebSocket`
 * ({@link BrowserTransport}) or the `ws` package (`Transport.webSocket`). It owns what both share:
 * the queue of received messages ending with one `closed`, the bounded wait for the connection to
 * open, the close handshake on release (normal close, then drop after a bound) and sending.
 * It loads no Node module, so a web page can use it.
 */
import { Deferred, Duration, Effect, Queue, type Scope } from "effect"
import { ClientError } from "../Errors.js"
import type { Incoming, Transport } from "./transport.js"

/** An open socket, whichever implementation holds it. */
export interface Socket {
  readonly isOpen: () => boolean
  readonly send: (text: string) => void
  /** Starts the close handshake (code 1000). */
  readonly close: () => void
  /** Drops the connection at once. */
  readonly terminate: () => void
}

/** Where the implementation reports what happens to the socket, from the moment it is created. */
export interface SocketEvents {
  /** The socket opened. */
  readonly opened: (socket: Socket) => void
  /** The socket could not be opened (`cannot connect to PEER` is prefixed). */
  readonly failed: (detail: string | undefined) => void
  /** A text message arrived. */
  readonly message: (text: string) => void
  /** The socket closed or failed after opening (the reason names the peer). */
  readonly closed: (reason: string) => void
}

/** Options of {@link socketTransport}. */
export interface SocketTransportOptions {
  /** Names the peer in error messages: the URL. */
  readonly peer: string
  /** How long the connection may take to open (default 10 s). */
  readonly connectTimeout: Duration.DurationInput | undefined
  /** How long closing waits for the peer's close frame before dropping the socket (default 5 s). */
  readonly closeTimeout: Duration.DurationInput | undefined
  /** Creates the socket and wires its events; answers the way to drop it when the open is abandoned. */
  readonly open: (events: SocketEvents) => () => void
}

/** A scoped {@link Transport} over a socket: closing the scope closes it. */
export const socketTransport = (options: SocketTransportOptions): Effect.Effect<Transport, ClientError, Scope.Scope> =>
  Effect.gen(function* () {
    const { peer } = options
    const incoming = yield* Queue.unbounded<Incoming>()
    const closedSignal = yield* Deferred.make<void>()
    let closed = false
    const close = (reason: string) => {
      if (!closed) {
        closed = true
        incoming.unsafeOffer({ _tag: "closed", reason })
      }
      Deferred.unsafeDone(closedSignal, Effect.void)
    }
    const socket = yield* Effect.acquireRelease(
      Effect.async<Socket, ClientError>((resume) => {
        const drop = options.open({
          opened: (socket) => resume(Effect.succeed(socket)),
          failed: (detail) =>
            resume(
              Effect.fail(
                new ClientError({
                  reason: "transport",
                  message: `cannot connect to ${peer}${detail === undefined ? "" : `: ${detail}`}`
                })
              )
            ),
          message: (text) => {
            if (!closed) incoming.unsafeOffer({ _tag: "message", text })
          },
          closed: close
        })
        return Effect.sync(drop)
      }).pipe(
        Effect.timeoutFail({
          duration: options.connectTimeout ?? Duration.seconds(10),
          onTimeout: () =>
            new ClientError({ reason: "transport", message: `${peer} did not accept the connection in time` })
        })
      ),
      (socket) =>
        Effect.gen(function* () {
          if (closed) return
          socket.close()
          const answered = yield* Effect.interruptible(Deferred.await(closedSignal)).pipe(
            Effect.as(true),
            Effect.timeoutTo({
              duration: options.closeTimeout ?? Duration.seconds(5),
              onSuccess: (x) => x,
              onTimeout: () => false
            })
          )
          if (!answered) socket.terminate()
        })
    )
    const unsafeSend = (text: string): boolean => {
      if (closed || !socket.isOpen()) return false
      socket.send(text)
      return true
    }
    const send = (text: string): Effect.Effect<void, ClientError> =>
      Effect.suspend(() =>
        unsafeSend(text)
          ? Effect.void
          : Effect.fail(new ClientError({ reason: "closed", message: `the WebSocket to ${peer} is closed` }))
      )
    return { send, unsafeSend, incoming, peer, pid: undefined, exit: undefined }
  })
