/**
 * The transport contract: one suite, run over every transport (in-memory, stdio, streamable HTTP,
 * HTTP+SSE), each in both protocol eras (the `initialize` era and 2026-07-28), against the same server
 * (`utils/contractServer.mjs`) and only through `ResourceClient`: paginated lists, text and blob
 * reads, an MCP error with its code, the timeout of a request that never answers, cancellation, a
 * subscription's update, and a server that goes away. Time is the TestClock's; the suite waits for
 * what the server saw by asking it (its `await` tool answers once the event happened), never polls.
 * A case that does not apply to a transport or era is registered as skipped with its reason.
 */
import { assert, describe, it, layer } from "@effect/vitest"
import { Config, Errors } from "@mcp-resources/protocol"
import { Effect, Either, Fiber, Layer, Option, Queue, type Scope, TestClock } from "effect"
import { type McpTransport, ResourceClient, type ServerEntry } from "../src/index.js"
import { catalog, type Era } from "./utils/contractServer.mjs"

export type { Era }

/** The cases of the suite, for {@link Transport.skip}. */
export const cases = ["lists", "templates", "reads", "error", "timeout", "cancel", "subscribe", "closes"] as const
export type Case = (typeof cases)[number]

/** Every case skipped for one reason (a transport that does not exist in an era). */
export const allCases = (reason: string): Record<Case, string> =>
  Object.fromEntries(cases.map((id) => [id, reason])) as Record<Case, string>

/** One transport under test. */
export interface Transport {
  /** As the suite's title shows it. */
  readonly name: string
  /** The `McpTransport` layer the client is built with. */
  readonly layer: Layer.Layer<McpTransport.McpTransport>
  /** Starts a contract server on `era` (stopped when the scope closes) and answers its entry's transport. */
  readonly serve: (era: Era) => Effect.Effect<ServerEntry.ServerTransport, never, Scope.Scope>
  /** Why the connection closed when the server went away, as the transport tells it (after the request's context). */
  readonly closedReason: string
  /** Cases that do not apply, each with its reason, by era. */
  readonly skip?: Partial<Record<Era, Partial<Record<Case, string>>>>
}

/** The revision a server of each era negotiates. */
const revision: Record<Era, string> = { legacy: "2025-11-25", modern: "2026-07-28" }

const name = "srv"
const toolTimeoutSec = 5

const failureOf = <A>(effect: Effect.Effect<A, Errors.ResourceFailure>) =>
  Effect.map(Effect.either(effect), (result) =>
    Either.match(result, { onLeft: (error) => error, onRight: () => assert.fail("the request succeeded") })
  )

/** Registers the contract suite for one transport in one era. */
export const transportSuite = (transport: Transport, era: Era) =>
  describe(`transport contract (${transport.name}, ${era} era)`, () => {
    /** A client of one contract server; both close with the test's scope (the client first). */
    const start = Effect.gen(function* () {
      const entry: ServerEntry.ServerEntry = {
        name,
        transport: yield* transport.serve(era),
        enabled: true,
        startupTimeoutSec: 30,
        toolTimeoutSec,
        maxMessageBytes: 67108864,
        protocolVersion: era === "legacy" ? "legacy" : "2026-07-28"
      }
      const client = yield* ResourceClient.make({ config: Config.empty, servers: [entry] }).pipe(
        Effect.provide(transport.layer)
      )
      yield* Effect.flatMap(client.latest, (set) => set.awaitAllSettled)
      return client
    })

    /** Answers once the server saw `event` for `uri` (a tool call that waits at the server). */
    const serverSaw = (client: ResourceClient.Service, event: "started" | "cancelled", uri: string) =>
      Effect.asVoid(client.callTool(name, "await", { event, uri }))

    /** A case's body, given a ready client of a contract server. */
    type Body = (client: ResourceClient.Service) => Effect.Effect<void, unknown, Scope.Scope>
    const entries: Array<{ readonly id: Case; readonly title: string; readonly body: Body }> = []
    const add = (id: Case, title: string, body: Body) => entries.push({ id, title, body })

    add("lists", "resources are listed page by page, and in full across pages, on the era asked for", (client) =>
      Effect.gen(function* () {
        const [status] = yield* client.servers
        assert.strictEqual(status?.status, "ready")
        assert.strictEqual(status?.protocolVersion, revision[era])
        assert.deepStrictEqual(yield* client.listResources(name), catalog.resourcePages.first)
        assert.deepStrictEqual(yield* client.listResources(name, "p2"), catalog.resourcePages.p2)
        const all = yield* client.listAllResources(() => true)
        assert.deepStrictEqual(all, {
          servers: [
            { server: name, items: [...catalog.resourcePages.first.resources, ...catalog.resourcePages.p2.resources] }
          ],
          failures: []
        })
      })
    )

    add("templates", "resource templates are listed page by page, and in full across pages", (client) =>
      Effect.gen(function* () {
        assert.deepStrictEqual(yield* client.listResourceTemplates(name), catalog.templatePages.first)
        assert.deepStrictEqual(yield* client.listResourceTemplates(name, "t2"), catalog.templatePages.t2)
        assert.deepStrictEqual(yield* client.resourceTemplates(name), [
          ...catalog.templatePages.first.resourceTemplates,
          ...catalog.templatePages.t2.resourceTemplates
        ])
      })
    )

    add("reads", "a text and a blob are read as the server sent them", (client) =>
      Effect.gen(function* () {
        const textRead = yield* client.readResource(name, "contract://text")
        assert.deepStrictEqual(textRead.contents, catalog.reads["contract://text"].contents)
        const blobRead = yield* client.readResource(name, "contract://blob")
        assert.deepStrictEqual(blobRead.contents, catalog.reads["contract://blob"].contents)
      })
    )

    add("error", "an MCP error keeps its code and the server's message, after the request's context", (client) =>
      Effect.gen(function* () {
        const error = yield* failureOf(client.readResource(name, "contract://missing"))
        assert.instanceOf(error, Errors.ServerError)
        const server = error as Errors.ServerError
        assert.strictEqual(server.code, catalog.error.code)
        assert.strictEqual(server.serverMessage, catalog.error.message)
        assert.strictEqual(
          server.message,
          `resources/read failed for \`${name}\` (contract://missing): Mcp error: ${catalog.error.code}: ${catalog.error.message}`
        )
        // the connection stays usable
        assert.strictEqual((yield* client.servers)[0]?.status, "ready")
        yield* client.readResource(name, "contract://text")
      })
    )

    add(
      "timeout",
      "a request that never answers fails after tool_timeout_sec with the timeout message, and the server sees it cancelled",
      (client) =>
        Effect.gen(function* () {
          const read = yield* Effect.fork(failureOf(client.readResource(name, "contract://hang")))
          yield* serverSaw(client, "started", "contract://hang")
          yield* TestClock.adjust(`${toolTimeoutSec - 1} seconds`)
          assert.isTrue(Option.isNone(yield* Fiber.poll(read)), "still waiting before the timeout")
          yield* TestClock.adjust("1 second")
          const error = yield* Fiber.join(read)
          assert.strictEqual(
            error.message,
            `resources/read failed for \`${name}\` (contract://hang): timed out awaiting resources/read after ${toolTimeoutSec}s`
          )
          yield* serverSaw(client, "cancelled", "contract://hang")
          assert.strictEqual((yield* client.servers)[0]?.status, "ready")
        })
    )

    add("cancel", "an interrupted request is cancelled at the server; the connection stays usable", (client) =>
      Effect.gen(function* () {
        const read = yield* Effect.fork(client.readResource(name, "contract://hang"))
        yield* serverSaw(client, "started", "contract://hang")
        yield* Fiber.interrupt(read)
        yield* serverSaw(client, "cancelled", "contract://hang")
        assert.deepStrictEqual(
          (yield* client.readResource(name, "contract://text")).contents,
          catalog.reads["contract://text"].contents
        )
      })
    )

    add("subscribe", "a subscribed resource's update reaches the update stream", (client) =>
      Effect.gen(function* () {
        const updates = yield* client.updates
        assert.isTrue(client.supports(name, "subscribe"))
        assert.strictEqual(yield* client.subscribe(name, "contract://text"), "subscribed")
        yield* client.callTool(name, "touch", { uri: "contract://text" })
        assert.deepStrictEqual(yield* Queue.take(updates), { _tag: "updated", server: name, uri: "contract://text" })
      })
    )

    add(
      "closes",
      "a server that goes away: the request under way and the next one fail saying why the connection closed, and the server is failed",
      (client) =>
        Effect.gen(function* () {
          const inFlight = yield* failureOf(client.readResource(name, "contract://exit"))
          assert.strictEqual(
            inFlight.message,
            `resources/read failed for \`${name}\` (contract://exit): ${transport.closedReason}`
          )
          const next = yield* failureOf(client.listResources(name))
          assert.strictEqual(next.message, `failed to get client: ${transport.closedReason}`)
          assert.deepStrictEqual(
            (yield* client.servers).map((server) => [server.status, server.error]),
            [["failed", transport.closedReason]]
          )
        })
    )

    /** Cases that leave the connection as they found it share one (a stdio child, an HTTP session); the others have their own. */
    const sharing = new Set<Case>(["lists", "templates", "reads", "error", "subscribe"])
    const skipped = (id: Case) => transport.skip?.[era]?.[id]
    for (const { id, title } of entries) {
      const reason = skipped(id)
      if (reason !== undefined) {
        process.stderr.write(`skipped: ${title}: ${reason}\n`)
        it.scoped.skip(`${title} (skipped: ${reason})`, () => Effect.void)
      }
    }
    const shared = entries.filter(({ id }) => sharing.has(id) && skipped(id) === undefined)
    if (shared.length > 0) {
      layer(Layer.scoped(ResourceClient.ResourceClient, start), { timeout: "60 seconds" })(
        "on one connection",
        (it) => {
          for (const { title, body } of shared)
            it.scoped(title, () => Effect.flatMap(ResourceClient.ResourceClient, body))
        }
      )
    }
    for (const { id, title, body } of entries) {
      if (!sharing.has(id) && skipped(id) === undefined) it.scoped(title, () => Effect.flatMap(start, body))
    }
  })
