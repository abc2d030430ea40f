import { createServer } from "node:net"
import { assert, describe, it } from "@effect/vitest"
import { Effect, type Scope } from "effect"
import WebSocket from "ws"
import { start, tempDir } from "./utils/AppServerProcess.js"

const freePort = Effect.async<number>((resume) => {
  const server = createServer()
  server.listen(0, "127.0.0.1", () => {
    const address = server.address()
    const port = typeof address === "object" && address !== null ? address.port : 0
    server.close(() => resume(Effect.succeed(port)))
  })
})

type Outcome = { readonly _tag: "open"; readonly ws: WebSocket } | { readonly _tag: "refused"; readonly status: number }

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
      ws.once("open", () => resume(Effect.succeed({ _tag: "open", ws })))
      ws.once("unexpected-response", (_req, res) => {
        resume(Effect.succeed({ _tag: "refused", status: res.statusCode ?? 0 }))
        ws.terminate()
      })
      ws.once("error", () => {})
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
  if (outcome._tag !== "open") throw new Error(`refused with ${outcome.status}`)
  return client(outcome.ws)
}

const startWs = (args: Array<string>, env: Record<string, string> = {}) =>
  Effect.gen(function* () {
    const port = yield* freePort
    const server = yield* start({
      args: ["--data-dir", tempDir(), "--no-stdio", "--listen", `ws://127.0.0.1:${port}`, ...args],
      env
    })
    yield* server.exited("300 millis").pipe(
      Effect.flip,
      Effect.orElse(() => Effect.die(new Error(`server exited: ${server.stderr()}`)))
    )
    for (let i = 0; i < 100 && !server.stderr().includes("listening on"); i++) yield* Effect.sleep("50 millis")
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
})
