/**
 * The full template list of a server (`resourceTemplates`): every page under the guard, kept per
 * connection for `templateListTtlMs`, dropped by `notifications/resources/list_changed`; and
 * `supports` for servers that declare nothing beyond resources.
 */
import { assert, layer } from "@effect/vitest"
import { Config } from "@mcp-resources/protocol"
import { Effect, TestClock } from "effect"
import { McpTransport, ResourceClient } from "../src/index.js"
import { entry, fixture } from "./utils/memory.js"
import { awaitUpdate } from "./utils/wait.js"

const count = (requests: ReadonlyArray<{ readonly method: string }>, method: string) =>
  requests.filter((r) => r.method === method).length

const template = (uriTemplate: string, name: string) => ({ uriTemplate, name })

layer(McpTransport.layerMemory)("the template list of a server", (it) => {
  it.scoped("collects every page once, keeps it, and fetches it again after list_changed and after its time", () =>
    Effect.gen(function* () {
      const f = yield* fixture({
        templatePages: [
          { result: { resourceTemplates: [template("x://a/{id}", "a")], nextCursor: "2" } },
          { cursor: "2", result: { resourceTemplates: [template("x://b{?q}", "b")] } }
        ]
      })
      const client = yield* ResourceClient.make({ config: Config.empty, servers: [entry("srv", f)] })
      yield* Effect.flatMap(client.latest, (set) => set.awaitAllSettled)
      const first = yield* client.resourceTemplates("srv")
      assert.deepStrictEqual(
        first.map((t) => t.uriTemplate),
        ["x://a/{id}", "x://b{?q}"]
      )
      yield* client.resourceTemplates("srv")
      assert.strictEqual(count(f.requests, "resources/templates/list"), 2)

      yield* awaitUpdate(
        client,
        (u) => u._tag === "listChanged" && u.list === "templates",
        Effect.promise(() => f.notify("notifications/resources/list_changed"))
      )
      yield* client.resourceTemplates("srv")
      assert.strictEqual(count(f.requests, "resources/templates/list"), 4)

      yield* TestClock.adjust(ResourceClient.templateListTtlMs + 1)
      yield* client.resourceTemplates("srv")
      assert.strictEqual(count(f.requests, "resources/templates/list"), 6)
    })
  )

  it.scoped("a server that declares neither completions nor subscribe supports neither", () =>
    Effect.gen(function* () {
      const f = yield* fixture({})
      const client = yield* ResourceClient.make({ config: Config.empty, servers: [entry("srv", f)] })
      yield* Effect.flatMap(client.latest, (set) => set.awaitAllSettled)
      assert.isFalse(client.supports("srv", "completions"))
      assert.isFalse(client.supports("srv", "subscribe"))
      assert.isFalse(client.supports("nope", "completions"))
    })
  )
})
