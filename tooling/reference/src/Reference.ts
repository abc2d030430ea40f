/**
 * Writes the generated parts of the reference (the app-server's JSON Schemas and the generated blocks of
 * `docs/`) or checks that the committed ones are current.
 */
import * as NodeFs from "node:fs"
import * as NodePath from "node:path"
import { fill } from "./Blocks.js"
import { bodies, docFiles } from "./Generated.js"
import { appServerDocument, configDocument, files, hooksDocument, toText } from "./JsonSchemas.js"

/** The repository root: the nearest folder above this module holding `pnpm-workspace.yaml`. */
export const repoRoot = (from: string = NodePath.dirname(new URL(import.meta.url).pathname)): string => {
  let dir = from
  while (!NodeFs.existsSync(NodePath.join(dir, "pnpm-workspace.yaml"))) {
    const parent = NodePath.dirname(dir)
    if (parent === dir) throw new Error(`no pnpm-workspace.yaml above ${from}`)
    dir = parent
  }
  return dir
}

/** Which outputs to produce. */
export type Only = "all" | "schemas" | "docs"

/** Every generated file: its path relative to the root and the text it should have. */
export const expected = (root: string, only: Only = "all"): ReadonlyArray<{ file: string; text: string }> => {
  const out: Array<{ file: string; text: string }> = []
  if (only !== "docs") {
    out.push({ file: files.appServer, text: toText(appServerDocument()) })
    out.push({ file: files.config, text: toText(configDocument()) })
    out.push({ file: files.hooks, text: toText(hooksDocument()) })
  }
  if (only !== "schemas") {
    const generated = bodies()
    const used = new Set<string>()
    for (const file of docFiles) {
      const current = NodeFs.readFileSync(NodePath.join(root, file), "utf8")
      for (const match of current.matchAll(/<!-- BEGIN GENERATED: ([^ ]+) -->/g)) used.add(match[1]!)
      out.push({ file, text: fill(file, current, generated) })
    }
    const unplaced = Object.keys(generated).filter((name) => !used.has(name))
    if (unplaced.length > 0) {
      throw new Error(`generated blocks placed in no file of docs/: ${unplaced.join(", ")}`)
    }
  }
  return out
}

/** The generated files whose committed text differs from what the generator gives. */
export const stale = (root: string, only: Only = "all"): ReadonlyArray<string> =>
  expected(root, only)
    .filter(({ file, text }) => {
      const path = NodePath.join(root, file)
      return !NodeFs.existsSync(path) || NodeFs.readFileSync(path, "utf8") !== text
    })
    .map(({ file }) => file)

/** Writes every generated file that changed; returns their paths. */
export const write = (root: string, only: Only = "all"): ReadonlyArray<string> => {
  const changed = stale(root, only)
  for (const { file, text } of expected(root, only)) {
    if (!changed.includes(file)) continue
    NodeFs.mkdirSync(NodePath.dirname(NodePath.join(root, file)), { recursive: true })
    NodeFs.writeFileSync(NodePath.join(root, file), text)
  }
  return changed
}
