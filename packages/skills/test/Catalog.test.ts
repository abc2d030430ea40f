import { describe, it } from "@effect/vitest"
import { assert } from "@effect/vitest"
import type { Mcp } from "@mcp-resources/protocol"
import { Option } from "effect"
import * as Catalog from "../src/Catalog.js"
import * as SkillResource from "../src/SkillResource.js"

const skill = (uri: string, meta: Record<string, unknown> | undefined, description?: string): Mcp.Resource => ({
  uri,
  name: uri,
  ...(description === undefined ? {} : { description }),
  mimeType: "mcp/skill",
  ...(meta === undefined ? {} : { _meta: meta })
})

const plugin = (name: string, extra: Record<string, unknown> = {}) => ({ plugin_name: "p", skill_name: name, ...extra })

describe("SkillResource", () => {
  it("turns the spec's example resource into its entry, escaping the description", () => {
    const entry = SkillResource.toEntry(
      skill(
        "skill://plugin_demo/deploy",
        { plugin_name: "demo-plugin", skill_name: "deploy" },
        "Deploy\nthrough the <hosted> orchestrator."
      )
    )
    assert.strictEqual(
      JSON.stringify(Option.getOrThrow(entry)),
      '{"name":"demo-plugin:deploy","description":"Deploy through the &lt;hosted&gt; orchestrator.","package":"skill://plugin_demo/deploy","mainResource":"skill://plugin_demo/deploy/SKILL.md","visible":true}'
    )
  })

  it("S-9: skips a long skill name, a name with &, a missing plugin name, a full name over 128 characters and a control character in the description", () => {
    const skipped = [
      skill("skill://p/a", plugin("a".repeat(65))),
      skill("skill://p/b", plugin("a&b")),
      skill("skill://p/c", { skill_name: "c" }),
      skill("skill://p/d", { plugin_name: "p".repeat(64), skill_name: "s".repeat(64) }),
      skill("skill://p/e", plugin("e"), "bell \u0007")
    ]
    for (const resource of skipped) assert.isTrue(Option.isNone(SkillResource.toEntry(resource)), resource.uri)
    assert.isTrue(Option.isSome(SkillResource.toEntry(skill("skill://p/f", plugin("s".repeat(64))))))
  })

  it("skips a resource without _meta, with a non-string skill name, or a plugin name with < or >", () => {
    const skipped = [
      skill("skill://p/a", undefined),
      skill("skill://p/b", { plugin_name: "p", skill_name: 3 }),
      skill("skill://p/c", { plugin_name: "<p>", skill_name: "c" }),
      skill("skill://p/d", { plugin_name: "  ", skill_name: "d" })
    ]
    for (const resource of skipped) assert.isTrue(Option.isNone(SkillResource.toEntry(resource)), resource.uri)
  })

  it("S-10: a user skill is named by its whitespace-collapsed skill name", () => {
    const entry = Option.getOrThrow(
      SkillResource.toEntry(skill("skill://u/s", { source: "user", skill_name: "  my   skill " }))
    )
    assert.strictEqual(entry.name, "my skill")
    assert.strictEqual(entry.description, "")
  })

  it("removes trailing slashes before appending /SKILL.md", () => {
    assert.strictEqual(SkillResource.mainResourceOf("skill://p/d//"), "skill://p/d/SKILL.md")
  })
})

describe("Catalog", () => {
  it("S-4: only allow_implicit_invocation false hides an entry, and hidden entries are not rendered", () => {
    const catalog = Catalog.fromResources([
      skill("skill://p/t", plugin("t", { allow_implicit_invocation: true })),
      skill("skill://p/f", plugin("f", { allow_implicit_invocation: false })),
      skill("skill://p/m", plugin("m")),
      skill("skill://p/s", plugin("s", { allow_implicit_invocation: "false" }))
    ])
    assert.deepStrictEqual(
      catalog.skills.map((s) => [s.name, s.visible]),
      [
        ["p:t", true],
        ["p:f", false],
        ["p:m", true],
        ["p:s", true]
      ]
    )
    assert.deepStrictEqual(catalog.warnings, [])
    assert.strictEqual(
      Catalog.renderCatalog(catalog),
      [
        "- p:t:  (orchestrator package: skill://p/t)",
        "- p:m:  (orchestrator package: skill://p/m)",
        "- p:s:  (orchestrator package: skill://p/s)"
      ].join("\n")
    )
  })

  it("S-8: ten malformed skill URIs give one skipped warning; other mime types are ignored silently", () => {
    const uris = [
      "skill://a",
      "skill://a/",
      "skill://a//b",
      "skill://a/b?x",
      "skill://a/b#f",
      "skill://u@a/b",
      "skill://a:1/b",
      "SKILL://a/b",
      "file://a/b",
      "skill://a/b c"
    ]
    const catalog = Catalog.fromResources([
      ...uris.map((uri) => skill(uri, plugin("x"))),
      { uri: "skill://a/b", name: "text", mimeType: "text/plain", _meta: plugin("x") },
      { uri: "skill://a/c", name: "no mime" }
    ])
    assert.deepStrictEqual(catalog, {
      skills: [],
      warnings: ["Skipped 10 malformed orchestrator skill resources."],
      truncated: false
    })
  })

  it("S-11: keeps 100 visible skills and reports truncation", () => {
    const resources = Array.from({ length: 101 }, (_, i) => skill(`skill://p/s${i}`, plugin(`s${i}`)))
    const catalog = Catalog.fromResources(resources)
    assert.strictEqual(catalog.skills.length, 100)
    assert.strictEqual(catalog.skills[99]?.name, "p:s99")
    assert.isTrue(catalog.truncated)
    assert.deepStrictEqual(catalog.warnings, [
      "Orchestrator skill discovery was truncated at 100 visible skills, 1000 hidden skills, or 10 resource pages."
    ])
  })

  it("keeps 1000 hidden skills beside the visible ones, truncation before the skipped warning", () => {
    const hidden = Array.from({ length: 1001 }, (_, i) =>
      skill(`skill://h/s${i}`, plugin(`h${i}`, { allow_implicit_invocation: false }))
    )
    const catalog = Catalog.fromResources([...hidden, skill("skill://v/s", plugin("v")), skill("skill://v/x", {})])
    assert.strictEqual(catalog.skills.length, 1001)
    assert.strictEqual(catalog.skills.filter((s) => s.visible).length, 1)
    assert.isTrue(catalog.truncated)
    assert.deepStrictEqual(catalog.warnings, [
      "Orchestrator skill discovery was truncated at 100 visible skills, 1000 hidden skills, or 10 resource pages.",
      "Skipped 1 malformed orchestrator skill resources."
    ])
  })

  it("the empty catalog renders as the empty string", () => {
    assert.deepStrictEqual(Catalog.emptyCatalog, { skills: [], warnings: [], truncated: false })
    assert.strictEqual(Catalog.renderCatalog(Catalog.emptyCatalog), "")
  })
})
