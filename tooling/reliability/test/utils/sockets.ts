/** Raw loopback sockets for the transport tests: silent TCP, half-sent upgrades, raw WebSocket frames. */
import { connect, type Socket } from "node:net"
import type { AppServerProcess } from "../../src/index.js"

/** Rejects after `ms` with `what`, unless `promise` settles first. */
export const within = <A>(promise: Promise<A>, ms: number, what: string): Promise<A> =>
  new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms: ${what}`)), ms)
    promise.then(
      (value) => {
        clearTimeout(timer)
        resolve(value)
      },
      (error: unknown) => {
        clearTimeout(timer)
        reject(error)
      }
    )
  })

/** A connected TCP socket that records what it receives and when it closes. */
export interface RawSocket {
  readonly socket: Socket
  /** Every byte received so far. */
  readonly received: () => Buffer
  /** Resolves when the socket closed (either side). */
  readonly closed: Promise<void>
  readonly isClosed: () => boolean
}

/** Opens a TCP connection to `127.0.0.1:port` (from `from`, another 127.0.0.0/8 address, when given) and sends nothing. */
export const openRaw = (port: number, from?: string): Promise<RawSocket> =>
  new Promise((resolve, reject) => {
    const socket = connect({ port, host: "127.0.0.1", ...(from !== undefined ? { localAddress: from } : {}) })
    const chunks: Array<Buffer> = []
    let isClosed = false
    const closed = new Promise<void>((done) =>
      socket.once("close", () => {
        isClosed = true
        done()
      })
    )
    socket.on("data", (chunk: Buffer) => chunks.push(chunk))
    // A reset by the server is a close like any other here.
    socket.on("error", () => {})
    socket.once("connect", () =>
      resolve({ socket, received: () => Buffer.concat(chunks), closed, isClosed: () => isClosed })
    )
    socket.once("error", reject)
  })

/** The upgrade request of a WebSocket client, without any token. */
export const upgradeRequest = (port: number): string =>
  [
    "GET / HTTP/1.1",
    `Host: 127.0.0.1:${port}`,
    "Upgrade: websocket",
    "Connection: Upgrade",
    "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==",
    "Sec-WebSocket-Version: 13",
    "",
    ""
  ].join("\r\n")

/** Opens a WebSocket by hand (a raw socket that completed the upgrade), so that frames can be forged. */
export const openUpgraded = async (port: number): Promise<RawSocket> => {
  const raw = await openRaw(port)
  raw.socket.write(upgradeRequest(port))
  await within(
    new Promise<void>((resolve, reject) => {
      const check = () => {
        const text = raw.received().toString("latin1")
        if (text.includes("\r\n\r\n")) {
          raw.socket.off("data", check)
          if (text.startsWith("HTTP/1.1 101")) resolve()
          else reject(new Error(`upgrade refused: ${text.split("\r\n")[0]}`))
        }
      }
      raw.socket.on("data", check)
      check()
    }),
    10_000,
    "the upgrade answer"
  )
  return raw
}

/** The header of a masked client frame (`opcode` 1 text, 2 binary) announcing `length` payload bytes. */
export const frameHeader = (opcode: number, length: number): Buffer => {
  const header = Buffer.alloc(14)
  header[0] = 0x80 | opcode
  header[1] = 0x80 | 127
  header.writeBigUInt64BE(BigInt(length), 2)
  header.writeUInt32BE(0x01020304, 10)
  return header
}

/** The close code of the first close frame (opcode 8) the server sent after its upgrade answer, if any. */
export const closeCodeOf = (received: Buffer): number | undefined => {
  const end = received.indexOf("\r\n\r\n")
  let at = end < 0 ? 0 : end + 4
  while (at + 2 <= received.length) {
    const opcode = received[at]! & 0x0f
    let length = received[at + 1]! & 0x7f
    let start = at + 2
    if (length === 126) {
      length = received.readUInt16BE(at + 2)
      start = at + 4
    } else if (length === 127) {
      length = Number(received.readBigUInt64BE(at + 2))
      start = at + 10
    }
    if (opcode === 8) return length >= 2 ? received.readUInt16BE(start) : undefined
    at = start + length
  }
  return undefined
}

/** Resolves once the app-server's standard error matches `pattern` (already or later). */
export const stderrMatching = (app: AppServerProcess.AppServer, pattern: RegExp, ms = 10_000): Promise<string> =>
  within(
    new Promise<string>((resolve) => {
      const check = () => {
        const match = pattern.exec(app.stderr())
        if (match === null) return false
        app.child.stderr!.off("data", onData)
        resolve(match[0])
        return true
      }
      const onData = () => {
        // The harness's own listener has appended the chunk by the time this one runs.
        check()
      }
      if (!check()) app.child.stderr!.on("data", onData)
    }),
    ms,
    `stderr matching ${pattern}; stderr: ${app.stderr().slice(-1500)}`
  )

/** How many times `pattern` occurs in the app-server's standard error. */
export const stderrCount = (app: AppServerProcess.AppServer, pattern: RegExp): number =>
  app.stderr().match(new RegExp(pattern.source, "g"))?.length ?? 0

/** The port of a server started with `--listen ws(s)://127.0.0.1:0` (from its `listening on` line). */
export const listeningPort = async (app: AppServerProcess.AppServer): Promise<number> => {
  const line = await stderrMatching(app, /listening on wss?:\/\/127\.0\.0\.1:(\d+)/, 20_000)
  return Number(/:(\d+)$/.exec(line)![1])
}
