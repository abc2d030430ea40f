/**
 * Hardening of the app-server's transports and dispatcher (issue 16: items 3, 4, 5, 8, 9, 14, 15, 16,
 * 21): WebSocket exhaustion without the token (connection cap, handshake, ping and idle timeouts),
 * clients that send but never read (stdio and WebSocket), frames refused as their header arrives,
 * binary frames, requests after SIGTERM on stdio, duplicate in-flight ids, deeply nested tool
 * arguments, config errors that would echo a secret, and `wss://`. Loopback only; every limit is set
 * small through its flag so that nothing waits out a default.
 */
import { execFileSync } from "node:child_process"
import { readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import WebSocket from "ws"
import { afterAll, describe, expect, it } from "vitest"
import { AppServerProcess, Figures, Misbehave } from "../src/index.js"
import { tempDir, writeConfig } from "./utils/app.js"
import {
  closeCodeOf,
  frameHeader,
  listeningPort,
  openRaw,
  openUpgraded,
  type RawSocket,
  stderrCount,
  stderrMatching,
  upgradeRequest,
  within
} from "./utils/sockets.js"

const section = "transport"
const temps: Array<{ remove: () => void }> = []
const temp = (prefix: string): string => {
  const dir = tempDir(prefix)
  temps.push(dir)
  return dir.dir
}
const apps: Array<AppServerProcess.AppServer> = []
const sockets: Array<RawSocket> = []
const clients: Array<WebSocket> = []

afterAll(async () => {
  for (const raw of sockets) raw.socket.destroy()
  for (const ws of clients) ws.terminate()
  await Promise.all(apps.map((app) => app.close("SIGTERM", 3_000)))
  for (const dir of temps) dir.remove()
})

/** Starts an app-server with info logs (the `listening on` line, the shutdown line). */
const startApp = async (options: AppServerProcess.StartOptions): Promise<AppServerProcess.AppServer> => {
  const app = await AppServerProcess.start({ ...options, env: { MCP_RESOURCES_LOG: "info", ...options.env } })
  apps.push(app)
  return app
}

/** A WebSocket-only app-server on an ephemeral loopback port. */
const startWs = async (args: ReadonlyArray<string>, config?: string, env?: Record<string, string>) => {
  const app = await startApp({
    dataDir: temp("ws"),
    ...(config !== undefined ? { config } : {}),
    ...(env !== undefined ? { env } : {}),
    args: ["--listen", "ws://127.0.0.1:0", "--no-stdio", ...args]
  })
  return { app, port: await listeningPort(app) }
}

/** A JSON-RPC client over `ws`. */
interface Client {
  readonly ws: WebSocket
  readonly request: (method: string, params?: unknown, ms?: number) => Promise<Record<string, unknown>>
  readonly send: (id: string, method: string, params?: unknown) => void
  readonly closed: Promise<{ code: number; reason: string }>
}

const openClient = (url: string, options: WebSocket.ClientOptions = {}): Promise<Client> =>
  within(
    new Promise<Client>((resolve, reject) => {
      const ws = new WebSocket(url, options)
      clients.push(ws)
      const waiters = new Map<string, (m: Record<string, unknown>) => void>()
      let next = 1
      const closed = new Promise<{ code: number; reason: string }>((done) =>
        ws.once("close", (code, reason) => done({ code, reason: reason.toString() }))
      )
      ws.on("message", (data) => {
        const message = JSON.parse(String(data)) as Record<string, unknown>
        const waiter = typeof message.id === "string" ? waiters.get(message.id) : undefined
        if (waiter !== undefined && message.method === undefined) waiter(message)
      })
      ws.once("error", reject)
      const send = (id: string, method: string, params?: unknown) =>
        ws.send(JSON.stringify({ id, method, ...(params !== undefined ? { params } : {}) }))
      const request = (method: string, params?: unknown, ms = 10_000) => {
        const id = `c-${next++}`
        const answer = new Promise<Record<string, unknown>>((done) => waiters.set(id, done))
        send(id, method, params)
        return within(answer, ms, `the answer to ${method}`)
      }
      ws.once("open", () => resolve({ ws, request, send, closed }))
    }),
    10_000,
    `opening ${url}`
  )

const initialized = async (url: string, options: WebSocket.ClientOptions = {}): Promise<Client> => {
  const client = await openClient(url, options)
  const init = await client.request("initialize", { clientInfo: { name: "transport" } }, 20_000)
  expect(init.error, JSON.stringify(init)).toBeUndefined()
  return client
}

const rss = (app: AppServerProcess.AppServer): number => Math.round((app.rssKiB() ?? 0) / 1024)

describe("WebSocket exhaustion without the token", () => {
  it("connections over --ws-max-connections are dropped on arrival with a log line, and the cap frees up as sockets close", async () => {
    const cap = 8
    const { app, port } = await startWs(["--ws-max-connections", String(cap), "--ws-handshake-timeout", "60"])
    const silent: Array<RawSocket> = []
    for (let i = 0; i < cap + 4; i++) {
      const raw = await openRaw(port)
      sockets.push(raw)
      silent.push(raw)
    }
    // The 4 over the cap are closed by the server at once; the first `cap` stay (the handshake timeout is long).
    const dropped = silent.slice(cap)
    await within(Promise.all(dropped.map((raw) => raw.closed)), 10_000, "the connections over the cap to be closed")
    await stderrMatching(app, /(?:refused a connection: the connection limit is reached[\s\S]*){4}/)
    expect(silent.slice(0, cap).filter((raw) => raw.isClosed())).toEqual([])
    // A real client is refused as well while the silent sockets hold every place.
    await expect(openClient(`ws://127.0.0.1:${port}`)).rejects.toThrow()
    for (const raw of silent) raw.socket.destroy()
    // Once they are gone, a client gets in (the server counts a close as it processes it).
    let client: Client | undefined
    for (let attempt = 0; attempt < 50 && client === undefined; attempt++) {
      client = await openClient(`ws://127.0.0.1:${port}`).catch(() => undefined)
      if (client === undefined) await new Promise((resolve) => setTimeout(resolve, 100))
    }
    expect(client).toBeDefined()
    const init = await client!.request("initialize", { clientInfo: { name: "after-cap" } })
    expect(init.result).toBeDefined()
    const refused = stderrCount(app, /refused a connection: the connection limit is reached/)
    expect(refused).toBeGreaterThanOrEqual(5)
    Figures.add(section, {
      "cases connection cap": 1,
      [`silent sockets opened with a cap of ${cap}`]: cap + 4,
      "sockets refused over the cap (log lines)": refused
    })
  }, 60_000)

  it("a peer without the token that keeps reopening silent connections from 127.0.0.2 holds 8 places; clients from 127.0.0.1 are served all along", async () => {
    const token = "pending-token-value"
    const { app, port } = await startWs(
      ["--token-env", "RELIABILITY_TOKEN", "--ws-handshake-timeout", "1"],
      undefined,
      {
        RELIABILITY_TOKEN: token
      }
    )
    const rounds = 3
    const perRound = 130
    let served = 0
    for (let round = 0; round < rounds; round++) {
      // Every round the peer opens 130: more than the 128 places of --ws-max-connections.
      const opened: Array<RawSocket> = []
      for (let i = 0; i < perRound; i++) {
        const raw = await openRaw(port, "127.0.0.2")
        sockets.push(raw)
        opened.push(raw)
      }
      const client = await initialized(`ws://127.0.0.1:${port}`, { headers: { Authorization: `Bearer ${token}` } })
      expect((await client.request("thread/list", {})).result).toBeDefined()
      served++
      client.ws.close()
      // The ones over the cap are closed at once; the 8 that wait go with the handshake timeout (1 s).
      await within(Promise.all(opened.map((raw) => raw.closed)), 10_000, "every silent connection to be closed")
    }
    // Every round, all but the 8 that waited were refused, each with its log line.
    const refused = rounds * (perRound - 8)
    await app.waitForStderr(/too many connections from this address are waiting for their upgrade/, refused, 10_000)
    Figures.add(section, {
      "cases pre-auth slot holding (silent connections reopened from one address)": 1,
      "silent connections opened from 127.0.0.2": rounds * perRound,
      "of them refused over --ws-max-pending-per-address (8)": refused,
      "clients from 127.0.0.1 served meanwhile": served
    })
    Figures.note(
      section,
      `pre-auth slot holding: ${rounds} rounds of ${perRound} silent connections from 127.0.0.2 (each round after the last one's were closed); ${refused} refused on arrival over --ws-max-pending-per-address 8, the rest closed by the handshake timeout; a client from 127.0.0.1 with the token was served in every round (before: 128 silent connections kept every client out)`
    )
  }, 90_000)

  it("silent sockets and half-sent upgrades are closed after --ws-handshake-timeout; silent WebSockets after a missed ping or the idle timeout", async () => {
    const { app, port } = await startWs([
      "--ws-handshake-timeout",
      "0.5",
      "--ws-ping-interval",
      "0.3",
      "--ws-idle-timeout",
      "1"
    ])
    // A client that answers pings (ws does) but sends nothing: closed by the idle timeout, not the ping.
    const idle = await openClient(`ws://127.0.0.1:${port}`)
    const started = Date.now()
    const silent = await Promise.all([0, 1, 2, 3].map(() => openRaw(port)))
    const halfSent = await openRaw(port)
    halfSent.socket.write(upgradeRequest(port).slice(0, 60))
    // A socket that completed the upgrade and then never answers a ping.
    const noPong = await openUpgraded(port)
    sockets.push(...silent, halfSent, noPong)
    await within(
      Promise.all([...silent, halfSent].map((raw) => raw.closed)),
      10_000,
      "silent sockets closed by the handshake timeout"
    )
    const handshakeMs = Date.now() - started
    await within(noPong.closed, 10_000, "the WebSocket that never answers pings to be closed")
    const pingMs = Date.now() - started
    const idleClose = await within(idle.closed, 10_000, "the idle WebSocket to be closed")
    const idleMs = Date.now() - started
    expect(idleClose).toEqual({ code: 1000, reason: "idle timeout" })
    expect(stderrCount(app, /closed a connection: no WebSocket upgrade within the handshake timeout/)).toBe(5)
    expect(stderrCount(app, /closed a connection: no pong within the ping interval/)).toBe(1)
    expect(stderrCount(app, /closed a connection: idle timeout/)).toBe(1)
    // The listener still serves a client that behaves.
    const client = await initialized(`ws://127.0.0.1:${port}`)
    expect((await client.request("thread/list", {})).result).toBeDefined()
    Figures.add(section, {
      "cases handshake, ping and idle timeouts": 3,
      "sockets closed by the handshake timeout (0.5 s)": 5,
      "WebSockets closed for a missed pong (0.3 s interval)": 1,
      "WebSockets closed by the idle timeout (1 s)": 1
    })
    Figures.note(
      section,
      `timeouts: silent sockets closed ${handshakeMs} ms after opening (--ws-handshake-timeout 0.5), a WebSocket that never answers pings after ${pingMs} ms (--ws-ping-interval 0.3), an idle one after ${idleMs} ms (--ws-idle-timeout 1); on main all stayed open past 5 minutes`
    )
  }, 60_000)
})

describe("WebSocket frames", () => {
  it("a frame announcing 20 MiB is refused with 1009 as its header arrives, a binary frame with 1003, and the server keeps serving", async () => {
    const { app, port } = await startWs([])
    const before = rss(app)
    const raw = await openUpgraded(port)
    sockets.push(raw)
    raw.socket.write(frameHeader(1, 20 * 1024 * 1024))
    // Only 64 KiB of the announced 20 MiB follow: the server must not wait for the rest.
    raw.socket.write(Buffer.alloc(64 * 1024, 0x20))
    await within(raw.closed, 10_000, "the connection of the oversized frame to be closed")
    expect(closeCodeOf(raw.received())).toBe(1009)
    await stderrMatching(app, /closed a connection: frame over the 8 MiB limit/)
    const after = rss(app)
    const binary = await initialized(`ws://127.0.0.1:${port}`)
    binary.ws.send(Buffer.from(JSON.stringify({ id: "b", method: "thread/list", params: {} })), { binary: true })
    expect(await within(binary.closed, 10_000, "the binary frame's connection to be closed")).toEqual({
      code: 1003,
      reason: "text frames only"
    })
    await stderrMatching(app, /closed a connection: binary frame \(text frames only\)/)
    const client = await initialized(`ws://127.0.0.1:${port}`)
    expect((await client.request("thread/list", {})).result).toBeDefined()
    Figures.add(section, { "cases oversized frame header (20 MiB announced)": 1, "cases binary frame": 1 })
    Figures.note(
      section,
      `frames: a 20 MiB frame header closed with 1009 after 64 KiB of it; RSS ${before} MiB before, ${after} MiB after (the former 64 MiB limit waited for the rest of the frame)`
    )
    expect(after - before).toBeLessThan(16)
  }, 60_000)
})

/** A config with one server, `big`, whose every read answers `bytes` bytes. */
const bigReadsConfig = (dir: string, bytes: number): string =>
  writeConfig(dir, { big: { ...Misbehave.command("oversized", { bytes }), extra: "max_message_bytes = 67108864" } })

const readParams = (threadId: string) => ({ threadId, server: "big", uri: "bad://big" })

describe("clients that send but never read", () => {
  const limit = 4 * 1024 * 1024
  const reads = 64
  const bytes = 512 * 1024

  it("a WebSocket client over --max-send-buffer is closed with a log line, and the server keeps serving a client that reads", async () => {
    const dir = temp("slow-ws")
    const { app, port } = await startWs(["--max-send-buffer", String(limit)], bigReadsConfig(dir, bytes))
    const reader = await initialized(`ws://127.0.0.1:${port}`)
    const thread = (await reader.request("thread/start", { ephemeral: true })).result as { thread: { id: string } }
    // One read answered whole proves the server and the resource.
    const first = await reader.request("mcp/resource/read", readParams(thread.thread.id), 20_000)
    expect(first.error, JSON.stringify(first).slice(0, 300)).toBeUndefined()
    const before = rss(app)
    const slow = await initialized(`ws://127.0.0.1:${port}`)
    const slowThread = (await slow.request("thread/start", { ephemeral: true })).result as { thread: { id: string } }
    slow.ws.pause()
    for (let i = 0; i < reads; i++) slow.send(`slow-${i}`, "mcp/resource/read", readParams(slowThread.thread.id))
    await stderrMatching(app, /closed a connection: the client is not reading \(send buffer over the limit\)/, 30_000)
    const atClose = rss(app)
    // The server is still whole for the client that reads.
    const again = await reader.request("mcp/resource/read", readParams(thread.thread.id), 20_000)
    expect(again.error).toBeUndefined()
    const after = rss(app)
    Figures.add(section, { "cases slow WebSocket reader": 1 })
    Figures.note(
      section,
      `slow WebSocket reader: ${reads} reads of ${bytes / 1024} KiB never read, closed over --max-send-buffer ${limit / 1024 / 1024} MiB; RSS ${before} MiB before, ${atClose} MiB at the close, ${after} MiB after one more read (what remains is garbage not yet collected: nothing is queued for a closed connection; issue 16 measured +600 MiB for 1,000 reads of 1 MiB on the unbounded buffer)`
    )
  }, 90_000)

  it("a stdio client over --max-send-buffer stops the server with a log line instead of buffering without bound", async () => {
    const dir = temp("slow-stdio")
    const app = await AppServerProcess.startInitialized({
      config: bigReadsConfig(dir, bytes),
      dataDir: dir,
      args: ["--max-send-buffer", String(limit)]
    })
    apps.push(app)
    const thread = (await app.request("thread/start", { ephemeral: true })).result as { thread: { id: string } }
    const first = await app.request("mcp/resource/read", readParams(thread.thread.id), 20_000)
    expect(first.error).toBeUndefined()
    const before = rss(app)
    let peak = before
    const sampler = setInterval(() => {
      peak = Math.max(peak, rss(app))
    }, 50)
    try {
      app.child.stdout!.pause()
      for (let i = 0; i < reads; i++) app.send("mcp/resource/read", readParams(thread.thread.id))
      const exit = await within(app.exited, 30_000, "the stdio server to stop")
      expect(exit.code).toBe(0)
    } finally {
      clearInterval(sampler)
    }
    expect(app.stderr()).toMatch(/standard output is not being read \(send buffer over the limit\); stopping/)
    Figures.add(section, { "cases slow stdio reader": 1 })
    Figures.note(
      section,
      `slow stdio reader: ${reads} reads of ${bytes / 1024} KiB never read; the server stopped over --max-send-buffer ${limit / 1024 / 1024} MiB; RSS ${before} MiB before, peak ${peak} MiB until the exit (issue 16 measured +600 MiB, still rising, without the cap)`
    )
  }, 90_000)
})

describe("the dispatcher over stdio", () => {
  it("deep tool arguments, a secret in a bad config, a duplicate in-flight id and requests after SIGTERM", async () => {
    const dir = temp("dispatch")
    const hang = Misbehave.command("hang")
    const config = writeConfig(dir, { bad: hang })
    const app = await AppServerProcess.startInitialized({ config, dataDir: dir, env: { MCP_RESOURCES_LOG: "info" } })
    apps.push(app)
    const threadId = ((await app.request("thread/start", {})).result!.thread as { id: string }).id
    await app.request("turn/start", { threadId, turnId: "t1" })
    const call = (callId: string, args: string) =>
      ({ threadId, turnId: "t1", callId, name: "mcp__bad__work", arguments: args }) as const

    // Item 8: arguments nested 5,000 deep are a model-facing failure, not -32603 stack overflow.
    const depth = 5000
    const deep = await app.request("tool/call", call("deep", `{"a":${'{"a":'.repeat(depth)}1${"}".repeat(depth)}}`))
    expect(deep.error, JSON.stringify(deep.error)).toBeUndefined()
    expect(deep.result).toEqual({
      callId: "deep",
      output: "failed to parse function arguments: arguments are nested deeper than 128 levels",
      success: false
    })

    // Item 14: a bad `env` or `http_headers` value is named by key and type, never shown.
    const secret = "s3cr3t-token-value"
    for (const [extra, key] of [
      [`env = { TOKEN = ["${secret}"] }`, "mcp_servers.bad.env.TOKEN"],
      [`env = "TOKEN=${secret}"`, "mcp_servers.bad.env"]
    ] as const) {
      writeConfig(dir, { bad: { ...hang, extra } })
      const reload = await app.request("config/mcpServer/reload", {}, 20_000)
      expect(reload.error?.code).toBe(-32603)
      expect(reload.error?.message).toContain(key)
      expect(reload.error?.message).toContain("(the value is not shown)")
      expect(reload.error?.message).not.toContain(secret)
    }
    const headers = join(dir, "headers.toml")
    writeFileSync(
      headers,
      `[mcp_servers.remote]\nurl = "http://127.0.0.1:9/mcp"\nhttp_headers = "Authorization: Bearer ${secret}"\n`
    )
    const refused = await AppServerProcess.start({ config: headers, dataDir: temp("headers") })
    apps.push(refused)
    expect((await within(refused.exited, 20_000, "a bad config to stop the server")).code).toBe(1)
    expect(refused.stderr()).toContain("mcp_servers.remote.http_headers")
    expect(refused.stderr()).not.toContain(secret)
    writeConfig(dir, { bad: hang })
    expect((await app.request("config/mcpServer/reload", {}, 20_000)).result).toEqual({})

    // Item 15: a second request with the id of one in flight is -32600 naming the id; the cancel
    // reaches the first.
    await app.write(`${JSON.stringify({ id: "dup", method: "tool/call", params: call("c-dup", "{}") })}\n`)
    await app.waitFor((m) => m.method === "item/started" && m.params?.item?.id === "c-dup")
    await app.write(`${JSON.stringify({ id: "dup", method: "thread/list", params: {} })}\n`)
    const duplicate = await app.waitFor((m) => m.id === "dup" && m.method === undefined)
    expect(duplicate.error).toEqual({
      code: -32600,
      message: 'Invalid request: id "dup" is already used by a request in flight'
    })
    await app.write(`${JSON.stringify({ method: "$/cancelRequest", params: { id: "dup" } })}\n`)
    const cancelled = await app.waitFor((m) => m.id === "dup" && m.error?.code === -32800)
    expect(cancelled.error?.message).toBe("Request cancelled")
    expect(app.messages.filter((m) => m.id === "dup" && m.method === undefined)).toHaveLength(2)

    // Item 9: a call in flight holds the shutdown open; requests sent after SIGTERM are answered.
    const held = app.send("tool/call", call("c-held", "{}"))
    await app.waitFor((m) => m.method === "item/started" && m.params?.item?.id === "c-held")
    const stoppedAt = Date.now()
    app.child.kill("SIGTERM")
    await stderrMatching(app, /shutting down/)
    const late = await app.request("thread/list", {}, 10_000)
    const answeredMs = Date.now() - stoppedAt
    expect(late.error).toEqual({ code: -32603, message: "server shutting down" })
    expect((await app.response(held, 15_000)).error).toEqual({ code: -32603, message: "server shutting down" })
    expect((await within(app.exited, 15_000, "the server to exit")).code).toBe(0)
    Figures.add(section, {
      "cases deep tool arguments (5,000 levels)": 1,
      "cases config errors with a secret value": 3,
      "cases duplicate in-flight id": 1,
      "cases requests after SIGTERM (stdio)": 1
    })
    Figures.note(
      section,
      `after SIGTERM on stdio, a request was answered \`server shutting down\` ${answeredMs} ms after the signal while a call held the 5 s drain (before: never answered)`
    )
  }, 90_000)
})

describe("wss:// and remote binds", () => {
  it("serves wss:// with --tls-cert/--tls-key on loopback, and refuses a remote ws:// without --allow-insecure-remote", async () => {
    const dir = temp("tls")
    const cert = join(dir, "cert.pem")
    const key = join(dir, "key.pem")
    execFileSync(
      "openssl",
      [
        ...["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=127.0.0.1"],
        ...["-addext", "subjectAltName=IP:127.0.0.1", "-keyout", key, "-out", cert]
      ],
      { stdio: "ignore", timeout: 30_000 }
    )
    const token = "wss-token-value"
    const app = await startApp({
      dataDir: dir,
      args: [
        ...["--listen", "wss://127.0.0.1:0", "--no-stdio", "--tls-cert", cert, "--tls-key", key],
        ...["--token-env", "RELIABILITY_TOKEN", "--ws-max-pending-per-address", "2"]
      ],
      env: { RELIABILITY_TOKEN: token }
    })
    const port = await listeningPort(app)
    const client = await initialized(`wss://127.0.0.1:${port}`, {
      ca: readFileSync(cert),
      headers: { Authorization: `Bearer ${token}` }
    })
    expect((await client.request("thread/list", {})).result).toBeDefined()
    // A TLS client that is in no longer counts as waiting: more clients than the per-address cap get in.
    for (let i = 0; i < 3; i++) {
      const more = await initialized(`wss://127.0.0.1:${port}`, {
        ca: readFileSync(cert),
        headers: { Authorization: `Bearer ${token}` }
      })
      expect((await more.request("thread/list", {})).result).toBeDefined()
    }
    // Silent connections (no TLS handshake) count from their first byte: 2 wait, the third is refused.
    const silent = [
      await openRaw(port, "127.0.0.2"),
      await openRaw(port, "127.0.0.2"),
      await openRaw(port, "127.0.0.2")
    ]
    sockets.push(...silent)
    await within(silent[2]!.closed, 10_000, "the silent TLS connection over the per-address cap to be closed")
    expect(silent.map((raw) => raw.isClosed())).toEqual([false, false, true])
    await stderrMatching(app, /too many connections from this address are waiting for their upgrade.*limit=2/)
    // A plain ws:// client gets no WebSocket from the TLS listener.
    await expect(
      openClient(`ws://127.0.0.1:${port}`, { headers: { Authorization: `Bearer ${token}` } })
    ).rejects.toThrow()
    expect(app.stderr()).not.toContain(token)

    const remote = await AppServerProcess.start({
      dataDir: temp("remote"),
      args: ["--listen", "ws://0.0.0.0:0", "--no-stdio", "--allow-remote", "--token-env", "RELIABILITY_TOKEN"],
      env: { RELIABILITY_TOKEN: token }
    })
    apps.push(remote)
    const exit = await within(remote.exited, 20_000, "a remote ws:// to be refused")
    expect(exit.code).toBe(2)
    const first = remote.stderr().trim().split("\n")[0] ?? ""
    expect(first).toMatch(/token in clear over the network; serve wss:\/\/ .*--allow-insecure-remote/)
    Figures.add(section, {
      "cases wss:// on loopback": 1,
      "cases wss:// pending caps (TLS clients in, silent TLS connections)": 1,
      "cases remote ws:// refused": 1
    })
    Figures.note(section, `\`--listen ws://0.0.0.0:0 --allow-remote\` → exit ${exit.code}: ${first.slice(0, 160)}`)
  }, 60_000)
})
