/**
 * A transport for web pages: the browser's own `WebSocket` (no Node module is loaded), with the token
 * as the `bearer.<token>` subprotocol (a page cannot set an `Authorization` header on an upgrade).
 * The page's origin is sent by the browser: the server must allow it (`--allow-origin`).
 */
import { Deferred, Duration, Effect, Queue, type Scope } from "effect"
import { ClientError } from "./Errors.js"
import type { Incoming, Transport } from "./Transport.js"

/** Options of {@link browserWebSocket}. */
export interface BrowserWebSocketOptions {
  /** `ws://HOST:PORT` or `wss://HOST:PORT`. */
  readonly url: string
  /** The server's token, offered as the subprotocol `bearer.<token>`. */
  readonly token?: string
  /** How long the connection may take to open (default 10 s). */
  readonly connectTimeout?: Duration.DurationInput
}

/** The subprotocol that carries a bearer token. */
export const bearerProtocol = (token: string): string => `bearer.${token}`

/** Opens the browser's WebSocket to the app-server: one JSON-RPC message per text frame; closing the scope closes it. */
export const browserWebSocket = (
  options: BrowserWebSocketOptions
): Effect.Effect<Transport, ClientError, Scope.Scope> =>
  Effect.gen(function* () {
    const incoming = yield* Queue.unbounded<Incoming>()
    const closedSignal = yield* Deferred.make<void>()
    const peer = options.url
    let closed = false
    const close = (reason: string) => {
      if (!closed) {
        closed = true
        incoming.unsafeOffer({ _tag: "closed", reason })
      }
      Deferred.unsafeDone(closedSignal, Effect.void)
    }
    const socket = yield* Effect.acquireRelease(
      Effect.async<WebSocket, ClientError>((resume) => {
        const ws =
          options.token === undefined
            ? new WebSocket(options.url)
            : new WebSocket(options.url, [bearerProtocol(options.token)])
        const failed = () =>
          resume(Effect.fail(new ClientError({ reason: "transport", message: `cannot connect to ${peer}` })))
        ws.addEventListener("error", failed, { once: true })
        ws.addEventListener(
          "open",
          () => {
            ws.removeEventListener("error", failed)
            resume(Effect.succeed(ws))
          },
          { once: true }
        )
        ws.addEventListener("close", (event) =>
          close(`the WebSocket to ${peer} closed (${event.code}${event.reason !== "" ? ` ${event.reason}` : ""})`)
        )
        ws.addEventListener("message", (event) => {
          if (!closed && typeof event.data === "string") incoming.unsafeOffer({ _tag: "message", text: event.data })
        })
        return Effect.sync(() => ws.close())
      }).pipe(
        Effect.timeoutFail({
          duration: options.connectTimeout ?? Duration.seconds(10),
          onTimeout: () =>
            new ClientError({ reason: "transport", message: `${peer} did not accept the connection in time` })
        })
      ),
      (ws) =>
        Effect.gen(function* () {
          if (closed) return
          ws.close(1000)
          yield* Deferred.await(closedSignal).pipe(Effect.timeout(Duration.seconds(5)), Effect.ignore)
        })
    )
    const unsafeSend = (text: string): boolean => {
      if (closed || socket.readyState !== WebSocket.OPEN) return false
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
