/** Host resource rules (docs/policy.md): the matcher, and the model tools over real in-memory fixture servers. */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { assert, describe, it, layer } from "@effect/vitest"
import { fileTreePath, fileTreeReads, fileTreeStdioCommand } from "@mcp-resources/fixtures"
import { Config, Messages, ResourcePolicy } from "@mcp-resources/protocol"
import { McpTransport, ResourceClient, type ServerEntry } from "@mcp-resources/resource-client"
import { Context, Effect, Either, Layer } from "effect"
import fc from "fast-check"
import { LifecycleSink, ToolHandlers } from "../src/index.js"
import { harness } from "./utils/harness.js"
import { entryDefaults } from "./ServerMatrix.js"

const rules = (deny: ReadonlyArray<string>, allow?: ReadonlyArray<string>): ResourcePolicy.Rules =>
  allow === undefined ? { deny } : { allow, deny }

describe("ResourcePolicy matcher", () => {
  it("`*` stays within one path segment, `**` crosses segments", () => {
    assert.isTrue(ResourcePolicy.matches("file:///repo/*", "file:///repo/a.txt"))
    assert.isFalse(ResourcePolicy.matches("file:///repo/*", "file:///repo/src/a.txt"))
    assert.isTrue(ResourcePolicy.matches("file:///repo/**", "file:///repo/src/a.txt"))
    assert.isTrue(ResourcePolicy.matches("file:///repo/**", "file:///repo/"))
    assert.isFalse(ResourcePolicy.matches("file:///repo/**", "file:///repository/a"))
    assert.isTrue(ResourcePolicy.matches("file:///*/x/*.md", "file:///a/x/b.md"))
    assert.isFalse(ResourcePolicy.matches("file:///*/x/*.md", "file:///a/b/x/b.md"))
  })

  it("matches the string exactly: case-sensitive, no decoding, regex characters literal", () => {
    assert.isFalse(ResourcePolicy.matches("file:///Repo/**", "file:///repo/a"))
    // %2F is not a segment separator: nothing is decoded
    assert.isTrue(ResourcePolicy.matches("file:///home/*", "file:///home/a%2Fb"))
    assert.isFalse(ResourcePolicy.matches("file:///home/a/b", "file:///home/a%2Fb"))
    assert.isTrue(ResourcePolicy.matches("file:///home/a%2Fb", "file:///home/a%2Fb"))
    assert.isFalse(ResourcePolicy.matches("file:///a.b", "file:///aXb"))
    assert.isTrue(ResourcePolicy.matches("db://x?(y)+", "db://x?(y)+"))
  })

  it("unicode URIs match by code points", () => {
    assert.isTrue(ResourcePolicy.matches("file:///données/*", "file:///données/été.txt"))
    assert.isTrue(ResourcePolicy.matches("file:///*/😀", "file:///日本/😀"))
    assert.isFalse(ResourcePolicy.matches("file:///donnees/*", "file:///données/x"))
  })

  it("a URI template as a pattern matches what it can expand to", () => {
    assert.isTrue(ResourcePolicy.matches("file:///home/{user}/notes", "file:///home/ann/notes"))
    assert.isFalse(ResourcePolicy.matches("file:///home/{user}/notes", "file:///home/ann/x/notes"))
    assert.isTrue(ResourcePolicy.matches("file:///{+path}", "file:///a/b/c"))
    assert.isTrue(ResourcePolicy.matches("file:///r{/segments}", "file:///r/a/b"))
    assert.isTrue(ResourcePolicy.matches("file:///r{/segments}", "file:///r"))
    assert.isTrue(ResourcePolicy.matches("db://t{?q,limit}", "db://t?q=1&limit=2"))
    assert.isFalse(ResourcePolicy.matches("db://t{?q}", "db://t/x"))
  })

  it("deny wins over allow; no allow list allows everything not denied; an allow list allows only its matches", () => {
    const both = rules(["file:///repo/secret/**"], ["file:///repo/**"])
    assert.isTrue(ResourcePolicy.isAllowed(both, "file:///repo/a"))
    assert.isFalse(ResourcePolicy.isAllowed(both, "file:///repo/secret/key"))
    assert.isFalse(ResourcePolicy.isAllowed(both, "file:///home/a"))
    assert.isTrue(ResourcePolicy.isAllowed(rules(["file:///home/**"]), "file:///etc/x"))
    assert.deepStrictEqual(ResourcePolicy.decide(both, "file:///repo/secret/key"), {
      allowed: false,
      rule: { list: "deny", pattern: "file:///repo/secret/**" }
    })
    assert.deepStrictEqual(ResourcePolicy.decide(both, "file:///etc"), { allowed: false })
  })

  it("property: `**` matches every URI with the prefix, a literal pattern only itself, deny always wins", () => {
    const uri = fc.string({ unit: "grapheme", maxLength: 30 })
    fc.assert(
      fc.property(uri, uri, (prefix, rest) => {
        const literal = prefix.replace(/[*{]/g, "_")
        assert.isTrue(ResourcePolicy.matches(`${literal}**`, `${literal}${rest}`))
        assert.isTrue(ResourcePolicy.matches(literal, literal))
        if (rest.length > 0) assert.isFalse(ResourcePolicy.matches(literal, `${literal}${rest}`))
        const target = `${literal}${rest}`
        assert.isFalse(
          ResourcePolicy.isAllowed(rules([target.replace(/[*{]/g, "_")], ["**"]), target.replace(/[*{]/g, "_"))
        )
      })
    )
    fc.assert(
      fc.property(uri, (segment) => {
        const s = segment.replace(/[/*{]/g, "_")
        assert.isTrue(ResourcePolicy.matches("x:///*", `x:///${s}`))
        assert.isFalse(ResourcePolicy.matches("x:///*", `x:///${s}/${s}`))
      })
    )
  })

  it("config: [resources] and [mcp_servers.NAME.resources] are read; a server's allow replaces the default, denies add up", () => {
    const parsed = Config.parse(
      [
        "[resources]",
        'allow = ["file:///repo/**"]',
        'deny = ["file:///repo/.env"]',
        "[mcp_servers.a]",
        'command = "x"',
        "[mcp_servers.a.resources]",
        'allow = ["mem://**"]',
        'deny = ["mem://secret/**"]',
        "[mcp_servers.b]",
        'command = "x"'
      ].join("\n"),
      "c.toml"
    )
    assert.isTrue(Either.isRight(parsed))
    const config = Either.getOrThrow(parsed)
    assert.deepStrictEqual(ResourcePolicy.forServer(config, "a"), {
      allow: ["mem://**"],
      deny: ["file:///repo/.env", "mem://secret/**"]
    })
    assert.deepStrictEqual(ResourcePolicy.forServer(config, "b", ["x://**"]), {
      allow: ["file:///repo/**"],
      deny: ["file:///repo/.env", "x://**"]
    })
    assert.isUndefined(ResourcePolicy.forServer(Config.empty, "a"))
    const bad = Config.parse("[resources]\ndeny = [1]\n", "c.toml")
    assert.match(
      Either.isLeft(bad) ? bad.left.message : "",
      /^c\.toml: resources\.deny\.\[0\]|^c\.toml: resources\.deny/
    )
  })
})

const listed = [
  { uri: "file:///repo/a.txt", name: "a" },
  { uri: "file:///repo/secret/key", name: "key" },
  { uri: "file:///home/ann/notes", name: "notes" }
]
const spec = {
  resourcePages: [{ result: { resources: listed } }],
  templatePages: [
    {
      result: {
        resourceTemplates: [
          { uriTemplate: "file:///home/{user}/notes", name: "home" },
          { uriTemplate: "file:///repo/{+path}", name: "repo" }
        ]
      }
    }
  ],
  reads: [
    { uri: "file:///repo/a.txt", result: { contents: [{ uri: "file:///repo/a.txt", text: "A" }] } },
    { uri: "file:///home/ann/notes", result: { contents: [{ uri: "file:///home/ann/notes", text: "N" }] } }
  ]
}
const policy: Partial<Config.Config> = { resources: { deny: ["file:///home/**", "file:///repo/secret/**"] } }

const call = (ctx: ToolHandlers.ToolContext, name: string, args: Record<string, unknown>, callId = "c1") =>
  ToolHandlers.callTool(ctx, { callId, name, arguments: JSON.stringify(args) }).pipe(
    Effect.provide(LifecycleSink.layerNoop)
  )

describe("resource rules in the model tools", () => {
  it.scoped("no rules: the outputs are exactly those without policy", () =>
    Effect.gen(function* () {
      const { ctx } = yield* harness({ srv: { spec } })
      const list = yield* call(ctx, "list_mcp_resources", {})
      assert.strictEqual(list.output, JSON.stringify({ resources: listed.map((r) => ({ server: "srv", ...r })) }))
    })
  )

  it.scoped(
    "lists leave out denied resources and templates (single server and aggregate); codex says nothing more",
    () =>
      Effect.gen(function* () {
        const { ctx } = yield* harness({ srv: { spec }, other: { spec } }, { config: policy })
        const aggregate = yield* call(ctx, "list_mcp_resources", {})
        assert.deepStrictEqual(JSON.parse(aggregate.output), {
          resources: [
            { server: "other", uri: "file:///repo/a.txt", name: "a" },
            { server: "srv", uri: "file:///repo/a.txt", name: "a" }
          ]
        })
        const single = yield* call(ctx, "list_mcp_resources", { server: "srv" })
        assert.deepStrictEqual(JSON.parse(single.output), {
          server: "srv",
          resources: [{ server: "srv", uri: "file:///repo/a.txt", name: "a" }]
        })
        const templates = yield* call(ctx, "list_mcp_resource_templates", { server: "srv" })
        assert.deepStrictEqual(JSON.parse(templates.output), {
          server: "srv",
          resourceTemplates: [{ server: "srv", uriTemplate: "file:///repo/{+path}", name: "repo" }]
        })
        assert.notInclude(aggregate.output, "hidden")
      })
  )

  it.scoped("extended profile: lists say how many entries were hidden, never which", () =>
    Effect.gen(function* () {
      const { ctx } = yield* harness({ srv: { spec }, other: { spec } }, { config: policy })
      const aggregate = yield* call({ ...ctx, profile: "extended" }, "list_mcp_resources", {})
      const payload = JSON.parse(aggregate.output)
      assert.strictEqual(payload.hiddenByPolicy, 4)
      assert.notInclude(aggregate.output, "secret")
      assert.notInclude(aggregate.output, "home")
      const single = yield* call({ ...ctx, profile: "extended" }, "list_mcp_resource_templates", { server: "srv" })
      assert.strictEqual(JSON.parse(single.output).hiddenByPolicy, 1)
    })
  )

  it.scoped("a denied read is refused before any request, with the same text whether or not it exists", () =>
    Effect.gen(function* () {
      const { ctx, fixtures } = yield* harness({ srv: { spec } }, { config: policy })
      const before = fixtures.srv!.requests.length
      const existing = yield* call(ctx, "read_mcp_resource", { server: "srv", uri: "file:///home/ann/notes" })
      const missing = yield* call(ctx, "read_mcp_resource", { server: "srv", uri: "file:///home/bob/none" })
      assert.deepStrictEqual(existing, {
        output: "resources/read failed: access to file:///home/ann/notes is denied by host policy",
        success: false
      })
      assert.deepStrictEqual(missing, {
        output: Messages.policy.readDenied("file:///home/bob/none"),
        success: false
      })
      assert.strictEqual(fixtures.srv!.requests.length, before)
      const extended = yield* call({ ...ctx, profile: "extended" }, "read_mcp_resource", {
        server: "srv",
        uri: "file:///home/ann/notes"
      })
      assert.strictEqual(extended.output, Messages.policy.readDenied("file:///home/ann/notes"))
      const allowed = yield* call(ctx, "read_mcp_resource", { server: "srv", uri: "file:///repo/a.txt" })
      assert.isTrue(allowed.success)
    })
  )

  it.scoped("a denied read still records its started and failed completed items", () =>
    Effect.gen(function* () {
      const { ctx } = yield* harness({ srv: { spec } }, { config: policy })
      const events = yield* ToolHandlers.callTool(ctx, {
        callId: "c9",
        name: "read_mcp_resource",
        arguments: JSON.stringify({ server: "srv", uri: "file:///home/ann/notes" })
      }).pipe(Effect.zipRight(LifecycleSink.recorded), Effect.provide(LifecycleSink.layerRecorder))
      assert.deepStrictEqual(
        events.map((e) => [e.phase, e.item.status, e.item.error?.message ?? null]),
        [
          ["started", "inProgress", null],
          ["completed", "failed", Messages.policy.readDenied("file:///home/ann/notes")]
        ]
      )
    })
  )

  it.scoped("a thread's deny rules add to the config's; an allow list limits reads", () =>
    Effect.gen(function* () {
      const { ctx } = yield* harness({ srv: { spec } }, { config: { resources: { allow: ["file:///**"] } } })
      const thread = { ...ctx, resourceDeny: ["file:///repo/a.txt"] }
      const read = yield* call(thread, "read_mcp_resource", { server: "srv", uri: "file:///repo/a.txt" })
      assert.strictEqual(read.output, Messages.policy.readDenied("file:///repo/a.txt"))
      const plain = yield* call(ctx, "read_mcp_resource", { server: "srv", uri: "file:///repo/a.txt" })
      assert.isTrue(plain.success)
      const limited = { ...ctx, config: { ...ctx.config, resources: { allow: ["file:///repo/**"] } } }
      const outside = yield* call(limited, "read_mcp_resource", { server: "srv", uri: "file:///home/ann/notes" })
      assert.strictEqual(outside.output, Messages.policy.readDenied("file:///home/ann/notes"))
    })
  )
})

/**
 * Against a server that normalizes URIs (the file-tree fixture over stdio: WHATWG URL, every
 * percent-encoding decoded, `path.resolve`): no other spelling of a denied URI reads it, through the
 * codex and extended read tools and templates; the URI sent and echoed is the one asked for.
 */
const denied = { env: "/repo/.env", key: "/repo/secrets/key" } as const
const treeFiles: Readonly<Record<string, string>> = {
  "/repo/.env": "ENV-MARKER-7f3a",
  "/repo/secrets/key": "KEY-MARKER-91c2",
  "/repo/a.txt": "A-TEXT"
}
const treeRules: Partial<Config.Config> = { resources: { deny: ["file:///repo/.env", "file:///repo/secrets/**"] } }

class Tree extends Context.Tag("test/FileTree")<
  Tree,
  { readonly ctx: ToolHandlers.ToolContext; readonly log: string }
>() {}

const treeLayer = Layer.scoped(
  Tree,
  Effect.gen(function* () {
    const root = mkdtempSync(join(tmpdir(), "file-tree-"))
    yield* Effect.addFinalizer(() => Effect.sync(() => rmSync(root, { recursive: true, force: true })))
    for (const [path, text] of Object.entries(treeFiles)) {
      mkdirSync(dirname(join(root, path)), { recursive: true })
      writeFileSync(join(root, path), text)
    }
    const log = join(root, "..", `${root.split("/").pop()}.log`)
    yield* Effect.addFinalizer(() => Effect.sync(() => rmSync(log, { force: true })))
    const command = fileTreeStdioCommand({ root, log })
    const config: Config.Config = { ...Config.empty, ...treeRules }
    const entry: ServerEntry.ServerEntry = {
      name: "fs",
      transport: { _tag: "stdio", command: command.command, args: command.args, env: {} },
      ...entryDefaults
    }
    const client = yield* ResourceClient.make({ config, servers: [entry] }).pipe(Effect.provide(McpTransport.layer))
    const set = yield* client.acquire
    yield* set.awaitAllSettled
    return { ctx: { set, config, orchestratorMcpEnabled: true, truncation: config.truncation }, log }
  })
)

/** Spellings of a path's `file:` URI that a normalizing server reads as that path. */
const spelling = (path: string) => {
  const segments = path.slice(1).split("/")
  const char = (c: string) =>
    fc.constantFrom(
      c,
      `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
      `%${c.charCodeAt(0).toString(16).toLowerCase()}`
    )
  const word = (s: string) => fc.tuple(...[...s].map(char)).map((cs) => cs.join(""))
  const noise = fc.constantFrom("", "", "./", "x/../", "%2E/", "%2e%2E/../x/", "/")
  const separator = fc.constantFrom("/", "/", "/", "//", "%2F", "%2f", "\\", "/./")
  return fc
    .tuple(
      fc.constantFrom("file", "FILE", "File"),
      fc.constantFrom("", "localhost", "LOCALHOST"),
      fc.tuple(...segments.map((s) => fc.tuple(noise, word(s)))),
      fc.array(separator, { minLength: segments.length, maxLength: segments.length }),
      fc.constantFrom("", "", "/", "/.", "?v=1", "#top")
    )
    .map(([scheme, host, parts, separators, tail]) => {
      let out = `${scheme}://${host}`
      parts.forEach(([pre, s], i) => {
        out += `${i === 0 ? "/" : separators[i]!}${pre}${s}`
      })
      return out + tail
    })
    .filter((uri) => fileTreePath(uri) === path)
}

const outputOf = (ctx: ToolHandlers.ToolContext, name: string, args: Record<string, unknown>) =>
  ToolHandlers.callTool(ctx, { callId: "n1", name, arguments: JSON.stringify(args) }).pipe(
    Effect.provide(LifecycleSink.layerNoop)
  )

describe("resource rules against a server that normalizes URIs", () => {
  it("property: no spelling the server reads as a denied file is allowed by the rules", () => {
    const rules = ResourcePolicy.forServer({ ...Config.empty, ...treeRules }, "fs")!
    fc.assert(
      fc.property(fc.oneof(spelling(denied.env), spelling(denied.key)), (uri) => {
        assert.isFalse(ResourcePolicy.isAllowed(rules, uri), uri)
      }),
      { numRuns: 3000 }
    )
    // spellings of an allowed file stay allowed unless the rules cannot judge them
    fc.assert(
      fc.property(spelling("/repo/a.txt"), (uri) => {
        const decision = ResourcePolicy.decide(rules, uri)
        assert.isTrue(decision.allowed || decision.unjudgeable !== undefined, uri)
      }),
      { numRuns: 500 }
    )
  })

  layer(treeLayer, { timeout: 120_000 })((it) => {
    it.effect("the spellings of the attack read nothing denied, by URI (codex, extended) and by template", () =>
      Effect.gen(function* () {
        const { ctx, log } = yield* Tree
        const extended = { ...ctx, profile: "extended" as const }
        const attacks = [
          "FILE:///repo/.env",
          "file:///repo/%2Eenv",
          "file:///repo/./.env",
          "file:///repo//.env",
          "file:///repo/x/../.env",
          "file:///repo/.env/",
          "file:///repo/%73ecrets/key",
          "file:///repo/secrets%2Fkey",
          "file://localhost/repo/.env",
          "file:///repo\\.env",
          "file:///repo/.env?x=1"
        ]
        for (const uri of attacks) {
          for (const context of [ctx, extended]) {
            const out = yield* outputOf(context, "read_mcp_resource", { server: "fs", uri })
            assert.isFalse(out.success, uri)
            assert.notInclude(out.output, "MARKER", uri)
            // the refusal names the URI exactly as asked
            assert.include(out.output, `access to ${uri} is denied by host policy`)
          }
        }
        for (const path of ["./.env", ".env/", "x/../.env", "%2Eenv", "secrets%2Fkey", "secrets/./key"]) {
          const out = yield* outputOf(extended, "read_mcp_resource", {
            server: "fs",
            uriTemplate: "file:///repo/{+path}",
            arguments: { path }
          })
          assert.isFalse(out.success, path)
          assert.notInclude(out.output, "MARKER", path)
        }
        // nothing denied was read; the allowed file is read under any spelling, sent as asked
        const allowed = yield* outputOf(ctx, "read_mcp_resource", { server: "fs", uri: "FILE:///repo/%61.txt" })
        assert.isTrue(allowed.success)
        assert.include(allowed.output, "A-TEXT")
        assert.include(allowed.output, '"uri":"FILE:///repo/%61.txt"')
        const reads = fileTreeReads(log)
        assert.deepStrictEqual(
          reads.map((r) => r.uri),
          ["FILE:///repo/%61.txt"]
        )
      })
    )

    it.effect("property: no spelling of a denied URI gets through the read tool to the server", () =>
      Effect.gen(function* () {
        const { ctx, log } = yield* Tree
        const samples = fc.sample(fc.oneof(spelling(denied.env), spelling(denied.key)), 150)
        for (const [i, uri] of samples.entries()) {
          const context = i % 2 === 0 ? ctx : { ...ctx, profile: "extended" as const }
          const out = yield* outputOf(context, "read_mcp_resource", { server: "fs", uri })
          assert.isFalse(out.success, uri)
          assert.notInclude(out.output, "MARKER", uri)
        }
        assert.deepStrictEqual(
          fileTreeReads(log).filter((r) => r.path === denied.env || r.path === denied.key),
          []
        )
      })
    )
  })
})
