/**
 * A transport for web pages: the browser's own `WebSocket` (no Node module is loaded), with the token
 * as the `bearer.<token>` subprotocol (a page cannot set an `Authorization` header on an upgrade).
 * The page's origin is sent by the browser: the server must allow it (`--allow-origin`).
 */
import type { Duration, Effect, Scope } from "effect"
import type { ClientError } from "./Errors.js"
import { socketTransport } from "./internal/socket.js"
import type { Transport } from "./Transport.js"

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
  socketTransport({
    peer: options.url,
    connectTimeout: options.connectTimeout,
    closeTimeout: undefined,
    open: (events) => {
      const ws =
        options.token === undefined
          ? new WebSocket(options.url)
          : new WebSocket(options.url, [bearerProtocol(options.token)])
      const failed = () => events.failed(undefined)
      ws.addEventListener("error", failed, { once: true })
      ws.addEventListener(
        "open",
        () => {
          ws.removeEventListener("error", failed)
          events.opened({
            isOpen: () => ws.readyState === WebSocket.OPEN,
            send: (text) => ws.send(text),
            close: () => ws.close(1000),
            terminate: () => ws.close()
          })
        },
        { once: true }
      )
      ws.addEventListener("close", (event) =>
        events.closed(
          `the WebSocket to ${options.url} closed (${event.code}${event.reason !== "" ? ` ${event.reason}` : ""})`
        )
      )
      ws.addEventListener("message", (event) => {
        if (typeof event.data === "string") events.message(event.data)
      })
      return () => ws.close()
    }
  })
