/**
 * MCP servers' elicitation forwarded to the client (server-requests.md), end to end: the app-server
 * as a child process over WebSocket, typed clients from `@mcp-resources/app-server-client` answering
 * `mcpServer/elicitation/request`, and the fixture MCP servers of `@mcp-resources/fixtures` (a v1 SDK
 * server whose tools elicit, a 2026-07-28 v2 SDK server whose read is answered `input_required`).
 */
import { assert, describe, it } from "@effect/vitest"
import { AppServerClient, Errors } from "@mcp-resources/app-server-client"
import {
  elicitationCommand,
  elicitationForm,
  elicitationReadUri,
  elicitationUrl,
  elicitationUrlReadUri,
  elicitationUrlV2
} from "@mcp-resources/fixtures"
import { Deferred, Effect, Exit, Schedule, Scope } from "effect"
import { freePort, start, tempDir, writeConfig } from "./utils/AppServerProcess.js"

type Params = AppServerClient.ServerRequestParams<"mcpServer/elicitation/request">
type Answer = Effect.Effect<AppServerClient.ServerRequestResult<"mcpServer/elicitation/request">, Errors.ResponseError>

/** Starts the app-server over WebSocket with the two fixture servers and `[mcp]` settings. */
const startServer = (mcp: Record<string, unknown> = {}, toolTimeoutSec = 60) =>
  Effect.gen(function* () {
    const port = yield* freePort()
    const dir = tempDir()
    const config = writeConfig(dir, {
      mcp_servers: {
        ask: { ...elicitationCommand("v1"), tool_timeout_sec: toolTimeoutSec },
        v2: { ...elicitationCommand("v2"), protocol_version: "2026-07-28" }
      },
      mcp
    })
    yield* start({
      args: ["--config", config, "--data-dir", dir, "--no-stdio", "--listen", `ws://127.0.0.1:${port}`]
    })
    return `ws://127.0.0.1:${port}`
  })

/**
 * A typed client on its own scope (closing it closes the connection), initialized; with `answer` it
 * declares `mcpServer/elicitation/request` and answers each one with it; `modes` are its declared
 * `elicitationModes` (absent: none declared, form only).
 */
const connect = (url: string, answer?: (params: Params) => Answer, modes?: ReadonlyArray<"form" | "url">) =>
  Effect.gen(function* () {
    const scope = yield* Scope.make()
    yield* Effect.addFinalizer(() => Scope.close(scope, Exit.void))
    const options = {
      ...(answer === undefined
        ? {}
        : { serverRequests: AppServerClient.serverRequestHandlers({ "mcpServer/elicitation/request": answer }) }),
      ...(modes === undefined ? {} : { elicitationModes: modes })
    }
    // the listener comes up shortly after the process starts: retry the connection (bounded)
    const client = yield* AppServerClient.webSocket({ url }, options).pipe(
      Scope.extend(scope),
      Effect.retry(Schedule.intersect(Schedule.spaced("50 millis"), Schedule.recurs(200))),
      Effect.orDie
    )
    const init = yield* Effect.orDie(client.initialize({ name: "elicitation-test" }))
    return { client, scope, init }
  })

type Client = AppServerClient.Service

const startThread = (client: Client) =>
  Effect.gen(function* () {
    const { thread } = yield* client.request("thread/start", {})
    yield* client.request("turn/start", { threadId: thread.id, turnId: "t1" })
    return thread.id
  }).pipe(Effect.orDie)

const askForm = (client: Client, threadId: string, callId: string) =>
  client
    .request("tool/call", { threadId, turnId: "t1", callId, name: "mcp__ask__ask_form", arguments: "{}" })
    .pipe(Effect.orDie)

const askUrl = (client: Client, threadId: string, callId: string) =>
  client
    .request("tool/call", { threadId, turnId: "t1", callId, name: "mcp__ask__ask_url", arguments: "{}" })
    .pipe(Effect.orDie)

const readConsent = (client: Client, threadId: string) =>
  Effect.orDie(client.request("mcp/resource/read", { threadId, server: "v2", uri: elicitationUrlReadUri }))

const consentText = (read: { readonly contents: ReadonlyArray<unknown> }) =>
  (read.contents[0] as { readonly text?: string } | undefined)?.text

const accepted = `form: {"action":"accept","content":{"name":"Grace"}}`
const declined = `form: {"action":"decline"}`

/** The fixture's text as it appears in a tool call's output (JSON-escaped inside the output). */
const shows = (output: string, text: string) =>
  output.includes(text) || output.includes(JSON.stringify(text).slice(1, -1))

describe("mcpServer/elicitation/request", () => {
  it.scopedLive("the client's accept with content reaches the MCP server; the tool result shows it", () =>
    Effect.gen(function* () {
      const url = yield* startServer()
      const seen: Array<Params> = []
      const { client, init } = yield* connect(url, (params) => {
        seen.push(params)
        return Effect.succeed({ action: "accept", content: { name: "Grace" } })
      })
      assert.deepStrictEqual(init.capabilities?.serverRequests, ["mcpServer/elicitation/request"])
      const threadId = yield* startThread(client)
      const result = yield* askForm(client, threadId, "c1")
      assert.isTrue(shows(result.output, accepted), result.output)
      assert.strictEqual(seen.length, 1)
      assert.strictEqual(seen[0]!.threadId, threadId)
      assert.strictEqual(seen[0]!.server, "ask")
      assert.strictEqual(seen[0]!.callId, "c1")
      assert.strictEqual(seen[0]!.turnId, "t1")
      assert.strictEqual(seen[0]!.params.message, elicitationForm.message)
      assert.deepStrictEqual(seen[0]!.params.requestedSchema, elicitationForm.requestedSchema)
    })
  )

  it.scopedLive("decline and cancel go back as they are; an error answer is a decline", () =>
    Effect.gen(function* () {
      const url = yield* startServer()
      const answers: Array<Answer> = [
        Effect.succeed({ action: "decline" }),
        Effect.succeed({ action: "cancel" }),
        Effect.fail(
          new Errors.ResponseError({ method: "mcpServer/elicitation/request", code: -32603, message: "no UI" })
        )
      ]
      const { client } = yield* connect(url, () => answers.shift()!)
      const threadId = yield* startThread(client)
      assert.isTrue(shows((yield* askForm(client, threadId, "c1")).output, declined))
      assert.isTrue(shows((yield* askForm(client, threadId, "c2")).output, `form: {"action":"cancel"}`))
      assert.isTrue(shows((yield* askForm(client, threadId, "c3")).output, declined))
    })
  )

  it.scopedLive(
    "no answer within elicitation_timeout_sec is a decline; the wait does not count against tool_timeout_sec",
    () =>
      Effect.gen(function* () {
        // the call's tool timeout (1 s) is shorter than the elicitation wait (2 s): the call still completes
        const url = yield* startServer({ elicitation_timeout_sec: 2 }, 1)
        const cancelled = yield* Deferred.make<void>()
        const { client } = yield* connect(url, () =>
          Effect.never.pipe(Effect.onInterrupt(() => Deferred.succeed(cancelled, undefined)))
        )
        const threadId = yield* startThread(client)
        const result = yield* askForm(client, threadId, "c1")
        assert.isTrue(result.success)
        assert.isTrue(shows(result.output, declined), result.output)
        // the server withdrew its request ($/cancelRequest interrupted the handler)
        yield* Deferred.await(cancelled).pipe(Effect.timeout("10 seconds"), Effect.orDie)
      })
  )

  it.scopedLive("a connection that closes while asked is a decline, and another client's call continues", () =>
    Effect.gen(function* () {
      const url = yield* startServer()
      const asked = yield* Deferred.make<Params>()
      const answering = yield* connect(url, (params) => Effect.zipRight(Deferred.succeed(asked, params), Effect.never))
      const threadId = yield* startThread(answering.client)
      const caller = yield* connect(url)
      yield* Effect.orDie(caller.client.request("thread/resume", { threadId }))
      const call = yield* Effect.fork(askForm(caller.client, threadId, "c1"))
      yield* Deferred.await(asked).pipe(Effect.timeout("20 seconds"), Effect.orDie)
      yield* Scope.close(answering.scope, Exit.void)
      const result = yield* call.await.pipe(Effect.flatten, Effect.timeout("20 seconds"), Effect.orDie)
      assert.isTrue(shows(result.output, declined), result.output)
    })
  )

  it.scopedLive(
    "only a holder of the thread that declared elicitation is asked: the first such one to have started or resumed it",
    () =>
      Effect.gen(function* () {
        const url = yield* startServer()
        const caller = yield* connect(url)
        const threadId = yield* startThread(caller.client)
        const asked: Array<string> = []
        const first = yield* connect(url, () => {
          asked.push("first")
          return Effect.succeed({ action: "accept", content: { name: "Grace" } })
        })
        const second = yield* connect(url, () => {
          asked.push("second")
          return Effect.succeed({ action: "decline" })
        })
        // nobody holding the thread declared it: declined at once
        assert.isTrue(shows((yield* askForm(caller.client, threadId, "c1")).output, declined))
        assert.deepStrictEqual(asked, [])
        yield* Effect.orDie(second.client.request("thread/resume", { threadId }))
        yield* Effect.orDie(first.client.request("thread/resume", { threadId }))
        assert.isTrue(shows((yield* askForm(caller.client, threadId, "c2")).output, declined))
        assert.deepStrictEqual(asked, ["second"])
        yield* Scope.close(second.scope, Exit.void)
        assert.isTrue(shows((yield* askForm(caller.client, threadId, "c3")).output, accepted))
        assert.deepStrictEqual(asked, ["second", "first"])
      })
  )

  it.scopedLive("a thread's read answered input_required is answered by the client; a threadless read is not", () =>
    Effect.gen(function* () {
      const url = yield* startServer()
      const seen: Array<Params> = []
      const { client } = yield* connect(url, (params) => {
        seen.push(params)
        return Effect.succeed({ action: "accept", content: { name: "Grace" } })
      })
      const threadId = yield* startThread(client)
      const read = yield* Effect.orDie(
        client.request("mcp/resource/read", { threadId, server: "v2", uri: elicitationReadUri })
      )
      assert.deepStrictEqual(read.contents, [
        {
          uri: elicitationReadUri,
          mimeType: "text/plain",
          text: `answer: {"action":"accept","content":{"name":"Grace"}} state: s1`
        }
      ])
      assert.strictEqual(seen.length, 1)
      assert.strictEqual(seen[0]!.threadId, threadId)
      assert.strictEqual(seen[0]!.server, "v2")
      const threadless = yield* Effect.flip(
        client.request("mcp/resource/read", { server: "v2", uri: elicitationReadUri })
      )
      assert.instanceOf(threadless, Errors.ResponseError)
      assert.include(
        threadless.message,
        "resources/read needs input the client cannot provide yet: the server asked for name (elicitation/create)"
      )
      assert.strictEqual(seen.length, 1)
    })
  )

  it.scopedLive(
    "URL mode reaches a client that declared url: its accept and decline go back to v1 and v2 servers",
    () =>
      Effect.gen(function* () {
        const url = yield* startServer()
        const seen: Array<Params> = []
        const answers: Array<Answer> = [
          Effect.succeed({ action: "accept" }),
          Effect.succeed({ action: "decline" }),
          Effect.succeed({ action: "accept" }),
          Effect.succeed({ action: "accept", content: { name: "Grace" } })
        ]
        const { client } = yield* connect(
          url,
          (params) => {
            seen.push(params)
            return answers.shift()!
          },
          ["form", "url"]
        )
        const threadId = yield* startThread(client)
        // v1 (initialize era): elicitation/create in URL mode, with its elicitationId
        assert.isTrue(shows((yield* askUrl(client, threadId, "c1")).output, `url: {"action":"accept"}`))
        assert.isTrue(shows((yield* askUrl(client, threadId, "c2")).output, `url: {"action":"decline"}`))
        assert.strictEqual(seen.length, 2)
        assert.deepStrictEqual(
          { ...seen[0]!.params },
          { mode: "url", message: elicitationUrl.message, url: elicitationUrl.url, elicitationId: "consent-1" }
        )
        assert.strictEqual(seen[0]!.callId, "c1")
        // v2 (2026-07-28): a URL-mode input request of an input_required read
        const read = yield* readConsent(client, threadId)
        assert.strictEqual(consentText(read), `answer: {"action":"accept"} state: s1`)
        assert.strictEqual(seen[2]!.server, "v2")
        assert.strictEqual(seen[2]!.params.mode, "url")
        assert.strictEqual(seen[2]!.params.url, elicitationUrlV2.url)
        // form mode still reaches the same client
        assert.isTrue(shows((yield* askForm(client, threadId, "c3")).output, accepted))
        assert.strictEqual(seen.length, 4)
      })
  )

  it.scopedLive("a client that answers form mode only never gets a URL-mode request: declined at once", () =>
    Effect.gen(function* () {
      const url = yield* startServer()
      const asked: Array<string> = []
      const answer = (params: Params): Answer => {
        asked.push(String(params.params.mode ?? "form"))
        return Effect.succeed({ action: "accept", content: { name: "Grace" } })
      }
      // one client declares form explicitly, the other declares no modes (form only)
      const explicit = yield* connect(url, answer, ["form"])
      const threadId = yield* startThread(explicit.client)
      const implicit = yield* connect(url, answer)
      yield* Effect.orDie(implicit.client.request("thread/resume", { threadId }))
      assert.isTrue(shows((yield* askUrl(explicit.client, threadId, "c1")).output, `url: {"action":"decline"}`))
      assert.strictEqual(
        consentText(yield* readConsent(explicit.client, threadId)),
        `answer: {"action":"decline"} state: s1`
      )
      assert.deepStrictEqual(asked, [])
      assert.isTrue(shows((yield* askForm(explicit.client, threadId, "c2")).output, accepted))
      assert.deepStrictEqual(asked, ["form"])
    })
  )

  it.scopedLive("a URL-mode request goes to the first holder that answers url, past a form-only one", () =>
    Effect.gen(function* () {
      const url = yield* startServer()
      const asked: Array<string> = []
      const formOnly = yield* connect(url, () => {
        asked.push("formOnly")
        return Effect.succeed({ action: "decline" })
      }, ["form"])
      const threadId = yield* startThread(formOnly.client)
      const both = yield* connect(url, () => {
        asked.push("both")
        return Effect.succeed({ action: "accept" })
      }, ["form", "url"])
      yield* Effect.orDie(both.client.request("thread/resume", { threadId }))
      assert.isTrue(shows((yield* askUrl(formOnly.client, threadId, "c1")).output, `url: {"action":"accept"}`))
      assert.deepStrictEqual(asked, ["both"])
    })
  )
})
