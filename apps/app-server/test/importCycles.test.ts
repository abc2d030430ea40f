/**
 * No import cycle in `src`: every relative import (type-only ones, re-exports and dynamic `import()`
 * included) read with the TypeScript compiler's own pre-processor, and the graph's strongly connected
 * components found (Tarjan). A module that needs another's type and is needed by it is a circle too.
 */
import { assert, describe, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import ts from "typescript"

const srcDir = fileURLToPath(new URL("../src", import.meta.url))

const sources = (dir: string): Array<string> =>
  fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name)
    if (entry.isDirectory()) return sources(full)
    return /\.tsx?$/.test(entry.name) && !entry.name.endsWith(".d.ts") ? [full] : []
  })

/** The source file a relative specifier names (`./X.js` is `./X.ts`; a folder is its `index.ts`). */
const resolve = (from: string, specifier: string, files: ReadonlySet<string>): string | undefined => {
  if (!specifier.startsWith(".")) return undefined
  const base = path.resolve(path.dirname(from), specifier)
  const stem = base.replace(/\.(m|c)?js$/, "")
  for (const candidate of [base, `${stem}.ts`, `${stem}.tsx`, path.join(base, "index.ts")]) {
    if (files.has(candidate)) return candidate
  }
  return undefined
}

/** Each source file's relative imports within `dir`. */
const importGraph = (dir: string): Map<string, Array<string>> => {
  const files = new Set(sources(dir))
  const graph = new Map<string, Array<string>>()
  for (const file of files) {
    const info = ts.preProcessFile(fs.readFileSync(file, "utf8"), true, true)
    const targets = info.importedFiles.flatMap((ref) => {
      const target = resolve(file, ref.fileName, files)
      return target === undefined ? [] : [target]
    })
    graph.set(file, [...new Set(targets)])
  }
  return graph
}

/** The graph's cycles: its strongly connected components of more than one module, or a module importing itself. */
const cycles = (graph: ReadonlyMap<string, ReadonlyArray<string>>): Array<Array<string>> => {
  let next = 0
  const index = new Map<string, number>()
  const low = new Map<string, number>()
  const stack: Array<string> = []
  const onStack = new Set<string>()
  const found: Array<Array<string>> = []
  const visit = (node: string): void => {
    index.set(node, next)
    low.set(node, next)
    next++
    stack.push(node)
    onStack.add(node)
    for (const target of graph.get(node) ?? []) {
      if (!index.has(target)) {
        visit(target)
        low.set(node, Math.min(low.get(node)!, low.get(target)!))
      } else if (onStack.has(target)) {
        low.set(node, Math.min(low.get(node)!, index.get(target)!))
      }
    }
    if (low.get(node) === index.get(node)) {
      const component: Array<string> = []
      for (;;) {
        const member = stack.pop()!
        onStack.delete(member)
        component.push(member)
        if (member === node) break
      }
      if (component.length > 1 || (graph.get(node) ?? []).includes(node)) found.push(component.sort())
    }
  }
  for (const node of graph.keys()) if (!index.has(node)) visit(node)
  return found
}

describe("import cycles", () => {
  it("finds a cycle when there is one (the walk itself)", () => {
    const graph = new Map([
      ["a", ["b"]],
      ["b", ["c"]],
      ["c", ["a"]],
      ["d", ["a", "d"]],
      ["e", ["a"]]
    ])
    assert.deepStrictEqual(cycles(graph), [["a", "b", "c"], ["d"]])
    assert.deepStrictEqual(cycles(new Map([["a", ["b"]]])), [])
  })

  it("reads type-only imports, re-exports and dynamic imports", () => {
    const dir = fs.mkdtempSync(path.join(fs.realpathSync(os.tmpdir()), "cycles-"))
    try {
      fs.mkdirSync(path.join(dir, "sub"))
      fs.writeFileSync(path.join(dir, "a.ts"), 'import type { B } from "./sub/b.js"\nexport type A = B\n')
      fs.writeFileSync(path.join(dir, "sub", "b.ts"), 'export * from "./c.js"\nexport type B = string\n')
      fs.writeFileSync(path.join(dir, "sub", "c.ts"), 'export const c = () => import("../a.js")\n')
      assert.deepStrictEqual(
        cycles(importGraph(dir)).map((cycle) => cycle.map((file) => path.relative(dir, file))),
        [["a.ts", path.join("sub", "b.ts"), path.join("sub", "c.ts")]]
      )
    } finally {
      fs.rmSync(dir, { recursive: true, force: true })
    }
  })

  it("apps/app-server/src has no import cycle", () => {
    const graph = importGraph(srcDir)
    assert.isAbove(graph.size, 40)
    const found = cycles(graph).map((cycle) => cycle.map((file) => path.relative(srcDir, file)))
    assert.deepStrictEqual(found, [])
  })
})
