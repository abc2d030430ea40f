/**
 * Bundles the CLI and the app-server (after `tsc -b`) into `dist/bundle/app.cjs`, the file the loaders
 * `dist/bundle/Cli.js` and `dist/bundle/main.js` evaluate (the package's bins, `bin/*.js`, import
 * them), then starts each program once
 * to write its V8 code cache beside it (`<program>-<V8 version>.cache`).
 *
 * - CommonJS, so that the launchers can compile it with a code cache (`vm.Script`); the lazy
 *   `import()`s of the WebSocket transport and the storage drivers become lazy module inits.
 * - The native addon of `better-sqlite3` (its JavaScript is bundled), the optional driver `pg` and `ws`
 *   stay outside: `require`d from this package's dependencies when a store or `--listen` needs them.
 * - What only a lazy `import()` reaches and most starts never run goes to files of its own beside
 *   `app.cjs`, `require`d at that `import()`: the MCP SDK with its zod (`sdk.cjs`, loaded at the first
 *   connection) and undici (`undici.cjs`, for a proxy). Each start reads and decodes the whole of
 *   `app.cjs`: without them it is 0.8 MB instead of 2.1 (start-up: tooling/bench, scenario 7).
 * - Licence comments go to `app.cjs.LEGAL.txt` (and `sdk.cjs.LEGAL.txt`, …), not into the code: one
 *   non-ASCII character in a comment makes V8 hold the whole source as a two-byte string.
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
const outDir = Path.join(root, "dist", "bundle")
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

/**
 * The packages only a lazy `import()` reaches, bundled into files of their own: `import("zod")` becomes
 * `require("./lazy-zod.cjs")`, a stub whose exports are `sdk.cjs`'s `zod`. The SDK and zod share one
 * file, so the zod the SDK checks with is the one the resource client builds its schema with.
 */
const lazyBundles = [
  {
    file: "sdk.cjs",
    packages: [
      ["@modelcontextprotocol/client", "client"],
      ["zod", "zod"]
    ]
  },
  { file: "undici.cjs", packages: [["undici", undefined]] }
]
const lazyStub = (name) => `lazy-${name.replace(/^@[^/]+\//, "")}.cjs`
const lazyNames = new Set(lazyBundles.flatMap(({ packages }) => packages.map(([name]) => name)))

const lazyImports = {
  name: "lazy-imports",
  setup(build) {
    build.onResolve({ filter: /^[@\w][\w@/.-]*$/ }, (args) =>
      args.kind === "dynamic-import" && lazyNames.has(args.path)
        ? { path: `./${lazyStub(args.path)}`, external: true }
        : undefined
    )
  }
}

/**
 * better-sqlite3's JavaScript goes into the bundle (compiled from the code cache, not read file by file
 * at each start); its native addon stays outside, `require`d from the package's `build/Release`, where
 * an install puts it, instead of through the `bindings` package (which searches a dozen candidate paths
 * and reads a stack trace at each start). An addon elsewhere (a debug build) is still found by
 * `bindings`, asked from the package's own directory.
 */
const sqliteAddonModule = `
module.exports = (name) => {
  try {
    return require("better-sqlite3/build/Release/better_sqlite3.node")
  } catch (error) {
    if (error === null || typeof error !== "object" || error.code !== "MODULE_NOT_FOUND") throw error
    const root = require("node:path").dirname(require.resolve("better-sqlite3/package.json"))
    return require("node:module").createRequire(root + "/")("bindings")({ bindings: name, module_root: root })
  }
}
`
const sqliteAddon = {
  name: "sqlite-addon",
  setup(build) {
    build.onResolve({ filter: /^bindings$/ }, (args) =>
      args.importer.includes(`${Path.sep}better-sqlite3${Path.sep}`)
        ? { path: "bindings", namespace: "sqlite-addon" }
        : undefined
    )
    build.onLoad({ filter: /.*/, namespace: "sqlite-addon" }, () => ({ contents: sqliteAddonModule, loader: "js" }))
    build.onResolve({ filter: /^better-sqlite3\/(build\/|package\.json$)/ }, (args) => ({
      path: args.path,
      external: true
    }))
  }
}

/**
 * A clustered start's module (`src/Cluster.ts`, with Effect Cluster, its RPC, HTTP server and client,
 * about 0.3 MB) goes to `cluster.cjs`, `require`d at its lazy `import()`: an app-server alone never reads
 * it. It carries its own copy of what it imports (`effect` too): Effect's shared state is global per
 * version, and services are found by their tags' keys, so both copies work on the same services.
 */
const clusterImport = {
  name: "cluster-import",
  setup(build) {
    build.onResolve({ filter: /^\.\/Cluster\.js$/ }, (args) =>
      args.kind === "dynamic-import" ? { path: "./cluster.cjs", external: true } : undefined
    )
  }
}

/** What every file of the bundle is: minified CommonJS for this Node, licence comments beside it. */
const bundleOptions = {
  bundle: true,
  platform: "node",
  format: "cjs",
  target: "node20",
  minify: true,
  legalComments: "external",
  logLevel: "warning"
}

/** Where the lazy packages resolve from: the resource client, which imports them. */
const resourceClient = Path.join(root, "..", "..", "packages", "resource-client", "dist", "internal")

for (const file of Fs.existsSync(outDir) ? Fs.readdirSync(outDir) : [])
  if (file.endsWith(".cjs") || file.endsWith(".LEGAL.txt")) Fs.rmSync(Path.join(outDir, file))

for (const { file, packages } of lazyBundles) {
  await esbuild.build({
    stdin: {
      contents: packages
        .map(([name, as]) => (as === undefined ? `export * from "${name}"` : `export * as ${as} from "${name}"`))
        .join("\n"),
      resolveDir: resourceClient,
      sourcefile: `${file}-entry.js`,
      loader: "js"
    },
    outfile: Path.join(outDir, file),
    ...bundleOptions
  })
  for (const [name, as] of packages)
    Fs.writeFileSync(
      Path.join(outDir, lazyStub(name)),
      `module.exports = require("./${file}")${as === undefined ? "" : `.${as}`}\n`
    )
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
  ...bundleOptions,
  // an `import()` of something left outside becomes a `require` (the launcher's `vm.Script` has no
  // module loader for `import()`)
  supported: { "dynamic-import": false },
  external: ["pg", "pg-native", "ws", "@mcp-resources/widget-host"],
  // `import.meta.url` of the bundled modules is the bundle's own URL (two levels under the package, as
  // `dist/handlers/initialize.js` is, so that its `../../package.json` is still this package's).
  define: { "import.meta.url": "__bundleUrl" },
  banner: { js: 'var __bundleUrl = require("node:url").pathToFileURL(__filename).href;' },
  plugins: [effectModules, lazyImports, sqliteAddon, clusterImport]
})

await esbuild.build({
  entryPoints: [Path.join(root, "dist", "Cluster.js")],
  outfile: Path.join(outDir, "cluster.cjs"),
  ...bundleOptions,
  supported: { "dynamic-import": false },
  external: ["pg", "pg-native", "ws", "@mcp-resources/widget-host"],
  define: { "import.meta.url": "__bundleUrl" },
  banner: { js: 'var __bundleUrl = require("node:url").pathToFileURL(__filename).href;' },
  plugins: [effectModules, lazyImports, sqliteAddon]
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
