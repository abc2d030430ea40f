/**
 * No import cycle in the package's sources, type-only imports included (madge over the TypeScript
 * sources, `.js` specifiers resolved to their `.ts` files through the package's tsconfig).
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { assert, describe, it } from "@effect/vitest"
import madge from "madge"

const packageDir = fileURLToPath(new URL("..", import.meta.url))

const graphOf = (dir: string) =>
  madge(dir, {
    fileExtensions: ["ts"],
    tsConfig: join(packageDir, "tsconfig.json"),
    // only the package's own modules: workspace dependencies resolve to their dist
    excludeRegExp: [/^\.\.\//, /node_modules/],
    detectiveOptions: { ts: { skipTypeImports: false }, tsx: {} }
  })

describe("import cycles", () => {
  it("tool-handlers/src has none", { timeout: 60_000 }, async () => {
    const graph = await graphOf(join(packageDir, "src"))
    const modules = graph.obj()
    // the walk saw the modules and their imports (a graph without edges would find no cycle either)
    assert.includeMembers(modules["ToolHandlers.ts"] ?? [], ["Profile.ts", "internal/route.ts", "internal/policy.ts"])
    assert.includeMembers(modules["internal/policy.ts"] ?? [], ["internal/route.ts", "internal/context.ts"])
    assert.deepStrictEqual(graph.circular(), [])
  })

  it("a cycle through type-only imports and .js specifiers is found", { timeout: 60_000 }, async () => {
    const dir = mkdtempSync(join(tmpdir(), "import-cycles-"))
    try {
      writeFileSync(join(dir, "A.ts"), 'import type { B } from "./B.js"\nexport interface A { readonly b?: B }\n')
      writeFileSync(join(dir, "B.ts"), 'import * as C from "./C.js"\nexport interface B { readonly c: typeof C }\n')
      writeFileSync(join(dir, "C.ts"), 'import type { A } from "./A.js"\nexport const c = (a: A) => a\n')
      const graph = await graphOf(dir)
      assert.deepStrictEqual(graph.circular(), [["A.ts", "B.ts", "C.ts"]])
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
