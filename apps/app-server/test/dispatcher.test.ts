/**
 * The dispatcher in this process: every result is encoded through its method's result schema before
 * it is sent (a handler that builds another shape is answered `-32603` naming the method, never a
 * malformed result), and a thread's request queue lives only while a request of it is in flight.
 */
import { assert, describe, it } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import * as Connections from "../src/Connections.js"
import * as JsonRpcServer from "../src/JsonRpcServer.js"
import { method } from "../src/Method.js"
import { ThreadOwners } from "../src/ThreadOwners.js"
import { connect, startInProcess } from "./utils/InProcess.js"
import { tempDir } from "./utils/AppServerProcess.js"

process.env.MCP_RESOURCES_LOG = "error"

/** A dispatcher over the given handlers only. */
const dispatcherWith = (methods: Parameters<typeof JsonRpcServer.makeWith<never>>[0]) =>
  Effect.flatMap(Layer.build(Connections.layer), (context) => Effect.provide(JsonRpcServer.makeWith(methods), context))

describe("result encoding", () => {
  it.scopedLive("a handler whose result breaks its schema is answered -32603 naming the method and the field", () =>
    Effect.gen(function* () {
      const dispatcher = yield* dispatcherWith({
        // The cast stands for a handler bug the types did not catch (a value from an untyped source).
        "thread/list": method("thread/list", {
          run: () => Effect.succeed({ threads: [{ id: "a", ephemeral: "no", createdAt: "x" }] } as never)
        }),
        "turn/start": method("turn/start", {
          run: (p) => Effect.succeed({ turn: { id: p.turnId ?? "generated" } })
        })
      })
      const client = yield* connect(dispatcher)
      const wrong = yield* client.request("thread/list", {})
      assert.deepStrictEqual(wrong.error, {
        code: -32603,
        message:
          'internal error: the result of thread/list does not match its schema: threads[0].ephemeral: expected boolean, got "no"'
      })
      assert.isUndefined(wrong.result)
      // The connection keeps working; a right shape is answered as built.
      const right = yield* client.request("turn/start", { threadId: "t", turnId: "u" })
      assert.deepStrictEqual(right.result, { turn: { id: "u" } })
    })
  )

  it.scopedLive("fields the schema does not name are not sent, and fields go in the schema's order", () =>
    Effect.gen(function* () {
      const dispatcher = yield* dispatcherWith({
        "tool/call": method("tool/call", {
          run: (p) =>
            Effect.succeed({ success: true, output: "out", callId: p.callId, internal: 1 } as {
              callId: string
              output: string
              success: boolean
            })
        })
      })
      const client = yield* connect(dispatcher)
      yield* client.request("tool/call", { threadId: "t", turnId: "u", callId: "c", name: "n", arguments: "{}" })
      const line = JSON.stringify(client.messages.at(-1))
      assert.strictEqual(line, '{"jsonrpc":"2.0","id":"r-2","result":{"callId":"c","output":"out","success":true}}')
    })
  )
})

describe("per-thread queues", () => {
  it.scopedLive("requests naming 200 made-up thread ids are answered thread not found and leave no queue", () =>
    Effect.gen(function* () {
      const client = yield* startInProcess({ dataDir: tempDir() })
      const methods = ["turn/start", "thread/rollback", "thread/compact", "thread/delete", "tool/call"] as const
      const ids: Array<string> = []
      for (let i = 0; i < 200; i++) {
        const threadId = `made-up-${i}`
        const params =
          methods[i % methods.length] === "thread/rollback"
            ? { threadId, numTurns: 1 }
            : { threadId, turnId: "t", callId: `c${i}`, name: "x", arguments: "{}" }
        ids.push(yield* client.send(methods[i % methods.length]!, params))
      }
      for (const [i, id] of ids.entries()) {
        const answer = yield* client.waitFor((m) => m.id === id, `answer ${i}`)
        assert.deepStrictEqual(answer.error, { code: -32600, message: `thread not found: made-up-${i}` })
      }
      assert.strictEqual(yield* client.dispatcher.queuedThreads, 0)
    })
  )
})

describe("requests a thread owns (ThreadOwners.ts)", () => {
  it.scopedLive(
    "with thread owners, an owned request goes to them and others run here; runOwned checks, runs in the thread's queue and encodes like a client's request",
    () =>
      Effect.gen(function* () {
        const sent: Array<{ method: string; threadId: string }> = []
        // owners that run every request here (as the owner of every thread would) and note what they were given
        const owners = ThreadOwners.of({
          run: (request, here) =>
            Effect.zipRight(
              Effect.sync(() => sent.push({ method: request.method, threadId: request.threadId })),
              here
            )
        })
        const methods = {
          "turn/start": method("turn/start", {
            ordering: "exclusive",
            threadId: (p) => p.threadId,
            owner: (p) => p.threadId,
            run: (p) => Effect.succeed({ turn: { id: p.turnId ?? "generated" }, internal: 1 } as never)
          }),
          "thread/list": method("thread/list", { run: () => Effect.succeed({ threads: [] }) })
        }
        const dispatcher = yield* Effect.flatMap(Layer.build(Connections.layer), (context) =>
          Effect.provide(JsonRpcServer.makeWith(methods), Context.add(context, ThreadOwners, owners))
        )
        const client = yield* connect(dispatcher)
        const turn = yield* client.request("turn/start", { threadId: "t1", turnId: "u" })
        assert.deepStrictEqual(turn.result, { turn: { id: "u" } })
        yield* client.request("thread/list", {})
        assert.deepStrictEqual(sent, [{ method: "turn/start", threadId: "t1" }])

        // what another instance sends this one, the owner: the result encoded (fields the schema does
        // not name left out), and the errors a client would get
        const connection = yield* Effect.flatMap(Connections.Connections, (c) => c.open("owner", () => {})).pipe(
          Effect.provide(Connections.layer)
        )
        assert.deepStrictEqual(yield* dispatcher.runOwned("turn/start", { threadId: "t1", turnId: "v" }, connection), {
          turn: { id: "v" }
        })
        assert.deepStrictEqual(yield* Effect.flip(dispatcher.runOwned("turn/begin", {}, connection)), {
          code: -32601,
          message: "Method not found: turn/begin"
        })
        const invalid = yield* Effect.flip(dispatcher.runOwned("turn/start", { turnId: "v" }, connection))
        assert.strictEqual(invalid.code, -32600)
        assert.match(invalid.message, /^Invalid request: .*threadId/)
        assert.strictEqual(yield* dispatcher.queuedThreads, 0)
      })
  )
})
