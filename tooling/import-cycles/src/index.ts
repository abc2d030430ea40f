/**
 * Import cycles of the repository's sources, found by one mechanism: madge over each package's and
 * app's `src` (TypeScript sources, `.js` specifiers resolved to their `.ts` files through the
 * directory's `tsconfig.json`). Type-only imports, re-exports and dynamic imports count: a module
 * that needs another's type and is needed by it is a circle too (the compiler erases it, a reader
 * does not). Imports that leave the directory (other packages, `node_modules`) are not followed.
 */
import { existsSync, readdirSync } from "node:fs"
import { join, relative } from "node:path"
import madge from "madge"

/** The import graph of the modules under `dir`: each module's imports and the graph's cycles, as paths relative to `dir`. */
export interface ImportGraph {
  readonly imports: Readonly<Record<string, ReadonlyArray<string>>>
  readonly cycles: ReadonlyArray<ReadonlyArray<string>>
}

/** The import graph of the modules under `dir` (resolved with `tsConfig`, the directory's package's). */
export const importGraph = async (dir: string, tsConfig?: string): Promise<ImportGraph> => {
  const graph = await madge(dir, {
    fileExtensions: ["ts", "tsx"],
    ...(tsConfig === undefined ? {} : { tsConfig }),
    // only the directory's own modules: workspace dependencies resolve to their dist
    excludeRegExp: [/^\.\.\//, /node_modules/],
    detectiveOptions: { ts: { skipTypeImports: false }, tsx: { skipTypeImports: false } }
  })
  return { imports: graph.obj(), cycles: graph.circular() }
}

/** One checked directory: the `src` of a package or an app, with its `tsconfig.json`. */
export interface SourceDir {
  /** The directory relative to the repository's root (`packages/tool-handlers/src`). */
  readonly name: string
  readonly dir: string
  readonly tsConfig: string
}

/** Every `packages/*\/src` and `apps/*\/src` of the repository at `root`. */
export const sourceDirs = (root: string): ReadonlyArray<SourceDir> =>
  ["packages", "apps"].flatMap((group) =>
    readdirSync(join(root, group), { withFileTypes: true })
      .filter((entry) => entry.isDirectory() && existsSync(join(root, group, entry.name, "src")))
      .map((entry) => {
        const base = join(root, group, entry.name)
        return {
          name: relative(root, join(base, "src")),
          dir: join(base, "src"),
          tsConfig: join(base, "tsconfig.json")
        }
      })
      .sort((a, b) => a.name.localeCompare(b.name))
  )

/** A cycle as a line: `packages/x/src: A.ts -> B.ts -> A.ts`. */
export const describeCycle = (name: string, cycle: ReadonlyArray<string>): string =>
  `${name}: ${[...cycle, cycle[0]].join(" -> ")}`
