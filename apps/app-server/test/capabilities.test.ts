import { assert, describe, it } from "@effect/vitest"
import { ResourceClient } from "@mcp-resources/resource-client"
import { OriginStore } from "@mcp-resources/resource-origins"
import { ExtensionSkills, Skills } from "@mcp-resources/skills"
import { ResourceSearch } from "@mcp-resources/tool-handlers"
import { type Context, Effect, Layer, Option } from "effect"
import { AppOptions } from "../src/AppOptions.js"
import { Announcer } from "../src/ConfigReload.js"
import * as Connections from "../src/Connections.js"
import { SkillsExtensionSubscribers } from "../src/handlers/skillsExtension.js"
import * as JsonRpcServer from "../src/JsonRpcServer.js"
import * as OAuthLogins from "../src/OAuthLogins.js"
import { ResourceSubscriptions } from "../src/ResourceSubscriptions.js"
import { Threads } from "../src/Threads.js"
import { ToolHost } from "../src/ToolHost.js"
import { errorOf, resultOf, start, tempDir } from "./utils/AppServerProcess.js"

// `initialize` touches none of the thread, resource or skills services: they are left unimplemented here
// so that a test reaching into one fails loudly.
const unused = <I, S>(tag: Context.Tag<I, S>) =>
  Layer.succeed(
    tag,
    new Proxy({} as S & object, {
      get: (_, key) => {
        throw new Error(`${tag.key}.${String(key)} is not used by initialize`)
      }
    })
  )

const dispatcher = JsonRpcServer.layer.pipe(
  Layer.provideMerge(
    Layer.mergeAll(
      Connections.layer,
      unused(Threads),
      unused(ToolHost),
      unused(ResourceClient.ResourceClient),
      unused(ResourceSearch.ResourceSearch),
      unused(OriginStore.OriginStore),
      unused(Skills.Skills),
      unused(ExtensionSkills.ExtensionSkills),
      unused(SkillsExtensionSubscribers),
      unused(AppOptions),
      unused(ResourceSubscriptions),
      unused(OAuthLogins.OAuthLogins),
      unused(OAuthLogins.Announcer),
      unused(Announcer)
    )
  )
)

/** A connection attached to the in-process dispatcher; `written` collects what it sends. */
const attach = (label: string) =>
  Effect.gen(function* () {
    const server = yield* JsonRpcServer.JsonRpcServer
    const written: Array<Record<string, unknown>> = []
    const session = yield* server.attach(label, (text) => written.push(JSON.parse(text) as Record<string, unknown>))
    return { session, written }
  })

/** The version-1 `initialize` result, and the result a client that declares capabilities gets. */
const v1Result = { serverInfo: { name: "mcp-resources-app-server", version: "0.1.0" }, protocolVersion: 1 }
const withCapabilities = {
  ...v1Result,
  capabilities: {
    toolProfiles: ["codex", "extended"],
    serverRequests: ["mcpServer/elicitation/request"],
    oauthLogin: true,
    skillsExtension: true,
    widgets: true,
    resourceChanges: true
  }
}

describe("capabilities at initialize", () => {
  it.scoped("the server requests a client declares are kept per connection and readable by later code", () =>
    Effect.gen(function* () {
      const connections = yield* Connections.Connections
      const a = yield* attach("a")
      const b = yield* attach("b")
      yield* a.session.receive(
        JSON.stringify({
          id: 1,
          method: "initialize",
          params: {
            clientInfo: { name: "widget-host", version: "2" },
            capabilities: { serverRequests: ["elicitation"] }
          }
        })
      )
      yield* b.session.receive(JSON.stringify({ id: 1, method: "initialize", params: { clientInfo: { name: "ide" } } }))
      assert.deepStrictEqual(a.written[0], {
        jsonrpc: "2.0",
        id: 1,
        result: withCapabilities
      })
      assert.deepStrictEqual(b.written[0], {
        jsonrpc: "2.0",
        id: 1,
        result: v1Result
      })
      // Connection ids are given in attach order; both are open.
      const [idA, idB] = [1, 2]
      assert.isTrue(yield* connections.answers(idA, "elicitation"))
      assert.isFalse(yield* connections.answers(idB, "elicitation"))
      assert.isFalse(yield* connections.answers(idA, "sampling"))
      assert.deepStrictEqual(
        yield* connections.client(idA),
        Option.some({
          clientInfo: { name: "widget-host", version: "2" },
          capabilities: { serverRequests: ["elicitation"] }
        })
      )
      assert.deepStrictEqual(
        yield* connections.client(idB),
        Option.some({ clientInfo: { name: "ide" }, capabilities: undefined })
      )
    }).pipe(Effect.provide(dispatcher))
  )

  it.scoped(
    "a connection that closes forgets what its client declared; one not yet initialized has declared nothing",
    () =>
      Effect.gen(function* () {
        const connections = yield* Connections.Connections
        yield* Effect.scoped(
          Effect.gen(function* () {
            const a = yield* attach("a")
            yield* a.session.receive(
              JSON.stringify({
                id: 1,
                method: "initialize",
                params: { clientInfo: { name: "x" }, capabilities: { serverRequests: ["elicitation"] } }
              })
            )
            assert.isTrue(yield* connections.answers(1, "elicitation"))
          })
        )
        assert.isFalse(yield* connections.answers(1, "elicitation"))
        assert.deepStrictEqual(yield* connections.client(1), Option.none())
        yield* attach("b")
        assert.deepStrictEqual(yield* connections.client(2), Option.none())
      }).pipe(Effect.provide(dispatcher))
  )

  it.scoped("capabilities of the wrong shape are Invalid request naming the field, and nothing is stored", () =>
    Effect.gen(function* () {
      const connections = yield* Connections.Connections
      const a = yield* attach("a")
      yield* a.session.receive(
        JSON.stringify({
          id: 7,
          method: "initialize",
          params: { clientInfo: { name: "x" }, capabilities: { serverRequests: "elicitation" } }
        })
      )
      assert.deepStrictEqual(a.written[0], {
        jsonrpc: "2.0",
        id: 7,
        error: {
          code: -32600,
          message: 'Invalid request: capabilities.serverRequests: expected array, got "elicitation"'
        }
      })
      assert.deepStrictEqual(yield* connections.client(1), Option.none())
      // The connection stays uninitialized: a correct initialize then succeeds.
      yield* a.session.receive(
        JSON.stringify({ id: 8, method: "initialize", params: { clientInfo: { name: "x" }, capabilities: {} } })
      )
      assert.deepStrictEqual(a.written[1], {
        jsonrpc: "2.0",
        id: 8,
        result: withCapabilities
      })
    }).pipe(Effect.provide(dispatcher))
  )

  it.scopedLive(
    "over stdio, a client that declares capabilities receives the server's; one that does not sees the v1 result",
    () =>
      Effect.gen(function* () {
        const declaring = yield* start({ args: ["--data-dir", tempDir()] })
        const withCaps = resultOf(
          yield* declaring.request("initialize", {
            clientInfo: { name: "t" },
            capabilities: { serverRequests: ["elicitation", "some/future/request"] }
          })
        )
        assert.deepStrictEqual(withCaps, withCapabilities)
        const plain = yield* start({ args: ["--data-dir", tempDir()] })
        assert.deepStrictEqual(resultOf(yield* plain.request("initialize", { clientInfo: { name: "t" } })), v1Result)
        assert.deepStrictEqual(
          errorOf(yield* plain.request("initialize", { clientInfo: { name: "t" }, capabilities: {} })),
          { code: -32600, message: "Already initialized" }
        )
      })
  )
})
