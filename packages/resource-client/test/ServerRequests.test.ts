/**
 * Server requests answered by the host: `elicitation/create` of an `initialize`-era server (form and
 * URL mode) goes to the host's handler with the server's name, the params and the context of the call
 * it came during; the default declines; the tool timeout is paused while the host answers; a
 * 2026-07-28 `input_required` read is fulfilled through the same handler and retried, and without a
 * handler (or on a threadless connection) it fails as before.
 */
import { assert, describe, it } from "@effect/vitest"
import { elicitationCommand, elicitationForm, elicitationReadUri } from "@mcp-resources/fixtures"
import { Config, type Mcp } from "@mcp-resources/protocol"
import { Effect, Either, Layer, TestClock } from "effect"
import { McpTransport, ResourceClient, type ServerEntry, ServerRequests } from "../src/index.js"

const entry = (name: string, kind: "v1" | "v2", toolTimeoutSec = 30): ServerEntry.ServerEntry => ({
  name,
  transport: { _tag: "stdio", ...elicitationCommand(kind), env: {} },
  enabled: true,
  startupTimeoutSec: 60,
  toolTimeoutSec,
  maxMessageBytes: 67108864,
  ...(kind === "v2" ? { protocolVersion: "2026-07-28" as const } : {})
})

const startClient = (servers: ReadonlyArray<ServerEntry.ServerEntry>, handlers?: ServerRequests.Service) =>
  Effect.gen(function* () {
    const client = yield* ResourceClient.make({ config: Config.empty, servers })
    yield* Effect.flatMap(client.latest, (set) => set.awaitAllSettled)
    return client
  }).pipe(
    Effect.provide(
      handlers === undefined ? McpTransport.layer : Layer.merge(McpTransport.layer, ServerRequests.layer(handlers))
    )
  )

const textOf = (result: Mcp.CallToolResult | Mcp.ReadResourceResult): string => {
  const items = ("content" in result ? result.content : result.contents) as ReadonlyArray<{ text?: string }>
  return items.map((item) => item.text ?? "").join("")
}

describe("ServerRequests", () => {
  it.scopedLive("without a handler every elicitation is declined, as before", () =>
    Effect.gen(function* () {
      const client = yield* startClient([entry("ask", "v1")])
      const result = yield* client.callTool("ask", "ask_form")
      assert.strictEqual(textOf(result), `form: {"action":"decline"}`)
    })
  )

  it.scopedLive(
    "a form elicitation reaches the handler with the server, params and call context; its content goes back",
    () =>
      Effect.gen(function* () {
        const seen: Array<ServerRequests.ElicitationRequest> = []
        const client = yield* startClient([entry("ask", "v1")], {
          elicitation: {
            handle: (request) =>
              Effect.sync(() => {
                seen.push(request)
                return { action: "accept", content: { name: "Grace" } }
              })
          }
        })
        const result = yield* client
          .callTool("ask", "ask_form")
          .pipe(ServerRequests.withContext({ threadId: "th-1", turnId: "t1", callId: "c1" }))
        assert.strictEqual(textOf(result), `form: {"action":"accept","content":{"name":"Grace"}}`)
        assert.strictEqual(seen.length, 1)
        assert.strictEqual(seen[0]!.server, "ask")
        assert.strictEqual(seen[0]!.params.message, elicitationForm.message)
        assert.deepStrictEqual(seen[0]!.params.requestedSchema, elicitationForm.requestedSchema)
        assert.deepStrictEqual(seen[0]!.context, { threadId: "th-1", turnId: "t1", callId: "c1" })
        // outside any context the request names no thread
        yield* client.callTool("ask", "ask_form")
        assert.deepStrictEqual(seen[1]!.context, {})
      })
  )

  it.scopedLive("decline and cancel go back as they are; a failing handler declines", () =>
    Effect.gen(function* () {
      const answers: Array<Effect.Effect<ServerRequests.ElicitationResult>> = [
        Effect.succeed({ action: "decline" }),
        Effect.succeed({ action: "cancel" }),
        Effect.die("handler bug")
      ]
      const client = yield* startClient([entry("ask", "v1")], {
        elicitation: { handle: () => answers.shift()! }
      })
      assert.strictEqual(textOf(yield* client.callTool("ask", "ask_form")), `form: {"action":"decline"}`)
      assert.strictEqual(textOf(yield* client.callTool("ask", "ask_form")), `form: {"action":"cancel"}`)
      assert.strictEqual(textOf(yield* client.callTool("ask", "ask_form")), `form: {"action":"decline"}`)
    })
  )

  it.scopedLive("URL mode is declared only when the handler takes it", () =>
    Effect.gen(function* () {
      const modes: Array<unknown> = []
      const handle = (request: ServerRequests.ElicitationRequest) =>
        Effect.sync((): ServerRequests.ElicitationResult => {
          modes.push(request.params.mode)
          return { action: "accept" }
        })
      const formOnly = yield* startClient([entry("ask", "v1")], { elicitation: { handle } })
      const refused = textOf(yield* formOnly.callTool("ask", "ask_url"))
      assert.match(refused, /^error: .*url/i)
      assert.deepStrictEqual(modes, [])
      const withUrl = yield* startClient([entry("ask", "v1")], { elicitation: { url: true, handle } })
      assert.strictEqual(textOf(yield* withUrl.callTool("ask", "ask_url")), `url: {"action":"accept"}`)
      assert.deepStrictEqual(modes, ["url"])
    })
  )

  it.scoped("the tool timeout is paused while the host answers (TestClock)", () =>
    Effect.gen(function* () {
      const client = yield* startClient([entry("ask", "v1", 1)], {
        elicitation: {
          // the user takes 10 s: far over the call's 1 s tool timeout
          handle: () => Effect.as(TestClock.adjust("10 seconds"), { action: "accept", content: { name: "Slow" } })
        }
      })
      const result = yield* client.callTool("ask", "ask_form").pipe(ServerRequests.withContext({ threadId: "th-1" }))
      assert.strictEqual(textOf(result), `form: {"action":"accept","content":{"name":"Slow"}}`)
    })
  )

  it.scopedLive("on the live clock too, the tool timeout is paused while the host answers", () =>
    Effect.gen(function* () {
      const client = yield* startClient([entry("ask", "v1", 1)], {
        elicitation: {
          // 1.5 s of real time: over the call's 1 s tool timeout
          handle: () => Effect.as(Effect.sleep("1500 millis"), { action: "accept", content: { name: "Slow" } })
        }
      })
      const result = yield* client.callTool("ask", "ask_form").pipe(ServerRequests.withContext({ threadId: "th-1" }))
      assert.strictEqual(textOf(result), `form: {"action":"accept","content":{"name":"Slow"}}`)
    })
  )

  it.scopedLive("an input_required read is fulfilled through the handler and retried with the answer and state", () =>
    Effect.gen(function* () {
      const contexts: Array<ServerRequests.RequestContext> = []
      const client = yield* startClient([entry("v2", "v2")], {
        elicitation: {
          handle: (request) =>
            Effect.sync(() => {
              contexts.push(request.context)
              return { action: "accept", content: { name: "Grace" } }
            })
        }
      })
      const read = yield* client
        .readResource("v2", elicitationReadUri)
        .pipe(ServerRequests.withContext({ threadId: "th-2", callId: "c2" }))
      assert.strictEqual(textOf(read), `answer: {"action":"accept","content":{"name":"Grace"}} state: s1`)
      assert.deepStrictEqual(contexts, [{ threadId: "th-2", callId: "c2" }])
    })
  )

  it.scopedLive("without a handler, and on a threadless connection, an input_required read fails as before", () =>
    Effect.gen(function* () {
      const expected =
        "resources/read needs input the client cannot provide yet: the server asked for name (elicitation/create)"
      const plain = yield* startClient([entry("v2", "v2")])
      const failed = yield* Effect.either(plain.readResource("v2", elicitationReadUri))
      assert.isTrue(Either.isLeft(failed) && failed.left.message.endsWith(expected))
      const handled = yield* startClient([entry("v2", "v2")], {
        elicitation: { handle: () => Effect.succeed({ action: "accept", content: { name: "x" } }) }
      })
      const threadless = yield* Effect.either(
        handled.withServerConnection("v2", (connection) => connection.readResource(elicitationReadUri))
      )
      assert.isTrue(Either.isLeft(threadless) && threadless.left.message.endsWith(expected))
    })
  )
})
