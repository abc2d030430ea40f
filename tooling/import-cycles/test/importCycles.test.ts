/**
 * No package's or app's `src` has an import cycle (type-only imports included), and the check itself
 * finds one: a fixture with a cycle through a type-only import and a `.js` specifier.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { assert, describe, it } from "vitest"
import { describeCycle, importGraph, sourceDirs } from "../src/index.js"

const root = fileURLToPath(new URL("../../..", import.meta.url))

describe("import cycles", () => {
  it("finds a cycle through a type-only import and .js specifiers, and names it", { timeout: 60_000 }, async () => {
    const dir = mkdtempSync(join(tmpdir(), "import-cycles-"))
    try {
      writeFileSync(join(dir, "A.ts"), 'import type { B } from "./B.js"\nexport interface A { readonly b?: B }\n')
      writeFileSync(join(dir, "B.ts"), 'import * as C from "./C.js"\nexport interface B { readonly c: typeof C }\n')
      writeFileSync(join(dir, "C.ts"), 'import type { A } from "./A.js"\nexport const c = (a: A) => a\n')
      writeFileSync(join(dir, "D.ts"), 'import { c } from "./C.js"\nexport const d = c\n')
      const graph = await importGraph(dir, join(root, "packages", "tool-handlers", "tsconfig.json"))
      assert.deepStrictEqual(
        graph.cycles.map((cycle) => describeCycle("fixture", cycle)),
        ["fixture: A.ts -> B.ts -> C.ts -> A.ts"]
      )
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it("checks every package's and app's src", () => {
    const names = sourceDirs(root).map((source) => source.name)
    assert.includeMembers(names, [
      join("apps", "app-server", "src"),
      join("apps", "widget-host", "src"),
      join("packages", "protocol", "src"),
      join("packages", "resource-client", "src"),
      join("packages", "tool-handlers", "src")
    ])
  })

  for (const source of sourceDirs(root)) {
    it(`${source.name} has none`, { timeout: 120_000 }, async () => {
      const graph = await importGraph(source.dir, source.tsConfig)
      // the walk resolved the `.js` specifiers (a graph without edges would find no cycle either)
      assert.isAbove(Object.values(graph.imports).flat().length, 0, `${source.name}: no import resolved`)
      const found = graph.cycles.map((cycle) => describeCycle(source.name, cycle))
      assert.deepStrictEqual(found, [], `import cycles:\n${found.join("\n")}`)
    })
  }
})
