/**
 * The package's bins (`bin/*.js`, launchers of `dist/bundle/Cli.js` and `dist/bundle/main.js`): the
 * bundled programs behave as the unbundled ones, start from the code cache shipped beside them, and fall back to a per-user cache
 * (`$XDG_CACHE_HOME/mcp-resources/`) when V8 refuses the shipped one. What most starts never run (the
 * MCP SDK with zod, undici) is bundled into files of its own beside the program, loaded at first use:
 * a bundled CLI reaches stdio and HTTP servers, through a proxy too, as the unbundled one does.
 */
import { execFile } from "node:child_process"
import { readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { assert, describe, it } from "@effect/vitest"
import { type FixtureSpec, startConnectProxy, startHttp, stdioCommand } from "@mcp-resources/fixtures"
import { Effect } from "effect"
import { resultOf, start, tempDir, writeConfig } from "./utils/AppServerProcess.js"

const bundleCli = fileURLToPath(new URL("../dist/bundle/Cli.js", import.meta.url))
const bundleMain = fileURLToPath(new URL("../dist/bundle/main.js", import.meta.url))
const unbundledCli = fileURLToPath(new URL("../dist/Cli.js", import.meta.url))
const manifest = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as {
  bin: Record<string, string>
}
/** A bin of the package, by its command name. */
const bin = (name: string) => fileURLToPath(new URL(`../${manifest.bin[name]}`, import.meta.url))
const version = (JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { version: string })
  .version

interface Run {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

/** Runs `node [NODE_FLAGS] dist/bundle/Cli.js ARGS` in `cwd` with `XDG_CACHE_HOME=cache`, killed after 60 s. */
const cli = (
  cwd: string,
  cache: string,
  args: ReadonlyArray<string>,
  nodeFlags: ReadonlyArray<string> = [],
  options: { readonly program?: string; readonly env?: Record<string, string> } = {}
) =>
  Effect.async<Run>((resume) => {
    const child = execFile(
      process.execPath,
      [...nodeFlags, options.program ?? bundleCli, ...args],
      { cwd, timeout: 60_000, encoding: "utf8", env: { ...process.env, XDG_CACHE_HOME: cache, ...options.env } },
      (error, stdout, stderr) =>
        resume(
          Effect.succeed({ code: error ? (typeof error.code === "number" ? error.code : null) : 0, stdout, stderr })
        )
    )
    return Effect.sync(() => {
      child.kill("SIGKILL")
    })
  })

/** The per-user cache files and their inodes (a rewrite renames a new file over the old one). */
const userCaches = (cache: string): Array<{ file: string; ino: number }> => {
  const dir = join(cache, "mcp-resources")
  try {
    return readdirSync(dir).map((file) => ({ file, ino: statSync(join(dir, file)).ino }))
  } catch {
    return []
  }
}

const withDir = <A, E, R>(use: (dir: string) => Effect.Effect<A, E, R>) =>
  Effect.acquireUseRelease(
    Effect.sync(() => tempDir("app-server-bundle-")),
    use,
    (dir) => Effect.sync(() => rmSync(dir, { recursive: true, force: true }))
  )

const listedSpec = (name: string): FixtureSpec => ({
  name,
  resourcePages: [{ result: { resources: [{ uri: `${name}://doc`, name: `${name} doc`, mimeType: "text/plain" }] } }]
})

describe("bundled bins", () => {
  it.scoped(
    "the bundled CLI reaches a stdio server and an HTTP server behind HTTP_PROXY (the SDK and undici loaded from their own files) as the unbundled CLI does",
    () =>
      withDir((dir) =>
        Effect.gen(function* () {
          const cache = join(dir, "cache")
          const http = yield* Effect.acquireRelease(
            Effect.promise(() => startHttp(listedSpec("web"))),
            (fixture) => Effect.promise(() => fixture.close())
          )
          const proxy = yield* Effect.acquireRelease(
            Effect.promise(() => startConnectProxy()),
            (p) => Effect.promise(() => p.close())
          )
          const config = writeConfig(dir, {
            mcp_servers: { local: stdioCommand(listedSpec("local")), web: { url: http.url } }
          })
          const env = { HTTP_PROXY: `http://127.0.0.1:${proxy.port}`, MCP_RESOURCES_LOG: "error" }
          const args = ["list", "--json", "--config", config]
          const bundled = yield* cli(dir, cache, args, [], { env })
          // nothing on stderr: no warning of undici's either (its proxy agent is no longer experimental)
          assert.deepStrictEqual({ code: bundled.code, stderr: bundled.stderr }, { code: 0, stderr: "" })
          assert.include(bundled.stdout, '"local://doc"')
          assert.include(bundled.stdout, '"web://doc"')
          // the HTTP server was reached through the proxy, by undici
          assert.include(proxy.targets, new URL(http.url).host)
          assert.deepStrictEqual(yield* cli(dir, cache, args, [], { env, program: unbundledCli }), bundled)
        })
      ),
    { timeout: 120_000 }
  )

  it.scoped("mcp-resources tools prints the same as the unbundled CLI and writes no per-user cache", () =>
    withDir((dir) =>
      Effect.gen(function* () {
        const cache = join(dir, "cache")
        const readable = yield* cli(dir, cache, ["tools"])
        assert.deepStrictEqual(readable, {
          code: 0,
          stdout: "(no tools: no enabled MCP server is configured)\n",
          stderr: ""
        })
        assert.deepStrictEqual(yield* cli(dir, cache, ["tools", "--json"]), { code: 0, stdout: "[]\n", stderr: "" })
        const usage = yield* cli(dir, cache, ["bogus"])
        assert.strictEqual(usage.code, 2)
        assert.match(usage.stderr, /^mcp-resources: unknown command: bogus\nusage: mcp-resources <command>/)
        // The shipped cache was made by this Node from this bundle: V8 took it.
        assert.deepStrictEqual(userCaches(cache), [])
      })
    )
  )

  it.scoped("the package's bins are launchers that run the bundled programs", () =>
    withDir((dir) =>
      Effect.gen(function* () {
        const cache = join(dir, "cache")
        assert.deepStrictEqual(Object.keys(manifest.bin).sort(), ["mcp-resources", "mcp-resources-app-server"])
        // run as npm and pnpm run them: by path, under their own name
        const viaBin = (name: string, args: ReadonlyArray<string>) =>
          Effect.async<Run>((resume) => {
            const child = execFile(
              process.execPath,
              [bin(name), ...args],
              { cwd: dir, timeout: 60_000, encoding: "utf8", env: { ...process.env, XDG_CACHE_HOME: cache } },
              (error, stdout, stderr) =>
                resume(
                  Effect.succeed({
                    code: error ? (typeof error.code === "number" ? error.code : null) : 0,
                    stdout,
                    stderr
                  })
                )
            )
            return Effect.sync(() => {
              child.kill("SIGKILL")
            })
          })
        assert.deepStrictEqual(yield* viaBin("mcp-resources", ["tools", "--json"]), {
          code: 0,
          stdout: "[]\n",
          stderr: ""
        })
        const help = yield* viaBin("mcp-resources-app-server", ["--help"])
        assert.strictEqual(help.code, 0, help.stderr)
        assert.match(help.stdout, /^usage: mcp-resources-app-server \[--config PATH\]/)
      })
    )
  )

  it.scoped("when V8 refuses the shipped cache, the first start writes a per-user one that later starts use", () =>
    withDir((dir) =>
      Effect.gen(function* () {
        const cache = join(dir, "cache")
        // Other V8 flags than the build's: the shipped cache is refused.
        const flags = ["--no-opt"]
        const first = yield* cli(dir, cache, ["tools", "--json"], flags)
        assert.deepStrictEqual(first, { code: 0, stdout: "[]\n", stderr: "" })
        const written = userCaches(cache)
        assert.strictEqual(written.length, 1)
        assert.match(written[0]!.file, /^cli-.+-[0-9a-f]{16}\.cache$/)
        assert.deepStrictEqual(yield* cli(dir, cache, ["tools", "--json"], flags), first)
        assert.deepStrictEqual(userCaches(cache), written, "an accepted cache is not written again")
        // A damaged cache is refused by V8, and replaced.
        writeFileSync(join(cache, "mcp-resources", written[0]!.file), "not a code cache")
        assert.deepStrictEqual(yield* cli(dir, cache, ["tools", "--json"], flags), first)
        const replaced = userCaches(cache)
        assert.strictEqual(replaced.length, 1)
        assert.notStrictEqual(replaced[0]!.ino, written[0]!.ino)
        assert.isAbove(statSync(join(cache, "mcp-resources", replaced[0]!.file)).size, 1000)
        // A plain start still takes the shipped cache: it neither refuses nor rewrites the flagged one.
        assert.deepStrictEqual(yield* cli(dir, cache, ["tools", "--json"]), first)
        assert.deepStrictEqual(userCaches(cache), replaced, "a start under other flags does not touch this cache")
      })
    )
  )

  it.scoped("mcp-resources-app-server answers initialize with the package's version and opens its store", () =>
    withDir((dir) =>
      Effect.gen(function* () {
        const config = writeConfig(dir, {}, "empty.json")
        const dataDir = join(dir, "data")
        const server = yield* start({
          script: bundleMain,
          args: ["--config", config, "--data-dir", dataDir],
          env: { XDG_CACHE_HOME: join(dir, "cache") }
        })
        const initialized = resultOf(yield* server.request("initialize", { clientInfo: { name: "bundle-test" } }))
        assert.deepStrictEqual(initialized.serverInfo, { name: "mcp-resources-app-server", version })
        const started = resultOf(yield* server.request("thread/start", {}))
        assert.isString((started.thread as { id: string }).id)
        yield* server.endInput
        assert.strictEqual(yield* server.exited(), 0)
        assert.isTrue(statSync(join(dataDir, "state.sqlite")).isFile())
      })
    )
  )
})
