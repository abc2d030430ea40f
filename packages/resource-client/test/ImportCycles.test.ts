/**
 * No runtime import cycle in `src`: every static import or re-export that survives compilation
 * (under `verbatimModuleSyntax` only `import type` / `export type` are erased; an import of inline
 * `type` names alone is kept as an empty import) is an edge, and the graph of the package's modules
 * has no cycle.
 */
import { assert, describe, it } from "@effect/vitest"
import { readdirSync, readFileSync } from "node:fs"
import { dirname, join, relative, resolve } from "node:path"
import { fileURLToPath } from "node:url"
import ts from "typescript"

const srcDir = resolve(dirname(fileURLToPath(import.meta.url)), "../src")

const sourceFiles = (dir: string): Array<string> =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? sourceFiles(join(dir, entry.name))
      : entry.name.endsWith(".ts") && !entry.name.endsWith(".d.ts")
        ? [join(dir, entry.name)]
        : []
  )

/** The relative modules a source loads at run time, as `.ts` paths. */
const runtimeImportsOf = (file: string, text: string): Array<string> => {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS)
  const out: Array<string> = []
  for (const statement of source.statements) {
    let specifier: ts.Expression | undefined
    if (ts.isImportDeclaration(statement)) {
      if (statement.importClause?.isTypeOnly === true) continue
      specifier = statement.moduleSpecifier
    } else if (ts.isExportDeclaration(statement)) {
      if (statement.isTypeOnly) continue
      specifier = statement.moduleSpecifier
    }
    if (specifier === undefined || !ts.isStringLiteral(specifier) || !specifier.text.startsWith(".")) continue
    out.push(resolve(dirname(file), specifier.text.replace(/\.js$/, ".ts")))
  }
  return out
}

/** Every cycle of a graph, each as the path that closes it (found by a depth-first walk). */
export const cyclesOf = (graph: ReadonlyMap<string, ReadonlyArray<string>>): Array<Array<string>> => {
  const cycles: Array<Array<string>> = []
  const state = new Map<string, "visiting" | "done">()
  const stack: Array<string> = []
  const visit = (node: string): void => {
    state.set(node, "visiting")
    stack.push(node)
    for (const next of graph.get(node) ?? []) {
      const seen = state.get(next)
      if (seen === "visiting") cycles.push([...stack.slice(stack.indexOf(next)), next])
      else if (seen === undefined) visit(next)
    }
    stack.pop()
    state.set(node, "done")
  }
  for (const node of [...graph.keys()].sort()) if (!state.has(node)) visit(node)
  return cycles
}

const graphOf = (dir: string): Map<string, ReadonlyArray<string>> =>
  new Map(
    sourceFiles(dir).map((file) => [
      relative(dir, file),
      runtimeImportsOf(file, readFileSync(file, "utf8")).map((target) => relative(dir, target))
    ])
  )

describe("import graph", () => {
  it("finds a cycle, also a long one, and none in a graph without one", () => {
    const cyclic = new Map([
      ["a.ts", ["b.ts"]],
      ["b.ts", ["c.ts"]],
      ["c.ts", ["a.ts"]]
    ])
    assert.deepStrictEqual(cyclesOf(cyclic), [["a.ts", "b.ts", "c.ts", "a.ts"]])
    assert.deepStrictEqual(
      cyclesOf(
        new Map([
          ["a.ts", ["b.ts", "c.ts"]],
          ["b.ts", ["c.ts"]],
          ["c.ts", []]
        ])
      ),
      []
    )
  })

  it("counts an import of inline type names as a runtime edge, and `import type` as none", () => {
    assert.deepStrictEqual(
      runtimeImportsOf(
        "/x/a.ts",
        [
          'import type { A } from "./b.js"',
          'import { type C } from "./c.js"',
          'export type { D } from "./d.js"',
          'export * from "./e.js"',
          'import { Effect } from "effect"'
        ].join("\n")
      ),
      ["/x/c.ts", "/x/e.ts"]
    )
  })

  it("the modules of resource-client's src import each other without a cycle", () => {
    const graph = graphOf(srcDir)
    assert.isTrue(graph.has("ResourceClient.ts") && graph.has(join("internal", "cache.ts")))
    assert.deepStrictEqual(cyclesOf(graph), [])
  })
})
