import { assert, describe, it } from "@effect/vitest"
import {
  computedManifest,
  connectInMemory,
  connectSkillsExtension,
  type SkillsExtensionState,
  servedSkill,
  sha256Digest,
  skillFileUri
} from "@mcp-resources/fixtures"
import { Config } from "@mcp-resources/protocol"
import { ResourceClient, ServerEntry } from "@mcp-resources/resource-client"
import { Chunk, Context, Effect, Either, Layer, Queue } from "effect"
import * as ExtensionSkills from "../src/ExtensionSkills.js"

const state = (skills: SkillsExtensionState["skills"], options: Partial<SkillsExtensionState> = {}) =>
  ({ skills, directoryRead: false, requests: [], ...options }) as SkillsExtensionState

const configWith = (extension: boolean): Config.Config => ({ ...Config.empty, skills: { extension } })

/**
 * The real ResourceClient over in-memory v2 servers of the extension (one per state, named as given)
 * and a plain v1 server `plain` without it; the ExtensionSkills layer over them.
 */
const setup = (servers: Record<string, SkillsExtensionState>, options: { extension?: boolean } = {}) =>
  Effect.gen(function* () {
    const plain = connectInMemory({})
    yield* Effect.addFinalizer(() => Effect.promise(() => plain.closeAll()))
    const entries = [ServerEntry.memory("plain", plain.connect)]
    for (const [name, s] of Object.entries(servers)) {
      const fixture = connectSkillsExtension(s)
      yield* Effect.addFinalizer(() => Effect.promise(() => fixture.closeAll()))
      entries.push(ServerEntry.memory(name, fixture.connect))
    }
    const config = configWith(options.extension ?? true)
    const context = yield* Layer.build(
      ExtensionSkills.layer.pipe(Layer.provideMerge(ResourceClient.layer({ config, servers: entries })))
    )
    const skills = Context.get(context, ExtensionSkills.ExtensionSkills)
    const client = Context.get(context, ResourceClient.ResourceClient)
    yield* Effect.flatMap(client.latest, (set) => set.awaitAllSettled)
    const count = (s: SkillsExtensionState, method?: string) =>
      s.requests.filter((r) => method === undefined || r.method === method).length
    return { skills, client, plain, count }
  })

const failure = <A, E extends { readonly message: string }>(effect: Effect.Effect<A, E>) =>
  Effect.map(Effect.either(effect), (r) => (Either.isLeft(r) ? r.left.message : "<succeeded>"))

const main = (path: string) => skillFileUri(path, "SKILL.md")

describe("ExtensionSkills", () => {
  it.scoped("no-prefetch: nothing on connect, only skills/list on list, one read when a file is asked for", () =>
    Effect.gen(function* () {
      const alpha = state([servedSkill("deploy", "Deploy it.", { "references/guide.md": "guide" })])
      const { skills, count, plain } = yield* setup({ alpha })
      assert.deepStrictEqual(alpha.requests, [])
      const catalog = yield* skills.list
      assert.deepStrictEqual(
        alpha.requests.map((r) => r.method),
        ["skills/list"]
      )
      assert.deepStrictEqual(alpha.requests[0]!.params, {})
      assert.strictEqual(catalog.skills.length, 1)
      const entry = catalog.skills[0]!
      assert.deepStrictEqual(
        { server: entry.server, uri: entry.uri, name: entry.name, problem: entry.problem },
        { server: "alpha", uri: main("deploy"), name: "alpha/deploy", problem: null }
      )
      assert.deepStrictEqual(entry.frontmatter, { name: "deploy", description: "Deploy it." })
      assert.deepStrictEqual(entry.resources, computedManifest(alpha.skills[0]!))
      yield* skills.list
      assert.strictEqual(count(alpha), 1)
      const read = yield* skills.read("alpha", skillFileUri("deploy", "references/guide.md"))
      assert.deepStrictEqual(read, {
        server: "alpha",
        uri: "skill://deploy/references/guide.md",
        skill: main("deploy"),
        mimeType: "text/markdown",
        text: "guide",
        verified: true
      })
      assert.deepStrictEqual(
        alpha.requests.map((r) => r.method),
        ["skills/list", "resources/read"]
      )
      // a verified read is cached by (server, uri, digest)
      yield* skills.read("alpha", skillFileUri("deploy", "references/guide.md"))
      assert.strictEqual(count(alpha, "resources/read"), 1)
      // the server without the extension is never asked for skills or resources
      assert.deepStrictEqual(
        plain.requests.filter((r) => r.method.startsWith("skills/") || r.method.startsWith("resources/")),
        []
      )
    })
  )

  it.scoped("two servers with a skill of the same name both appear; a read goes to its origin only", () =>
    Effect.gen(function* () {
      const alpha = state([servedSkill("deploy", "Alpha deploys.")])
      const beta = state([servedSkill("deploy", "Beta deploys.")])
      const { skills, count } = yield* setup({ alpha, beta })
      const catalog = yield* skills.list
      assert.deepStrictEqual(
        catalog.skills.map((s) => [s.server, s.uri, s.name, s.frontmatter.description]),
        [
          ["alpha", main("deploy"), "alpha/deploy", "Alpha deploys."],
          ["beta", main("deploy"), "beta/deploy", "Beta deploys."]
        ]
      )
      const read = yield* skills.read("beta", main("deploy"))
      assert.include(read.text!, "# deploy")
      assert.strictEqual(read.server, "beta")
      assert.strictEqual(count(beta, "resources/read"), 1)
      assert.strictEqual(count(alpha, "resources/read"), 0)
      // the same URI is cached apart per server
      yield* skills.read("alpha", main("deploy"))
      assert.strictEqual(count(alpha, "resources/read"), 1)
      // a server that does not serve the file is not a way to another server's file
      assert.strictEqual(
        yield* failure(skills.read("plain", main("deploy"))),
        "skill://deploy/SKILL.md is not a file of a skill of MCP server 'plain'"
      )
    })
  )

  it.scoped("names colliding within one server are told apart by their skill path", () =>
    Effect.gen(function* () {
      const alpha = state([servedSkill("billing/refunds", "Billing."), servedSkill("support/refunds", "Support.")])
      const { skills } = yield* setup({ alpha })
      const catalog = yield* skills.list
      assert.deepStrictEqual(
        catalog.skills.map((s) => s.name),
        ["alpha/billing/refunds", "alpha/support/refunds"]
      )
    })
  )

  it.scoped("verification: a wrong digest fails after one skills/get, the content is not used", () =>
    Effect.gen(function* () {
      const skill = servedSkill("deploy", "Deploy it.")
      const right = computedManifest(skill)
      skill.manifest = [{ ...right[0]!, digest: sha256Digest(new TextEncoder().encode("other")) }]
      const alpha = state([skill])
      const { skills, count } = yield* setup({ alpha })
      const changes = yield* skills.changes
      assert.strictEqual(
        yield* failure(skills.read("alpha", main("deploy"))),
        "verification failed: skill://deploy/SKILL.md of MCP server 'alpha' does not match its manifest digest"
      )
      assert.deepStrictEqual(
        alpha.requests.map((r) => r.method),
        ["skills/list", "resources/read", "skills/get"]
      )
      assert.deepStrictEqual(alpha.requests[2]!.params, { uri: main("deploy") })
      // the refreshed entry is the same: no change is reported
      assert.strictEqual(yield* Queue.size(changes), 0)
      // a wrong size is a verification failure too (before the digest)
      skill.manifest = [{ ...right[0]!, size: right[0]!.size + 1 }]
      assert.strictEqual(
        yield* failure(skills.read("alpha", main("deploy"))),
        "verification failed: skill://deploy/SKILL.md of MCP server 'alpha' does not match its manifest size"
      )
      assert.strictEqual(count(alpha, "skills/get"), 2)
      // the size fix is a changed file set
      assert.deepStrictEqual(Chunk.toReadonlyArray(yield* Queue.takeAll(changes)), [
        { server: "alpha", uri: main("deploy") }
      ])
    })
  )

  it.scoped("verification: a file changed after listing is refreshed once, verified anew, reported changed", () =>
    Effect.gen(function* () {
      const skill = servedSkill("deploy", "Deploy it.", { "notes.md": "first" })
      const alpha = state([skill])
      const { skills, count } = yield* setup({ alpha })
      const changes = yield* skills.changes
      yield* skills.list
      skill.files["notes.md"] = "second version"
      const read = yield* skills.read("alpha", skillFileUri("deploy", "notes.md"))
      assert.strictEqual(read.text, "second version")
      assert.strictEqual(count(alpha, "skills/get"), 1)
      assert.deepStrictEqual(yield* Queue.take(changes), { server: "alpha", uri: main("deploy") })
      // the refreshed entry is held: the catalog's next read of the same file needs no second refresh
      yield* skills.read("alpha", skillFileUri("deploy", "notes.md"))
      assert.strictEqual(count(alpha, "skills/get"), 1)
    })
  )

  it.scoped("verification: an unlisted file is a changed skill; a file nobody lists is refused unread", () =>
    Effect.gen(function* () {
      const skill = servedSkill("deploy", "Deploy it.")
      const alpha = state([skill])
      const { skills, count } = yield* setup({ alpha })
      const changes = yield* skills.changes
      yield* skills.list
      assert.strictEqual(
        yield* failure(skills.read("alpha", skillFileUri("deploy", "secret.md"))),
        "verification failed: skill://deploy/secret.md is not listed in its skill's manifest on MCP server 'alpha'"
      )
      assert.strictEqual(count(alpha, "resources/read"), 0)
      assert.strictEqual(count(alpha, "skills/get"), 1)
      assert.strictEqual(yield* Queue.size(changes), 0)
      skill.files["added.md"] = "added later"
      const read = yield* skills.read("alpha", skillFileUri("deploy", "added.md"))
      assert.strictEqual(read.text, "added later")
      assert.strictEqual(count(alpha, "skills/get"), 2)
      assert.deepStrictEqual(yield* Queue.take(changes), { server: "alpha", uri: main("deploy") })
    })
  )

  it.scoped("limits: 513 files or more than 16 MiB are refused from the entry, before any read", () =>
    Effect.gen(function* () {
      const many = servedSkill("many", "Many files.")
      for (let i = 0; i < 512; i++) many.files[`f/${i}.txt`] = `${i}`
      const big = servedSkill("big", "Big.")
      const bigManifest = computedManifest(big)
      big.manifest = [
        ...bigManifest,
        { uri: skillFileUri("big", "huge.bin"), digest: bigManifest[0]!.digest, size: 16777216 }
      ]
      const edge = servedSkill("edge", "Exactly 512 files.")
      for (let i = 0; i < 511; i++) edge.files[`f/${i}.txt`] = `${i}`
      const alpha = state([many, big, edge])
      const { skills, count } = yield* setup({ alpha })
      const catalog = yield* skills.list
      assert.deepStrictEqual(
        catalog.skills.map((s) => [s.name, s.problem]),
        [
          ["alpha/many", "the skill lists 513 files, more than the limit of 512"],
          [
            "alpha/big",
            `the skill's files total ${16777216 + bigManifest[0]!.size} bytes, more than the limit of 16777216`
          ],
          ["alpha/edge", null]
        ]
      )
      assert.strictEqual(
        yield* failure(skills.read("alpha", main("many"))),
        "skill://many/SKILL.md: the skill lists 513 files, more than the limit of 512"
      )
      assert.include(yield* failure(skills.read("alpha", main("big"))), "more than the limit of 16777216")
      assert.strictEqual(count(alpha, "resources/read"), 0)
      const read = yield* skills.read("alpha", skillFileUri("edge", "f/510.txt"))
      assert.strictEqual(read.text, "510")
    })
  )

  it.scoped("dynamic manifests: reads within the skill are unverified, outside it refused", () =>
    Effect.gen(function* () {
      const skill = servedSkill("daily", "Daily report.", { "today.md": "generated" })
      skill.manifest = "dynamic"
      const alpha = state([skill])
      const { skills } = yield* setup({ alpha })
      const catalog = yield* skills.list
      assert.strictEqual(catalog.skills[0]!.resources, "dynamic")
      const read = yield* skills.read("alpha", skillFileUri("daily", "today.md"))
      assert.deepStrictEqual([read.text, read.verified], ["generated", false])
      assert.strictEqual(
        yield* failure(skills.read("alpha", "skill://elsewhere/x.md")),
        "skill://elsewhere/x.md is not a file of a skill of MCP server 'alpha'"
      )
    })
  )

  it.scoped("blob files are verified on their decoded bytes and returned as base64", () =>
    Effect.gen(function* () {
      const bytes = new Uint8Array([0, 1, 2, 255])
      const alpha = state([servedSkill("tools", "Tools.", { "bin/tool": bytes })])
      const { skills } = yield* setup({ alpha })
      const read = yield* skills.read("alpha", skillFileUri("tools", "bin/tool"))
      assert.deepStrictEqual([read.blob, read.text, read.verified], ["AAEC/w==", undefined, true])
    })
  )

  it.scoped(
    "directory reads: the server's listing within the held manifest; without directoryRead, the manifest alone",
    () =>
      Effect.gen(function* () {
        const withDir = servedSkill("pdf", "PDF.", { "templates/a.md": "a", "templates/regional/eu.md": "eu" })
        const alpha = state([withDir], { directoryRead: true })
        const beta = state([servedSkill("pdf", "PDF.", { "templates/b.md": "b" })])
        const { skills, count } = yield* setup({ alpha, beta })
        yield* skills.list
        withDir.files["templates/late.md"] = "added after listing"
        const listing = yield* skills.readDirectory("alpha", "skill://pdf/templates")
        assert.deepStrictEqual(listing, {
          server: "alpha",
          uri: "skill://pdf/templates",
          resources: [
            { uri: "skill://pdf/templates/a.md", name: "a.md", mimeType: "text/markdown" },
            { uri: "skill://pdf/templates/regional", name: "regional", mimeType: "inode/directory" }
          ]
        })
        assert.deepStrictEqual(alpha.requests.at(-1), {
          method: "resources/directory/read",
          params: { uri: "skill://pdf/templates" }
        })
        const fromManifest = yield* skills.readDirectory("beta", "skill://pdf")
        assert.deepStrictEqual(
          fromManifest.resources.map((r) => [r.uri, r.mimeType]),
          [
            ["skill://pdf/SKILL.md", ""],
            ["skill://pdf/templates", "inode/directory"]
          ]
        )
        assert.strictEqual(count(beta), 1)
        assert.strictEqual(
          yield* failure(skills.readDirectory("beta", "skill://pdf/nothing")),
          "skill://pdf/nothing is not a directory of a skill of MCP server 'beta' that it can list"
        )
      })
  )

  it.scoped("pagination: every page under the guard; malformed entries skipped with a warning", () =>
    Effect.gen(function* () {
      const paged = state(
        Array.from({ length: 12 }, (_, i) => servedSkill(`s${i}`, `Skill ${i}.`)),
        { pageSize: 1 }
      )
      const odd = servedSkill("named-wrong", "Mismatch.")
      odd.frontmatter = { name: "other", description: "Mismatch." }
      const beta = state([servedSkill("ok", "Fine."), odd], { pageSize: 1 })
      const { skills, count } = yield* setup({ alpha: paged, beta })
      const catalog = yield* skills.list
      assert.strictEqual(count(paged, "skills/list"), 10)
      assert.deepStrictEqual(paged.requests[1]!.params, { cursor: "1" })
      assert.deepStrictEqual(
        catalog.skills.map((s) => s.name),
        [...Array.from({ length: 10 }, (_, i) => `alpha/s${i}`), "beta/ok"]
      )
      assert.deepStrictEqual(catalog.warnings, [
        "Skills discovery of MCP server 'alpha' was truncated at 10 pages.",
        "Skipped 1 malformed skill entries of MCP server 'beta'."
      ])
    })
  )

  it.scoped("a skill reached by URI only is confirmed with skills/get", () =>
    Effect.gen(function* () {
      const hidden = servedSkill("hidden", "Not listed.")
      hidden.unlisted = true
      const alpha = state([hidden])
      const { skills } = yield* setup({ alpha })
      assert.deepStrictEqual((yield* skills.list).skills, [])
      const read = yield* skills.read("alpha", main("hidden"))
      assert.include(read.text!, "# hidden")
      assert.deepStrictEqual(
        alpha.requests.map((r) => r.method),
        ["skills/list", "skills/get", "resources/read"]
      )
    })
  )

  it.scoped("`[skills] extension = false`: no request, an empty catalog, reads refused", () =>
    Effect.gen(function* () {
      const alpha = state([servedSkill("deploy", "Deploy it.")])
      const { skills } = yield* setup({ alpha }, { extension: false })
      assert.deepStrictEqual(yield* skills.list, { skills: [], warnings: [] })
      assert.strictEqual(
        yield* failure(skills.read("alpha", main("deploy"))),
        "the skills extension is disabled by `[skills] extension`"
      )
      assert.deepStrictEqual(alpha.requests, [])
    })
  )

  it.scoped("allowed-tools is shown and the frontmatter is kept verbatim", () =>
    Effect.gen(function* () {
      const alpha = state([
        servedSkill("deploy", "Deploy it.", {}, { "allowed-tools": "Bash(git:*)", metadata: { version: "2" } })
      ])
      const { skills } = yield* setup({ alpha })
      const entry = (yield* skills.list).skills[0]!
      assert.strictEqual(entry.allowedTools, "Bash(git:*)")
      assert.deepStrictEqual(entry.frontmatter, {
        name: "deploy",
        description: "Deploy it.",
        "allowed-tools": "Bash(git:*)",
        metadata: { version: "2" }
      })
    })
  )
})
