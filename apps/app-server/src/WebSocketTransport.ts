/**
 * JSON-RPC over WebSocket (one message per text frame) with the security rules of
 * app-server-protocol.md section 1: an `Origin` must be allowed by `--allow-origin` (else HTTP 403 at
 * the upgrade) and, with `--token-env`, the token must come as `Authorization: Bearer <token>` or as
 * the subprotocol `bearer.<token>` (else 401), compared in constant time.
 */
import { createHash, timingSafeEqual } from "node:crypto"
import type { IncomingMessage } from "node:http"
import { createServer } from "node:http"
import type { Duplex } from "node:stream"
import { Data, Effect, FiberSet, Layer, Queue } from "effect"
import { WebSocket, WebSocketServer } from "ws"
import { AppOptions } from "./AppOptions.js"
import { JsonRpcServer, maxMessageBytes } from "./JsonRpcServer.js"

/** The WebSocket listener could not start. */
export class ListenError extends Data.TaggedError("ListenError")<{ readonly message: string }> {}

/** The subprotocol prefix that carries a bearer token. */
export const bearerProtocolPrefix = "bearer."

/** Frames above this size close the connection (frames over 8 MiB but under it are answered `Request too large`). */
export const maxFrameBytes = 64 * 1024 * 1024

const digest = (s: string): Buffer => createHash("sha256").update(s, "utf8").digest()

/** The upgrade checks: `undefined` accepts, a status refuses. */
export const makeGate = (options: {
  readonly token: string | undefined
  readonly allowOrigins: ReadonlyArray<string>
}) => {
  const expected = options.token === undefined ? undefined : digest(options.token)
  const tokenMatches = (candidate: string): boolean =>
    expected !== undefined && timingSafeEqual(digest(candidate), expected)
  const offeredProtocols = (request: IncomingMessage): Array<string> =>
    (request.headers["sec-websocket-protocol"] ?? "")
      .split(",")
      .map((p) => p.trim())
      .filter((p) => p !== "")
  return {
    check: (request: IncomingMessage): 401 | 403 | undefined => {
      const origin = request.headers.origin
      if (origin !== undefined && !options.allowOrigins.includes(origin)) return 403
      if (expected === undefined) return undefined
      const auth = /^Bearer\s+(.+)$/i.exec(request.headers.authorization ?? "")
      if (auth !== null && tokenMatches(auth[1]!.trim())) return undefined
      const viaProtocol = offeredProtocols(request).some(
        (p) => p.startsWith(bearerProtocolPrefix) && tokenMatches(p.slice(bearerProtocolPrefix.length))
      )
      return viaProtocol ? undefined : 401
    },
    /** Selects the `bearer.<token>` subprotocol the client offered (the one that authenticated it), if any. */
    selectProtocol: (protocols: Set<string>): string | false => {
      for (const p of protocols) {
        if (
          p.startsWith(bearerProtocolPrefix) &&
          (expected === undefined || tokenMatches(p.slice(bearerProtocolPrefix.length)))
        ) {
          return p
        }
      }
      return false
    }
  }
}

const refuse = (socket: Duplex, status: 401 | 403) => {
  const text = status === 401 ? "Unauthorized" : "Forbidden"
  socket.end(
    `HTTP/1.1 ${status} ${text}\r\nConnection: close\r\nContent-Type: text/plain\r\nContent-Length: ${text.length}\r\n\r\n${text}`
  )
  socket.destroy()
}

const toBuffer = (data: WebSocket.RawData): Buffer =>
  Buffer.isBuffer(data) ? data : Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data)

/** Listens on `--listen` until the layer closes; on close, in-flight requests are drained first. */
export const layer: Layer.Layer<never, ListenError, JsonRpcServer | AppOptions> = Layer.scopedDiscard(
  Effect.gen(function* () {
    const options = yield* AppOptions
    const server = yield* JsonRpcServer
    const listen = options.listen
    if (listen === undefined) return
    const gate = makeGate({
      token: options.tokenEnv === undefined ? undefined : process.env[options.tokenEnv],
      allowOrigins: options.allowOrigins
    })
    const run = yield* FiberSet.makeRuntime<never>()
    const wss = new WebSocketServer({
      noServer: true,
      maxPayload: maxFrameBytes,
      handleProtocols: (protocols) => gate.selectProtocol(protocols)
    })
    const http = createServer((_request, response) => {
      response.writeHead(426, { "Content-Type": "text/plain" }).end("Upgrade Required")
    })
    let next = 1
    const serve = (ws: WebSocket) =>
      Effect.scoped(
        Effect.gen(function* () {
          const label = `ws#${next++}`
          const frames = yield* Queue.unbounded<string | undefined>()
          const closed = yield* Queue.unbounded<void>()
          ws.on("message", (data) => {
            const buf = toBuffer(data)
            frames.unsafeOffer(buf.length > maxMessageBytes ? undefined : buf.toString("utf8"))
          })
          ws.on("close", () => closed.unsafeOffer(undefined))
          ws.on("error", () => closed.unsafeOffer(undefined))
          yield* Effect.addFinalizer(() => Effect.sync(() => ws.close()))
          const session = yield* server.attach(label, (text) => {
            if (ws.readyState === WebSocket.OPEN) ws.send(text)
          })
          yield* Effect.logDebug("connection opened").pipe(Effect.annotateLogs({ connection: label }))
          const loop = Effect.forever(
            Effect.flatMap(Queue.take(frames), (text) =>
              text === undefined ? session.tooLarge : session.receive(text)
            )
          )
          yield* Effect.raceFirst(loop, Queue.take(closed))
        })
      )
    http.on("upgrade", (request: IncomingMessage, socket: Duplex, head: Buffer) => {
      const refusal = gate.check(request)
      if (refusal !== undefined) return refuse(socket, refusal)
      wss.handleUpgrade(request, socket, head, (ws) => {
        run(serve(ws))
      })
    })
    yield* Effect.acquireRelease(
      Effect.async<void, ListenError>((resume) => {
        const onError = (error: Error) =>
          resume(
            Effect.fail(
              new ListenError({ message: `cannot listen on ws://${listen.host}:${listen.port}: ${error.message}` })
            )
          )
        http.once("error", onError)
        http.listen(listen.port, listen.host, () => {
          http.off("error", onError)
          resume(Effect.void)
        })
      }),
      () =>
        Effect.async<void>((resume) => {
          for (const client of wss.clients) client.terminate()
          wss.close()
          http.close(() => resume(Effect.void))
          http.closeAllConnections()
        })
    )
    const address = http.address()
    const port = typeof address === "object" && address !== null ? address.port : listen.port
    yield* Effect.logInfo(`listening on ws://${listen.host.includes(":") ? `[${listen.host}]` : listen.host}:${port}`)
    // Runs before the connections close: in-flight requests still get their answers.
    yield* Effect.addFinalizer(() => server.shutdown)
  })
)
