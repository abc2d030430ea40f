/**
 * The docs as a reader follows them: every relative link of `docs/` and of the READMEs reaches a file
 * and a heading that exist; the command-line reference lists every flag the programs parse, once;
 * `docs/installing.md` names every public package and every CLI command.
 */
import { assert, describe, it } from "@effect/vitest"
import * as AppOptions from "@mcp-resources/app-server/AppOptions"
import * as CliCommands from "@mcp-resources/app-server/CliCommands"
import * as CommandLine from "@mcp-resources/app-server/CommandLine"
import * as NodeFs from "node:fs"
import * as NodePath from "node:path"
import { inlineCode } from "../src/Markdown.js"
import { anchorsOf, brokenLinks, checkedFiles, linksOf } from "../src/Links.js"
import { repoRoot } from "../src/Reference.js"

const root = repoRoot(NodePath.dirname(new URL(import.meta.url).pathname))
const read = (file: string) => NodeFs.readFileSync(NodePath.join(root, file), "utf8")

describe("links", () => {
  it("every relative link and anchor in docs/ and the READMEs reaches its target", () => {
    const files = checkedFiles(root)
    assert.include(files, "README.md")
    assert.include(files, "docs/cli.md")
    assert.include(files, "apps/app-server/README.md")
    assert.deepStrictEqual(brokenLinks(root, files), [])
  })

  it("anchors are GitHub's: code and punctuation kept as text, duplicates numbered, <a id> and <a name> too", () => {
    const anchors = anchorsOf(
      [
        "# Command line",
        "## `mcp-resources` widgets",
        "### skills/extension/list",
        "## Audit",
        "## Audit",
        "### The `--flag=value` form (and more)",
        '<a id="custom"></a>',
        "```md",
        "# not a heading",
        "```"
      ].join("\n")
    )
    assert.deepStrictEqual(
      [...anchors].sort(),
      [
        "audit",
        "audit-1",
        "command-line",
        "custom",
        "mcp-resources-widgets",
        "skillsextensionlist",
        "the---flagvalue-form-and-more"
      ].sort()
    )
  })

  it("links in code are no links; a missing file or heading is reported with its reason", () => {
    assert.deepStrictEqual(linksOf("[a](x.md#y) `[b](z.md)`\n\n```\n[c](w.md)\n```\n![i](img.png)"), [
      "x.md#y",
      "img.png"
    ])
    const dir = NodeFs.mkdtempSync(NodePath.join(root, "tooling", "reference", ".links-"))
    try {
      NodeFs.writeFileSync(
        NodePath.join(dir, "a.md"),
        "# A\n\n[ok](b.md#b-heading) [gone](c.md) [nohead](b.md#nope) [self](#a)\n"
      )
      NodeFs.writeFileSync(NodePath.join(dir, "b.md"), "# B heading\n")
      const rel = NodePath.relative(root, NodePath.join(dir, "a.md"))
      assert.deepStrictEqual(
        brokenLinks(root, [rel]).map((b) => [b.link, b.problem]),
        [
          ["c.md", `no file ${NodePath.relative(root, NodePath.join(dir, "c.md"))}`],
          ["b.md#nope", `no heading #nope in ${NodePath.relative(root, NodePath.join(dir, "b.md"))}`]
        ]
      )
    } finally {
      NodeFs.rmSync(dir, { recursive: true, force: true })
    }
  })
})

describe("the command-line reference", () => {
  const cli = read("docs/cli.md")
  const block = (name: string) => {
    const match = new RegExp(`<!-- BEGIN GENERATED: ${name} -->\\n([\\s\\S]*?)<!-- END GENERATED: ${name} -->`).exec(
      cli
    )
    assert.isNotNull(match, `docs/cli.md has no block ${name}`)
    return match![1]!
  }

  it("lists every flag of the app-server exactly once, as --help prints them", () => {
    const rows = block("cli:server-flags")
      .split("\n")
      .filter((line) => line.startsWith("| `"))
    const names = rows.map((row) => /^\| `([^ `]+)/.exec(row)![1]!)
    assert.deepStrictEqual(
      names,
      AppOptions.flags.map((flag) => flag.name)
    )
    for (const flag of AppOptions.flags) assert.include(AppOptions.usage, flag.name)
  })

  it("lists every CLI command form and option once", () => {
    const commands = block("cli:commands")
    for (const line of CliCommands.formLines()) {
      assert.strictEqual(commands.split(`\`mcp-resources ${line.form}\``).length, 2, line.form)
    }
    const options = block("cli:options")
    for (const option of CliCommands.allOptions) {
      assert.strictEqual(options.split(`| ${inlineCode(CommandLine.synopsis(option))}`).length, 2, option.name)
    }
  })

  it("docs/installing.md names every public package and every CLI command", () => {
    const installing = read("docs/installing.md")
    const publics = ["packages", "apps", "tooling"].flatMap((group) =>
      NodeFs.readdirSync(NodePath.join(root, group))
        .map((name) => NodePath.join(root, group, name, "package.json"))
        .filter((file) => NodeFs.existsSync(file))
        .map((file) => JSON.parse(NodeFs.readFileSync(file, "utf8")) as { name: string; private?: boolean })
        .filter((m) => m.private !== true)
    )
    assert.isAtLeast(publics.length, 11)
    for (const m of publics) assert.include(installing, `| \`${m.name}\``, `${m.name} is not in the package table`)
    for (const command of CliCommands.commands)
      assert.include(installing, `\`mcp-resources ${command.name}`, command.name)
  })
})
