/**
 * JSON-RPC over WebSocket (one message per text frame) with the security rules of
 * app-server-protocol.md section 1: an `Origin` must be allowed by `--allow-origin` (else HTTP 403 at
 * the upgrade) and, with `--token-env`, the token must come as `Authorization: Bearer <token>` or as
 * the subprotocol `bearer.<token>` (else 401), compared in constant time. `wss://` serves TLS.
 *
 * Limits that hold before any token is checked (docs/app-server-security.md): a connection cap, caps
 * on the connections that have not completed an authenticated upgrade (in all and per address), a
 * handshake timeout, pings and an optional idle timeout, a send-buffer cap, frames refused past 8 MiB
 * as their header arrives, and binary frames refused. Every refusal or close is logged.
 *
 * A plain `GET` of the path of `[oauth] redirect_url` is a browser's OAuth redirect, answered with a
 * page (OAuthLogins.ts `redirected`: only the `state` of a login in progress completes anything); any
 * other plain request gets `426 Upgrade Required`.
 */
import { createHash, timingSafeEqual } from "node:crypto"
import * as NodeFs from "node:fs"
import type { IncomingMessage, Server, ServerResponse } from "node:http"
import { createServer } from "node:http"
import { createServer as createTlsServer } from "node:https"
import type { Socket } from "node:net"
import type { Duplex } from "node:stream"
import { Data, Duration, Effect, FiberSet, Layer, Option, Queue, Redacted, Runtime, Schedule } from "effect"
import { WebSocket, WebSocketServer } from "ws"
import { AppOptions, type ServerOptions } from "./AppOptions.js"
import { JsonRpcServer, maxMessageBytes } from "./JsonRpcServer.js"
import { OAuthLogins } from "./OAuthLogins.js"

/** The WebSocket listener could not start. */
export class ListenError extends Data.TaggedError("ListenError")<{ readonly message: string }> {}

/** The subprotocol prefix that carries a bearer token. */
export const bearerProtocolPrefix = "bearer."

/** Frames above this size (the 8 MiB message limit) close the connection with 1009 as their header arrives. */
export const maxFrameBytes = maxMessageBytes

/** WebSocket close codes the server uses. */
export const closeCodes = {
  /** A binary frame: only text frames carry JSON-RPC. */
  unsupportedData: 1003,
  /** A frame over {@link maxFrameBytes} (sent by `ws` itself). */
  messageTooBig: 1009,
  /** The idle timeout passed. */
  idle: 1000
} as const

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

/**
 * The HTTP(S) server of the listener: plain for `ws://`, TLS for `wss://` (the TLS handshake timed like
 * the upgrade). A plain request is `answer`ed (the OAuth redirect of `[oauth] redirect_url`,
 * OAuthLogins.ts) or refused with `426 Upgrade Required`.
 */
const makeHttpServer = (
  options: ServerOptions,
  answer: (url: URL) => Promise<{ readonly status: number; readonly html: string } | undefined>
): Effect.Effect<Server, ListenError> =>
  Effect.gen(function* () {
    const upgradeRequired = (request: IncomingMessage, response: ServerResponse) => {
      const refuse = () => response.writeHead(426, { "Content-Type": "text/plain" }).end("Upgrade Required")
      if (request.method !== "GET") return refuse()
      answer(new URL(request.url ?? "/", "http://listener")).then(
        (page) =>
          page === undefined
            ? refuse()
            : response
                .writeHead(page.status, {
                  "Content-Type": "text/html; charset=utf-8",
                  "Cache-Control": "no-store",
                  Connection: "close"
                })
                .end(page.html),
        () => response.writeHead(500, { "Content-Type": "text/plain" }).end("Internal Server Error")
      )
    }
    if (options.listen?.secure !== true || options.tls === undefined) return createServer(upgradeRequired)
    const tls = options.tls
    const files = yield* Effect.try({
      try: () => ({ cert: NodeFs.readFileSync(tls.certPath), key: NodeFs.readFileSync(tls.keyPath) }),
      catch: (error) =>
        new ListenError({
          message: `cannot read --tls-cert or --tls-key: ${error instanceof Error ? error.message : String(error)}`
        })
    })
    return yield* Effect.try({
      try: (): Server =>
        createTlsServer({ ...files, handshakeTimeout: options.limits.handshakeTimeoutMs }, upgradeRequired),
      catch: (error) =>
        new ListenError({
          message: `invalid --tls-cert or --tls-key: ${error instanceof Error ? error.message : String(error)}`
        })
    })
  })

/**
 * The connections that have not completed an authenticated upgrade ("pending": in their TCP or TLS
 * handshake, sending the upgrade request, or refused and closing), counted in all and per peer
 * address, apart from the connections that are in. A connection over either cap is refused on
 * arrival, so that a peer without the token cannot hold the places of the clients that have it.
 * A TLS connection is counted from its first byte: the raw socket and the TLS socket over it are the
 * same peer address and port.
 */
export const makePendingCaps = (limits: { readonly maxPending: number; readonly maxPendingPerAddress: number }) => {
  const pending = new Map<string, { readonly address: string }>()
  const byAddress = new Map<string, number>()
  const keyOf = (socket: Partial<Socket>): string | undefined =>
    socket.remoteAddress === undefined ? undefined : `${socket.remoteAddress} ${socket.remotePort ?? ""}`
  const release = (key: string, entry: { readonly address: string }) => {
    if (pending.get(key) !== entry) return
    pending.delete(key)
    const left = (byAddress.get(entry.address) ?? 1) - 1
    if (left === 0) byAddress.delete(entry.address)
    else byAddress.set(entry.address, left)
  }
  return {
    /** Counts a new connection as pending until it closes or {@link upgraded}; else the cap that refuses it. */
    admit: (socket: Socket): "total" | "address" | undefined => {
      const key = keyOf(socket)
      const address = socket.remoteAddress
      // Already gone (reset before this event): nothing to hold.
      if (key === undefined || address === undefined) return undefined
      if (pending.size >= limits.maxPending) return "total"
      if ((byAddress.get(address) ?? 0) >= limits.maxPendingPerAddress) return "address"
      const entry = { address }
      pending.set(key, entry)
      byAddress.set(address, (byAddress.get(address) ?? 0) + 1)
      socket.once("close", () => release(key, entry))
      return undefined
    },
    /** The connection completed an authenticated upgrade: it is in, and no longer pending. */
    upgraded: (socket: Duplex) => {
      const key = keyOf(socket as Partial<Socket>)
      const entry = key === undefined ? undefined : pending.get(key)
      if (key !== undefined && entry !== undefined) release(key, entry)
    },
    /** How many connections are pending now. */
    size: () => pending.size
  }
}

/** `host:port` of a socket's peer, for log lines. */
const peerOf = (socket: Duplex): string => {
  const s = socket as Partial<Socket>
  return s.remoteAddress === undefined ? "unknown" : `${s.remoteAddress}:${s.remotePort ?? "?"}`
}

/** Listens on `--listen` until the layer closes; on close, in-flight requests are drained first. */
export const layer: Layer.Layer<never, ListenError, JsonRpcServer | AppOptions> = Layer.scopedDiscard(
  Effect.gen(function* () {
    const options = yield* AppOptions
    const server = yield* JsonRpcServer
    const listen = options.listen
    if (listen === undefined) return
    const limits = options.limits
    const scheme = listen.secure ? "wss" : "ws"
    const gate = makeGate({
      token: options.token === undefined ? undefined : Redacted.value(options.token),
      allowOrigins: options.allowOrigins
    })
    const run = yield* FiberSet.makeRuntime<never>()
    const log = (message: string, annotations: Record<string, unknown> = {}) => {
      run(Effect.logWarning(message).pipe(Effect.annotateLogs(annotations)))
    }
    const wss = new WebSocketServer({
      noServer: true,
      maxPayload: maxFrameBytes,
      handleProtocols: (protocols) => gate.selectProtocol(protocols)
    })
    // the OAuth redirect of `[oauth] redirect_url`, completed by this app-server's logins
    const logins = yield* Effect.serviceOption(OAuthLogins)
    const runtime = yield* Effect.runtime<never>()
    const answer = (url: URL) =>
      Option.isNone(logins)
        ? Promise.resolve(undefined)
        : Runtime.runPromise(runtime, Effect.map(logins.value.redirected(url), Option.getOrUndefined))
    const http = yield* makeHttpServer(options, answer)
    // Every TCP connection counts, handshaking or open; one over the cap is closed by Node on arrival.
    http.maxConnections = limits.maxConnections
    http.on("drop", (data?: { readonly remoteAddress?: string; readonly remotePort?: number }) =>
      log("refused a connection: the connection limit is reached", {
        peer: `${data?.remoteAddress ?? "unknown"}:${data?.remotePort ?? "?"}`,
        limit: limits.maxConnections
      })
    )
    // Connections that are not in yet have caps of their own (counted from the TCP connection, before
    // any TLS handshake): a peer without the token holds at most that many places.
    const pending = makePendingCaps(limits)
    http.on("connection", (socket: Socket) => {
      const refused = pending.admit(socket)
      if (refused === undefined) return
      log(
        refused === "total"
          ? "refused a connection: too many connections are waiting for their upgrade"
          : "refused a connection: too many connections from this address are waiting for their upgrade",
        {
          peer: peerOf(socket),
          limit: refused === "total" ? limits.maxPending : limits.maxPendingPerAddress
        }
      )
      socket.destroy()
    })
    // A connection that has not sent its upgrade request within the handshake timeout is closed (a TLS
    // connection's own handshake is timed by the TLS server with the same value).
    const handshakes = new Map<Duplex, NodeJS.Timeout>()
    const endHandshake = (socket: Duplex) => {
      const timer = handshakes.get(socket)
      if (timer === undefined) return
      clearTimeout(timer)
      handshakes.delete(socket)
    }
    http.on(listen.secure ? "secureConnection" : "connection", (socket: Socket) => {
      const timer = setTimeout(() => {
        handshakes.delete(socket)
        log("closed a connection: no WebSocket upgrade within the handshake timeout", {
          peer: peerOf(socket),
          timeoutMs: limits.handshakeTimeoutMs
        })
        socket.destroy()
      }, limits.handshakeTimeoutMs)
      handshakes.set(socket, timer)
      socket.once("close", () => endHandshake(socket))
    })
    let next = 1
    const serve = (ws: WebSocket) =>
      Effect.scoped(
        Effect.gen(function* () {
          const label = `ws#${next++}`
          const frames = yield* Queue.unbounded<string>()
          const closed = yield* Queue.unbounded<void>()
          const closeWith = (message: string, close: () => void, annotations: Record<string, unknown> = {}) => {
            if (ws.readyState !== WebSocket.OPEN) return
            log(message, { connection: label, ...annotations })
            close()
          }
          // Any frame or pong since the last ping proves the peer alive; a message either way since the
          // last idle check proves the connection in use.
          let heard = true
          let active = true
          ws.on("message", (data, isBinary) => {
            if (ws.readyState !== WebSocket.OPEN) return
            heard = true
            active = true
            if (isBinary) {
              return closeWith("closed a connection: binary frame (text frames only)", () =>
                ws.close(closeCodes.unsupportedData, "text frames only")
              )
            }
            frames.unsafeOffer(toBuffer(data).toString("utf8"))
          })
          ws.on("pong", () => {
            heard = true
          })
          ws.on("close", () => closed.unsafeOffer(undefined))
          ws.on("error", (error: Error & { code?: string }) => {
            // `ws` has already sent its close frame (1009 for an oversized frame): release the socket now.
            log(
              error.code === "WS_ERR_UNSUPPORTED_MESSAGE_LENGTH"
                ? "closed a connection: frame over the 8 MiB limit"
                : "closed a connection: WebSocket protocol error",
              { connection: label, error: error.message }
            )
            ws.terminate()
            closed.unsafeOffer(undefined)
          })
          yield* Effect.addFinalizer(() => Effect.sync(() => ws.close()))
          const session = yield* server.attach(label, (text) => {
            if (ws.readyState !== WebSocket.OPEN) return
            // A client that does not read: what is still unsent is over the cap, so the connection goes
            // (its requests are interrupted and everything it held is released).
            if (ws.bufferedAmount > limits.maxSendBufferBytes) {
              return closeWith(
                "closed a connection: the client is not reading (send buffer over the limit)",
                () => ws.terminate(),
                { unsentBytes: ws.bufferedAmount, limit: limits.maxSendBufferBytes }
              )
            }
            active = true
            ws.send(text)
          })
          yield* Effect.logDebug("connection opened").pipe(Effect.annotateLogs({ connection: label }))
          if (limits.pingIntervalMs > 0) {
            const ping = Effect.sync(() => {
              if (!heard) {
                return closeWith("closed a connection: no pong within the ping interval", () => ws.terminate(), {
                  intervalMs: limits.pingIntervalMs
                })
              }
              heard = false
              if (ws.readyState === WebSocket.OPEN) ws.ping()
            })
            yield* Effect.forkScoped(
              Effect.repeat(ping, Schedule.spaced(Duration.millis(limits.pingIntervalMs))).pipe(
                Effect.delay(Duration.millis(limits.pingIntervalMs))
              )
            )
          }
          if (limits.idleTimeoutMs > 0) {
            // Closed after between one and two timeouts without a message either way.
            const check = Effect.sync(() => {
              if (active) {
                active = false
                return
              }
              closeWith("closed a connection: idle timeout", () => ws.close(closeCodes.idle, "idle timeout"), {
                timeoutMs: limits.idleTimeoutMs
              })
            })
            const every = Duration.millis(limits.idleTimeoutMs)
            yield* Effect.forkScoped(Effect.repeat(check, Schedule.spaced(every)).pipe(Effect.delay(every)))
          }
          const loop = Effect.forever(Effect.flatMap(Queue.take(frames), session.receive))
          yield* Effect.raceFirst(loop, Queue.take(closed))
        })
      )
    http.on("upgrade", (request: IncomingMessage, socket: Duplex, head: Buffer) => {
      endHandshake(socket)
      const refusal = gate.check(request)
      if (refusal !== undefined) return refuse(socket, refusal)
      wss.handleUpgrade(request, socket, head, (ws) => {
        pending.upgraded(socket)
        run(serve(ws))
      })
    })
    yield* Effect.acquireRelease(
      Effect.async<void, ListenError>((resume) => {
        const onError = (error: Error) =>
          resume(
            Effect.fail(
              new ListenError({
                message: `cannot listen on ${scheme}://${listen.host}:${listen.port}: ${error.message}`
              })
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
          for (const timer of handshakes.values()) clearTimeout(timer)
          handshakes.clear()
          for (const client of wss.clients) client.terminate()
          wss.close()
          http.close(() => resume(Effect.void))
          http.closeAllConnections()
        })
    )
    const address = http.address()
    const port = typeof address === "object" && address !== null ? address.port : listen.port
    yield* Effect.logInfo(
      `listening on ${scheme}://${listen.host.includes(":") ? `[${listen.host}]` : listen.host}:${port}`
    )
    // Runs before the connections close: in-flight requests still get their answers.
    yield* Effect.addFinalizer(() => server.shutdown)
  })
)
