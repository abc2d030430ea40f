import { assert, describe, it } from "@effect/vitest"
import {
  connectInMemory,
  type FixtureSpec,
  type ReadSpec,
  skillGuideText,
  skillMainText,
  skillsSpec
} from "@mcp-resources/fixtures"
import { Config } from "@mcp-resources/protocol"
import { ResourceClient, ServerEntry } from "@mcp-resources/resource-client"
import { Context, Effect, Either, Fiber, Layer, TestClock } from "effect"
import * as Catalog from "../src/Catalog.js"
import * as Skills from "../src/Skills.js"

const thread = "thread-1"
const main = "skill://plugin_demo/deploy/SKILL.md"
const guide = "skill://plugin_demo/deploy/references/guide.md"
const pkg = "skill://plugin_demo/deploy"

const configWith = (patch: { skillsEnabled?: boolean; appsServerName?: string } = {}): Config.Config => ({
  ...Config.empty,
  orchestrator: { ...Config.empty.orchestrator, skillsEnabled: patch.skillsEnabled ?? true },
  apps: { ...Config.empty.apps, serverName: patch.appsServerName ?? "codex_apps" }
})

/**
 * The real ResourceClient over an in-memory fixture server named `codex_apps` (or `serverName`), with
 * the Skills layer over it. The fixture's servers close after the layer, when the test's scope closes.
 */
const setup = (spec: FixtureSpec, options: { config?: Config.Config; serverName?: string } = {}) =>
  Effect.gen(function* () {
    const fixture = connectInMemory(spec)
    yield* Effect.addFinalizer(() => Effect.promise(() => fixture.closeAll()))
    const config = options.config ?? configWith()
    const servers = [ServerEntry.memory(options.serverName ?? "codex_apps", fixture.connect)]
    const context = yield* Layer.build(Skills.layer.pipe(Layer.provideMerge(ResourceClient.layer({ config, servers }))))
    const skills = Context.get(context, Skills.Skills)
    const client = Context.get(context, ResourceClient.ResourceClient)
    const count = (method: string, uri?: string) =>
      fixture.requests.filter(
        (r) => r.method === method && (uri === undefined || (r.params as { uri?: string } | undefined)?.uri === uri)
      ).length
    const resourceRequests = () => fixture.requests.filter((r) => r.method.startsWith("resources/")).length
    return { fixture, skills, client, config, servers, count, resourceRequests }
  })

const text = (uri: string, body: string): ReadSpec => ({ uri, result: { contents: [{ uri, text: body }] } })

const failureMessage = <A, E extends { readonly message: string }, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.map(Effect.either(effect), (result) => (Either.isLeft(result) ? result.left.message : "<succeeded>"))

const skillResource = (uri: string, meta: Record<string, unknown>) => ({
  uri,
  name: uri,
  mimeType: "mcp/skill",
  _meta: meta
})

describe("Skills", () => {
  it.scoped("S-1: the catalog keeps the skill of page 2 and warns about the failing page 3", () =>
    Effect.gen(function* () {
      const { skills } = yield* setup(skillsSpec())
      const catalog = yield* skills.list(thread)
      assert.strictEqual(
        JSON.stringify(catalog),
        JSON.stringify({
          skills: [
            {
              name: "demo-plugin:deploy",
              description: "Deploy through the &lt;hosted&gt; orchestrator.",
              package: "skill://plugin_demo/deploy",
              mainResource: "skill://plugin_demo/deploy/SKILL.md",
              visible: true
            }
          ],
          warnings: [
            "Orchestrator skill discovery stopped after 2 resource pages: failed to list orchestrator skill resources: resources/list failed for `codex_apps`: Mcp error: -32603: simulated later-page failure"
          ],
          truncated: false
        })
      )
      assert.strictEqual(
        Catalog.renderCatalog(catalog),
        "- demo-plugin:deploy: Deploy through the &lt;hosted&gt; orchestrator. (orchestrator package: skill://plugin_demo/deploy)"
      )
    })
  )

  it.scoped("S-2: a second list and a repeated read are served from the thread's cache", () =>
    Effect.gen(function* () {
      const { skills, count } = yield* setup(skillsSpec())
      const first = yield* skills.list(thread)
      const second = yield* skills.list(thread)
      assert.deepStrictEqual(second, first)
      const mainRead = yield* skills.read(thread, pkg, main)
      assert.strictEqual(
        JSON.stringify(mainRead),
        JSON.stringify({ resource: main, contents: skillMainText, next_cursor: null })
      )
      const guideRead = yield* skills.read(thread, pkg, guide)
      const guideAgain = yield* skills.read(thread, pkg, guide)
      assert.deepStrictEqual(guideRead, { resource: guide, contents: skillGuideText, next_cursor: null })
      assert.deepStrictEqual(guideAgain, guideRead)
      assert.strictEqual(count("resources/list"), 3)
      assert.strictEqual(count("resources/read", main), 1)
      assert.strictEqual(count("resources/read", guide), 1)
    })
  )

  it.scoped("S-3: a reload starts a new generation: the catalog and reads are fetched again", () =>
    Effect.gen(function* () {
      const { skills, client, config, servers, count } = yield* setup(skillsSpec())
      yield* skills.list(thread)
      yield* skills.list(thread)
      yield* skills.read(thread, pkg, main)
      yield* skills.read(thread, pkg, guide)
      yield* skills.read(thread, pkg, guide)
      yield* client.reload({ config, servers })
      const catalog = yield* skills.list(thread)
      assert.strictEqual(catalog.skills.length, 1)
      yield* skills.read(thread, pkg, main)
      assert.strictEqual(count("resources/list"), 6)
      assert.strictEqual(count("resources/read", main), 2)
      assert.strictEqual(count("resources/read", guide), 1)
    })
  )

  it.scoped("concurrent list calls of one generation share one discovery", () =>
    Effect.gen(function* () {
      const { skills, count } = yield* setup(skillsSpec())
      const [a, b] = yield* Effect.all([skills.list(thread), skills.list(thread)], { concurrency: "unbounded" })
      assert.deepStrictEqual(a, b)
      assert.strictEqual(count("resources/list"), 3)
    })
  )

  it.scoped("each thread has its own cache, and forget drops it", () =>
    Effect.gen(function* () {
      const { skills, count } = yield* setup(skillsSpec())
      yield* skills.list(thread)
      yield* skills.read(thread, pkg, main)
      yield* skills.list("thread-2")
      yield* skills.read("thread-2", pkg, main)
      assert.strictEqual(count("resources/list"), 6)
      assert.strictEqual(count("resources/read", main), 2)
      yield* skills.forget(thread)
      yield* skills.read(thread, pkg, main)
      assert.strictEqual(count("resources/read", main), 3)
    })
  )

  it.scoped("S-4: a skill hidden by allow_implicit_invocation false is listed hidden, not rendered, and readable", () =>
    Effect.gen(function* () {
      const spec: FixtureSpec = {
        resourcePages: [
          {
            result: {
              resources: [
                skillResource("skill://p/t", { plugin_name: "p", skill_name: "t", allow_implicit_invocation: true }),
                skillResource("skill://p/f", { plugin_name: "p", skill_name: "f", allow_implicit_invocation: false }),
                skillResource("skill://p/m", { plugin_name: "p", skill_name: "m" }),
                skillResource("skill://p/s", { plugin_name: "p", skill_name: "s", allow_implicit_invocation: "false" })
              ]
            }
          }
        ],
        reads: [text("skill://p/f/SKILL.md", "# hidden")]
      }
      const { skills } = yield* setup(spec)
      const catalog = yield* skills.list(thread)
      assert.deepStrictEqual(
        catalog.skills.map((s) => [s.name, s.visible]),
        [
          ["p:t", true],
          ["p:f", false],
          ["p:m", true],
          ["p:s", true]
        ]
      )
      assert.notInclude(Catalog.renderCatalog(catalog), "p:f")
      const hidden = catalog.skills.find((s) => !s.visible)!
      const result = yield* skills.read(thread, hidden.package, hidden.mainResource)
      assert.strictEqual(result.contents, "# hidden")
    })
  )

  it.scoped("S-5: with skills disabled, list is empty, read fails, and no resource request is made", () =>
    Effect.gen(function* () {
      const { skills, resourceRequests } = yield* setup(skillsSpec(), { config: configWith({ skillsEnabled: false }) })
      assert.deepStrictEqual(yield* skills.list(thread), { skills: [], warnings: [], truncated: false })
      assert.strictEqual(
        yield* failureMessage(skills.read(thread, pkg, main)),
        "orchestrator skills are disabled by `orchestrator.skills.enabled`"
      )
      assert.strictEqual(resourceRequests(), 0)
    })
  )

  it.scoped("a reload that disables skills takes effect at the next call", () =>
    Effect.gen(function* () {
      const { skills, client, servers, count } = yield* setup(skillsSpec())
      assert.strictEqual((yield* skills.list(thread)).skills.length, 1)
      yield* client.reload({ config: configWith({ skillsEnabled: false }), servers })
      assert.deepStrictEqual(yield* skills.list(thread), Catalog.emptyCatalog)
      assert.strictEqual(count("resources/list"), 3)
    })
  )

  it.scoped("S-6: without an apps server the catalog is empty and nothing is requested", () =>
    Effect.gen(function* () {
      const { skills, resourceRequests } = yield* setup(skillsSpec(), { serverName: "other" })
      assert.deepStrictEqual(yield* skills.list(thread), { skills: [], warnings: [], truncated: false })
      assert.strictEqual(resourceRequests(), 0)
    })
  )

  it.scoped("the apps server is the one named by apps.server_name", () =>
    Effect.gen(function* () {
      const { skills } = yield* setup(skillsSpec(), {
        serverName: "my_apps",
        config: configWith({ appsServerName: "my_apps" })
      })
      const catalog = yield* skills.list(thread)
      assert.strictEqual(catalog.skills.length, 1)
      assert.include(catalog.warnings[0], "resources/list failed for `my_apps`")
    })
  )

  it.scoped("S-7: a failing first page is cached as a catalog with its warning", () =>
    Effect.gen(function* () {
      const { skills, count } = yield* setup({ resourcePages: [{ error: { code: -32603, message: "boom" } }] })
      const expected = {
        skills: [],
        warnings: [
          "failed to list orchestrator skill resources: resources/list failed for `codex_apps`: Mcp error: -32603: boom"
        ],
        truncated: false
      }
      assert.deepStrictEqual(yield* skills.list(thread), expected)
      assert.deepStrictEqual(yield* skills.list(thread), expected)
      assert.strictEqual(count("resources/list"), 1)
    })
  )

  it.scoped("a discovery whose first page never answers is cached as the timeout warning after 10 s", () =>
    Effect.gen(function* () {
      const { skills, count } = yield* setup({ resourcePages: [{ hang: true }] })
      const fiber = yield* Effect.fork(skills.list(thread))
      // The deadline is armed before the request is sent: wait (in real time) until the server has it.
      while (count("resources/list") === 0) yield* Effect.promise(() => new Promise((r) => setImmediate(r)))
      yield* TestClock.adjust("10 seconds")
      const expected = { skills: [], warnings: ["orchestrator skill discovery timed out after 10s"], truncated: false }
      assert.deepStrictEqual(yield* Fiber.join(fiber), expected)
      assert.deepStrictEqual(yield* skills.list(thread), expected)
      assert.strictEqual(count("resources/list"), 1)
    })
  )

  it.scoped("an interrupted list does not stop the shared discovery", () =>
    Effect.gen(function* () {
      const { skills, count } = yield* setup(skillsSpec())
      const first = yield* Effect.fork(skills.list(thread))
      while (count("resources/list") === 0) yield* Effect.promise(() => new Promise((r) => setImmediate(r)))
      yield* Fiber.interrupt(first)
      const catalog = yield* skills.list(thread)
      assert.strictEqual(catalog.skills.length, 1)
      assert.strictEqual(count("resources/list"), 3)
    })
  )

  it.scoped("S-12: ten pages with new cursors are requested, then discovery stops truncated", () =>
    Effect.gen(function* () {
      const resourcePages = Array.from({ length: 12 }, (_, i) => ({
        cursor: i === 0 ? null : `c${i}`,
        result: { resources: [], nextCursor: `c${i + 1}` }
      }))
      const { skills, count } = yield* setup({ resourcePages })
      const catalog = yield* skills.list(thread)
      assert.strictEqual(count("resources/list"), 10)
      assert.isTrue(catalog.truncated)
      assert.deepStrictEqual(catalog.warnings, [
        "Orchestrator skill discovery was truncated at 100 visible skills, 1000 hidden skills, or 10 resource pages."
      ])
    })
  )

  it.scoped("S-13: a duplicate cursor stops discovery after 2 list requests", () =>
    Effect.gen(function* () {
      const { skills, count } = yield* setup({
        resourcePages: [
          { result: { resources: [], nextCursor: "again" } },
          { cursor: "again", result: { resources: [], nextCursor: "again" } }
        ]
      })
      const catalog = yield* skills.list(thread)
      assert.deepStrictEqual(catalog.warnings, ["Orchestrator skill resource pagination returned a duplicate cursor."])
      assert.strictEqual(count("resources/list"), 2)
    })
  )

  it.scoped("S-14: a resource outside its package is refused without a request", () =>
    Effect.gen(function* () {
      const { skills, resourceRequests } = yield* setup(skillsSpec())
      for (const resource of ["skill://p/d", "skill://q/d/x", "skill://p/e/x"]) {
        assert.strictEqual(
          yield* failureMessage(skills.read(thread, "skill://p/d", resource)),
          "orchestrator skill resource does not match its package"
        )
      }
      assert.strictEqual(resourceRequests(), 0)
    })
  )

  it.scoped("S-15: contents of another uri, or only a blob, are not matching text", () =>
    Effect.gen(function* () {
      const { skills } = yield* setup({
        reads: [
          { uri: "skill://p/d/x", result: { contents: [{ uri: "skill://p/d/y", text: "other" }] } },
          { uri: "skill://p/d/b", result: { contents: [{ uri: "skill://p/d/b", blob: "aGk=" }] } }
        ]
      })
      assert.strictEqual(
        yield* failureMessage(skills.read(thread, "skill://p/d", "skill://p/d/x")),
        "orchestrator skill resource skill://p/d/x did not return matching text contents"
      )
      assert.strictEqual(
        yield* failureMessage(skills.read(thread, "skill://p/d", "skill://p/d/b")),
        "orchestrator skill resource skill://p/d/b did not return matching text contents"
      )
    })
  )

  it.scoped("the first matching text content is used", () =>
    Effect.gen(function* () {
      const uri = "skill://p/d/x"
      const { skills } = yield* setup({
        reads: [
          {
            uri,
            result: {
              contents: [
                { uri: "skill://p/d/y", text: "other" },
                { uri, blob: "aGk=" },
                { uri, text: "first" },
                { uri, text: "second" }
              ]
            }
          }
        ]
      })
      assert.strictEqual((yield* skills.read(thread, "skill://p/d", uri)).contents, "first")
    })
  )

  it.scoped("S-16: a text over 1048576 bytes is refused; exactly 1048576 bytes is returned", () =>
    Effect.gen(function* () {
      const { skills } = yield* setup({
        reads: [text("skill://p/d/x", "a".repeat(1048577)), text("skill://p/d/y", `${"a".repeat(1048574)}é`)]
      })
      assert.strictEqual(
        yield* failureMessage(skills.read(thread, "skill://p/d", "skill://p/d/x")),
        "orchestrator skill resource skill://p/d/x exceeds the 1048576-byte read limit"
      )
      const ok = yield* skills.read(thread, "skill://p/d", "skill://p/d/y")
      assert.strictEqual(Buffer.byteLength(ok.contents), 1048576)
    })
  )

  it.scoped("S-17: a read that never answers times out after 10 s of test clock", () =>
    Effect.gen(function* () {
      const { skills, count } = yield* setup({ reads: [{ uri: "skill://p/d/x", hang: true }] })
      const fiber = yield* Effect.fork(failureMessage(skills.read(thread, "skill://p/d", "skill://p/d/x")))
      // The timeout is armed before the request is sent: wait (in real time) until the server has it.
      while (count("resources/read") === 0) yield* Effect.promise(() => new Promise((r) => setImmediate(r)))
      yield* TestClock.adjust("9999 millis")
      assert.isNull(fiber.unsafePoll())
      yield* TestClock.adjust("1 millis")
      assert.strictEqual(yield* Fiber.join(fiber), "orchestrator skill read timed out after 10s")
    })
  )

  it.scoped("a failed read carries the chain and is not cached", () =>
    Effect.gen(function* () {
      const { skills, count } = yield* setup({
        reads: [{ uri: "skill://p/d/x", error: { code: -32002, message: "nope" } }]
      })
      const expected =
        "failed to read orchestrator skill resource skill://p/d/x: resources/read failed for `codex_apps` (skill://p/d/x): Mcp error: -32002: nope"
      assert.strictEqual(yield* failureMessage(skills.read(thread, "skill://p/d", "skill://p/d/x")), expected)
      assert.strictEqual(yield* failureMessage(skills.read(thread, "skill://p/d", "skill://p/d/x")), expected)
      assert.strictEqual(count("resources/read"), 2)
    })
  )

  it.scoped("S-18: the cache stores 100 reads; the 101st is requested again", () =>
    Effect.gen(function* () {
      const uris = Array.from({ length: 101 }, (_, i) => `skill://p/d/r${i}`)
      const { skills, count } = yield* setup({ reads: uris.map((uri) => text(uri, uri)) })
      for (const _ of [1, 2]) {
        for (const uri of uris) yield* skills.read(thread, "skill://p/d", uri)
      }
      assert.deepStrictEqual(
        uris.map((uri) => count("resources/read", uri)),
        uris.map((_, i) => (i === 100 ? 2 : 1))
      )
    })
  )

  it.scoped("S-19: the cache stores up to 8 MiB of contents", () =>
    Effect.gen(function* () {
      const uris = Array.from({ length: 10 }, (_, i) => `skill://p/d/big${i}`)
      const { skills, count } = yield* setup({ reads: uris.map((uri) => text(uri, "x".repeat(1048576))) })
      for (const _ of [1, 2]) {
        for (const uri of uris) yield* skills.read(thread, "skill://p/d", uri)
      }
      assert.deepStrictEqual(
        uris.map((uri) => count("resources/read", uri)),
        uris.map((_, i) => (i < 8 ? 1 : 2))
      )
    })
  )
})

describe("Skills.layerWithoutClient", () => {
  it.effect("lists the empty catalog and fails reads after the containment check", () =>
    Effect.gen(function* () {
      const skills = yield* Skills.Skills
      assert.deepStrictEqual(yield* skills.list(thread), { skills: [], warnings: [], truncated: false })
      assert.strictEqual(
        yield* failureMessage(skills.read(thread, "skill://p/d", "skill://q/d/x")),
        "orchestrator skill resource does not match its package"
      )
      assert.strictEqual(
        yield* failureMessage(skills.read(thread, "skill://p/d", "skill://p/d/x")),
        "session MCP resource client is not configured"
      )
    }).pipe(Effect.provide(Skills.layerWithoutClient))
  )
})
