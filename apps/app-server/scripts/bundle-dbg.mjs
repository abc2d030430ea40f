/**
 * Bundles the CLI and the app-server (after `tsc -b`) into `dist/bundle/app.cjs`, the file the loaders
 * `dist/bundle/Cli.js` and `dist/bundle/main.js` evaluate (the package's bins, `bin/*.js`, import
 * them), then starts each program once
 * to write its V8 code cache beside it (`<program>-<V8 version>.cache`).
 *
 * - CommonJS, so that the launchers can compile it with a code cache (`vm.Script`); the lazy
 *   `import()`s of the WebSocket transport and the storage drivers become lazy module inits.
 * - The native and optional drivers (`better-sqlite3`, `pg`) and `ws` stay outside: `require`d from
 *   this package's dependencies when a store or `--listen` needs them.
 * - `import { Effect, Layer } from "effect"` in our own modules is rewritten to the per-module entry
 *   points (`effect/Effect`, …) so that the bundler can leave out what nothing uses; the same for
 *   our own packages (`import { Errors } from "@mcp-resources/protocol"` → `…/protocol/Errors`), whose
 *   index only re-exports modules: a program then evaluates the modules it uses, not the whole index
 *   (the CLI, say, never builds the app-server protocol's schemas).
 */
import { spawnSync } from "node:child_process"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"
import * as esbuild from "esbuild"

const root = Path.dirname(Path.dirname(fileURLToPath(import.meta.url)))
const outDir = Path.join(root, "dist", "bundle-dbg")
const effectFunctions = new Set(["absurd", "flow", "hole", "identity", "pipe", "unsafeCoerce"])

/** `import { A, B as C } from "effect"` → one namespace import per module. */
const perModuleImports = (text) =>
  text.replace(/import\s*\{([^}]*)\}\s*from\s*"effect";?/g, (_, names) =>
    names
      .split(",")
      .map((name) => name.trim())
      .filter((name) => name !== "")
      .map((name) => {
        const [imported, local = imported] = name.split(/\s+as\s+/)
        return effectFunctions.has(imported)
          ? `import { ${imported} as ${local} } from "effect/Function";`
          : `import * as ${local} from "effect/${imported}";`
      })
      .join("\n")
  )

/**
 * The modules each workspace package's index re-exports (`export * as Errors from "./Errors.js"`):
 * `{ "@mcp-resources/protocol": { Errors: "Errors", … } }`.
 */
const workspaceModules = Object.fromEntries(
  Fs.readdirSync(Path.join(root, "..", "..", "packages")).flatMap((dir) => {
    const pkg = Path.join(root, "..", "..", "packages", dir)
    const index = Path.join(pkg, "dist", "index.js")
    if (!Fs.existsSync(index)) return []
    const { name } = JSON.parse(Fs.readFileSync(Path.join(pkg, "package.json"), "utf8"))
    const text = Fs.readFileSync(index, "utf8")
    const modules = Object.fromEntries(
      [...text.matchAll(/export \* as (\w+) from "\.\/([\w]+)\.js"/g)].map(([, exported, file]) => [exported, file])
    )
    // only an index that is nothing but such re-exports can be bypassed
    const statements = text
      .replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, "")
      .split(";")
      .filter((line) => line.trim() !== "")
    return statements.length === Object.keys(modules).length ? [[name, modules]] : []
  })
)

/** `import { Errors, Messages as M } from "@mcp-resources/protocol"` → one namespace import per module. */
const perWorkspaceModuleImports = (text) =>
  text.replace(/import\s*\{([^}]*)\}\s*from\s*"(@mcp-resources\/[\w-]+)";?/g, (whole, names, pkg) => {
    const modules = workspaceModules[pkg]
    if (modules === undefined) return whole
    const imports = names
      .split(",")
      .map((name) => name.trim())
      .filter((name) => name !== "")
      .map((name) => {
        const [imported, local = imported] = name.split(/\s+as\s+/)
        return modules[imported] === undefined ? undefined : `import * as ${local} from "${pkg}/${modules[imported]}";`
      })
    return imports.includes(undefined) ? whole : imports.join("\n")
  })

const effectModules = {
  name: "effect-modules",
  setup(build) {
    build.onLoad({ filter: /[\\/]dist[\\/].*\.js$/ }, async (args) =>
      args.path.includes(`${Path.sep}node_modules${Path.sep}`)
        ? undefined
        : {
            contents: perWorkspaceModuleImports(perModuleImports(await Fs.promises.readFile(args.path, "utf8"))),
            loader: "js"
          }
    )
  }
}

await esbuild.build({
  stdin: {
    contents:
      'export const cli = () => import("./dist/Cli.js")\nexport const server = () => import("./dist/main.js")\n',
    resolveDir: root,
    sourcefile: "bundle-entry.js",
    loader: "js"
  },
  outfile: Path.join(outDir, "app.cjs"),
  bundle: true,
  platform: "node",
  format: "cjs",
  target: "node20",
  minify: false,
  legalComments: "eof",
  external: ["better-sqlite3", "pg", "pg-native", "ws", "@mcp-resources/widget-host"],
  // `import.meta.url` of the bundled modules is the bundle's own URL (two levels under the package, as
  // `dist/handlers/initialize.js` is, so that its `../../package.json` is still this package's).
  define: { "import.meta.url": "__bundleUrl" },
  banner: { js: 'var __bundleUrl = require("node:url").pathToFileURL(__filename).href;' },
  plugins: [effectModules],
  logLevel: "warning"
})

// One real start per program writes its code cache: `tools` on an empty config, and the server
// answering `initialize` on an empty config and a fresh data dir, then stopping at the end of input.
for (const file of Fs.readdirSync(outDir)) if (file.endsWith(".cache")) Fs.rmSync(Path.join(outDir, file))
const scratch = Fs.mkdtempSync(Path.join(Os.tmpdir(), "mcp-resources-bundle-"))
try {
  const runs = [
    { program: "cli", args: ["tools"], input: "" },
    {
      program: "server",
      args: ["--config", Path.join(scratch, "empty.json"), "--data-dir", Path.join(scratch, "data")],
      input: `${JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { clientInfo: { name: "bundle" } } })}\n`
    }
  ]
  Fs.writeFileSync(Path.join(scratch, "empty.json"), "{}")
  for (const { program, args, input } of runs) {
    const launcher = Path.join(outDir, program === "cli" ? "Cli.js" : "main.js")
    const cache = Path.join(outDir, `${program}-${process.versions.v8}.cache`)
    const env = { ...process.env, MCP_RESOURCES_CODE_CACHE_OUT: cache, MCP_RESOURCES_LOG: "error" }
    const child = spawnSync(process.execPath, [launcher, ...args], { cwd: scratch, env, input, timeout: 60_000 })
    if (child.status !== 0 || !Fs.existsSync(cache)) {
      throw new Error(`${program} ${args.join(" ")} failed (${child.status ?? child.signal}): ${child.stderr}`)
    }
  }
} finally {
  Fs.rmSync(scratch, { recursive: true, force: true })
}
