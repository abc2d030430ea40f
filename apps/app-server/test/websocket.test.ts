import { connect as connectTcp, type Socket } from "node:net"
import { assert, describe, it } from "@effect/vitest"
import { Effect, type Scope } from "effect"
import WebSocket from "ws"
import { freePort, start, tempDir } from "./utils/AppServerProcess.js"

type Outcome =
  | { readonly _tag: "open"; readonly ws: WebSocket }
  | { readonly _tag: "refused"; readonly status: number }
  | { readonly _tag: "dropped" }

interface Client {
  readonly ws: WebSocket
  readonly messages: Array<Record<string, unknown>>
  readonly request: (id: number, method: string, params?: unknown) => Effect.Effect<Record<string, unknown>>
  readonly waitFor: (p: (m: Record<string, unknown>) => boolean) => Effect.Effect<Record<string, unknown>>
}

const connect = (
  port: number,
  options: { protocols?: Array<string>; headers?: Record<string, string> } = {}
): Effect.Effect<Outcome, never, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.async<Outcome>((resume) => {
      const ws = new WebSocket(`ws://127.0.0.1:${port}`, options.protocols ?? [], { headers: options.headers ?? {} })
      let done = false
      const settle = (outcome: Outcome) => {
        if (done) return
        done = true
        resume(Effect.succeed(outcome))
      }
      ws.once("open", () => settle({ _tag: "open", ws }))
      ws.once("unexpected-response", (_req, res) => {
        settle({ _tag: "refused", status: res.statusCode ?? 0 })
        ws.terminate()
      })
      // Closed by the server before any HTTP answer (a connection over a cap).
      ws.once("error", () => settle({ _tag: "dropped" }))
    }).pipe(Effect.timeout("10 seconds"), Effect.orDie),
    (outcome) => Effect.sync(() => (outcome._tag === "open" ? outcome.ws.terminate() : undefined))
  )

const client = (ws: WebSocket): Client => {
  const messages: Array<Record<string, unknown>> = []
  const listeners = new Set<() => void>()
  ws.on("message", (data) => {
    messages.push(JSON.parse(String(data)) as Record<string, unknown>)
    for (const l of [...listeners]) l()
  })
  const waitFor = (p: (m: Record<string, unknown>) => boolean) =>
    Effect.async<Record<string, unknown>>((resume) => {
      const check = () => {
        const found = messages.find(p)
        if (found !== undefined) {
          listeners.delete(check)
          resume(Effect.succeed(found))
        }
      }
      listeners.add(check)
      check()
      return Effect.sync(() => listeners.delete(check))
    }).pipe(Effect.timeout("10 seconds"), Effect.orDie)
  return {
    ws,
    messages,
    waitFor,
    request: (id, method, params) =>
      Effect.zipRight(
        Effect.sync(() =>
          ws.send(JSON.stringify({ jsonrpc: "2.0", id, method, ...(params !== undefined ? { params } : {}) }))
        ),
        waitFor((m) => m.id === id)
      )
  }
}

const opened = (outcome: Outcome): Client => {
  if (outcome._tag !== "open")
    throw new Error(outcome._tag === "refused" ? `refused with ${outcome.status}` : "dropped by the server")
  return client(outcome.ws)
}

/** A TCP connection from `from` (any 127.0.0.0/8 address is this machine) that sends nothing; `closed` resolves when either side closes it. */
const silentFrom = (port: number, from: string) =>
  Effect.acquireRelease(
    Effect.async<{ readonly socket: Socket; readonly closed: Effect.Effect<void>; readonly isClosed: () => boolean }>(
      (resume) => {
        const socket = connectTcp({ port, host: "127.0.0.1", localAddress: from })
        let isClosed = false
        const closed = new Promise<void>((done) =>
          socket.once("close", () => {
            isClosed = true
            done()
          })
        )
        socket.on("error", () => {})
        socket.once("connect", () =>
          resume(
            Effect.succeed({
              socket,
              closed: Effect.promise(() => closed).pipe(Effect.timeout("10 seconds"), Effect.orDie),
              isClosed: () => isClosed
            })
          )
        )
      }
    ).pipe(Effect.timeout("10 seconds"), Effect.orDie),
    ({ socket }) => Effect.sync(() => socket.destroy())
  )

/** The number of stderr lines that match. */
const countLines = (text: string, pattern: RegExp) => text.split("\n").filter((line) => pattern.test(line)).length

const startWs = (args: Array<string>, env: Record<string, string> = {}) =>
  Effect.gen(function* () {
    const port = yield* freePort()
    const server = yield* start({
      args: ["--data-dir", tempDir(), "--no-stdio", "--listen", `ws://127.0.0.1:${port}`, ...args],
      env
    })
    yield* server.exited("300 millis").pipe(
      Effect.flip,
      Effect.orElse(() => Effect.die(new Error(`server exited: ${server.stderr()}`)))
    )
    yield* server.waitForStderr(/listening on/)
    return { port, server }
  })

describe("WebSocket transport", () => {
  it.scopedLive(
    "tokens come as a Bearer header or a bearer.<token> subprotocol; anything else is refused with 401",
    () =>
      Effect.gen(function* () {
        const { port, server } = yield* startWs(["--token-env", "APP_TOKEN"], { APP_TOKEN: "tok-123" })
        assert.deepStrictEqual(yield* connect(port), { _tag: "refused", status: 401 })
        assert.deepStrictEqual(yield* connect(port, { headers: { Authorization: "Bearer wrong" } }), {
          _tag: "refused",
          status: 401
        })
        assert.deepStrictEqual(yield* connect(port, { protocols: ["bearer.wrong"] }), { _tag: "refused", status: 401 })
        const byHeader = opened(yield* connect(port, { headers: { Authorization: "Bearer tok-123" } }))
        const init = yield* byHeader.request(1, "initialize", { clientInfo: { name: "ws" } })
        assert.strictEqual((init.result as { protocolVersion: number }).protocolVersion, 1)
        assert.strictEqual(init.jsonrpc, "2.0")
        const byProtocol = opened(yield* connect(port, { protocols: ["bearer.tok-123"] }))
        assert.strictEqual(byProtocol.ws.protocol, "bearer.tok-123")
        // initialize is per connection.
        const notYet = yield* byProtocol.request(1, "thread/list", {})
        assert.deepStrictEqual(notYet.error, { code: -32600, message: "Not initialized" })
        // --no-stdio: nothing on standard output, and the token never reaches the logs.
        assert.deepStrictEqual(server.lines, [])
        assert.notInclude(server.stderr(), "tok-123")
      })
  )

  it.scopedLive("an Origin that --allow-origin does not list is refused with 403; without any, every Origin is", () =>
    Effect.gen(function* () {
      const a = yield* startWs(["--allow-origin", "http://ok.example"])
      assert.deepStrictEqual(yield* connect(a.port, { headers: { Origin: "http://evil.example" } }), {
        _tag: "refused",
        status: 403
      })
      assert.strictEqual((yield* connect(a.port, { headers: { Origin: "http://ok.example" } }))._tag, "open")
      assert.strictEqual((yield* connect(a.port))._tag, "open")
      const b = yield* startWs([])
      assert.deepStrictEqual(yield* connect(b.port, { headers: { Origin: "http://ok.example" } }), {
        _tag: "refused",
        status: 403
      })
    })
  )

  it.scopedLive("notifications for a thread go to every connection that started or resumed it", () =>
    Effect.gen(function* () {
      const { port } = yield* startWs([])
      const a = opened(yield* connect(port))
      const b = opened(yield* connect(port))
      const c = opened(yield* connect(port))
      for (const x of [a, b, c]) yield* x.request(1, "initialize", { clientInfo: { name: "ws" } })
      const started = yield* a.request(2, "thread/start", { ephemeral: true })
      const threadId = (started.result as { thread: { id: string } }).thread.id
      yield* b.request(2, "thread/resume", { threadId })
      yield* a.request(3, "turn/start", { threadId, turnId: "t1" })
      const onB = yield* b.waitFor((m) => m.method === "turn/started")
      assert.deepStrictEqual(onB.params, { threadId, turnId: "t1" })
      assert.isDefined(a.messages.find((m) => m.method === "turn/started"))
      yield* c.request(2, "thread/list", {})
      assert.isUndefined(c.messages.find((m) => m.method === "turn/started"))
    })
  )

  it.scopedLive(
    "a peer without the token holds at most 8 places: with 20 silent connections from 127.0.0.2, a client from 127.0.0.1 is still served",
    () =>
      Effect.gen(function* () {
        // 16 places in all (--ws-max-connections): more than the 8 one address may hold while not in.
        const { port, server } = yield* startWs(
          ["--token-env", "APP_TOKEN", "--ws-max-connections", "16", "--ws-handshake-timeout", "60"],
          { APP_TOKEN: "tok-123" }
        )
        const silent = []
        for (let i = 0; i < 20; i++) silent.push(yield* silentFrom(port, "127.0.0.2"))
        // The server accepts them in the order they connected: the first 8 wait, the other 12 are refused.
        for (const held of silent.slice(8)) yield* held.closed
        assert.deepStrictEqual(
          silent.map((s) => s.isClosed()),
          [...Array<boolean>(8).fill(false), ...Array<boolean>(12).fill(true)]
        )
        const client = opened(yield* connect(port, { headers: { Authorization: "Bearer tok-123" } }))
        const init = yield* client.request(1, "initialize", { clientInfo: { name: "ws" } })
        assert.strictEqual((init.result as { protocolVersion: number }).protocolVersion, 1)
        assert.isDefined((yield* client.request(2, "thread/list", {})).result)
        assert.isFalse(silent[0]!.isClosed(), "the waiting connections are closed only by the handshake timeout")
        assert.strictEqual(
          countLines(
            server.stderr(),
            /refused a connection: too many connections from this address are waiting for their upgrade.*limit=8/
          ),
          12
        )
      })
  )

  it.scopedLive(
    "--ws-max-pending caps the connections not in yet across addresses; a connection that is in keeps being served, and places free up as they close",
    () =>
      Effect.gen(function* () {
        const { port, server } = yield* startWs(
          [
            ...["--token-env", "APP_TOKEN", "--ws-handshake-timeout", "60"],
            ...["--ws-max-pending", "3", "--ws-max-pending-per-address", "2"]
          ],
          { APP_TOKEN: "tok-123" }
        )
        const inside = opened(yield* connect(port, { headers: { Authorization: "Bearer tok-123" } }))
        yield* inside.request(1, "initialize", { clientInfo: { name: "ws" } })
        const fromTwo = [yield* silentFrom(port, "127.0.0.2"), yield* silentFrom(port, "127.0.0.2")]
        const third = yield* silentFrom(port, "127.0.0.2")
        yield* third.closed
        const fromThree = yield* silentFrom(port, "127.0.0.3")
        const overTotal = yield* silentFrom(port, "127.0.0.4")
        yield* overTotal.closed
        assert.deepStrictEqual(
          [...fromTwo, fromThree].map((s) => s.isClosed()),
          [false, false, false]
        )
        const stderr = server.stderr()
        assert.strictEqual(countLines(stderr, /too many connections from this address .*limit=2/), 1)
        assert.strictEqual(countLines(stderr, /too many connections are waiting for their upgrade.*limit=3/), 1)
        // The client that is in does not count: it is served while every pending place is taken.
        assert.isDefined((yield* inside.request(2, "thread/list", {})).result)
        // A place frees up when a waiting connection goes.
        fromTwo[0]!.socket.destroy()
        yield* fromTwo[0]!.closed
        // (the server may see the new connection before the close it was sent after: then it is dropped, and tried again)
        let next = yield* connect(port, { headers: { Authorization: "Bearer tok-123" } })
        for (let attempt = 0; next._tag === "dropped" && attempt < 50; attempt++) {
          next = yield* connect(port, { headers: { Authorization: "Bearer tok-123" } })
        }
        const after = opened(next)
        assert.isDefined((yield* after.request(1, "initialize", { clientInfo: { name: "ws" } })).result)
      })
  )
})
