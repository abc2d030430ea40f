/**
 * The README's "Use it" block runs as written against `examples/mcp-resources.toml`, from the
 * repository's root: the one-shot CLI commands are run line by line exactly as the README prints them,
 * and the app-server line is started with its config (on a temporary data dir instead of the user's
 * `~/.mcp-resources`). Without any server configured, `list`, `templates` and `read` answer with one
 * line that says so and names the file read or looked for.
 */
import { execFile } from "node:child_process"
import { existsSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { resultOf, start, tempDir, waitSettled, writeConfig } from "./utils/AppServerProcess.js"

const root = fileURLToPath(new URL("../../../", import.meta.url))
const cliJs = join(root, "apps/app-server/dist/Cli.js")

/** The lines of the README's "Use it" shell block, comments left out. */
const useIt = (): ReadonlyArray<string> => {
  const readme = readFileSync(join(root, "README.md"), "utf8")
  const section = readme.slice(readme.indexOf("## Use it"))
  const block = /```sh\n([\s\S]*?)```/.exec(section)?.[1] ?? ""
  return block.split("\n").filter((line) => line.trim() !== "" && !line.startsWith("#"))
}

interface Run {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

/** Runs `node ARGS` in `cwd` (killed after 60 s). */
const node = (args: ReadonlyArray<string>, cwd: string): Effect.Effect<Run> =>
  Effect.async<Run>((resume) => {
    const child = execFile(
      process.execPath,
      [...args],
      { cwd, timeout: 60_000, encoding: "utf8", env: { ...process.env, MCP_RESOURCES_LOG: "warn" } },
      (error, stdout, stderr) =>
        resume(
          Effect.succeed({ code: error ? (typeof error.code === "number" ? error.code : null) : 0, stdout, stderr })
        )
    )
    return Effect.sync(() => {
      child.kill("SIGKILL")
    })
  })

const configOf = (line: string): string | undefined => /--config (\S+)/.exec(line)?.[1]

describe("the README's Use it block against examples/mcp-resources.toml", () => {
  it("names the example config in every command that runs against the bundled servers", () => {
    const lines = useIt()
    const example = lines.filter((line) => configOf(line) === "examples/mcp-resources.toml")
    // the app-server, tools, list, templates, read, widgets
    assert.strictEqual(example.length, 6, lines.join("\n"))
    assert.isTrue(existsSync(join(root, "examples/mcp-resources.toml")))
  })

  it.live(
    "tools, list, templates and read run as written and show the bundled servers",
    () =>
      Effect.gen(function* () {
        const oneShot = useIt().filter((line) =>
          /^node apps\/app-server\/dist\/Cli\.js (tools|list|templates|read) /.test(line)
        )
        assert.strictEqual(oneShot.length, 4)
        const outputs: Record<string, string> = {}
        for (const line of oneShot) {
          const [, ...args] = line.split(/\s+/)
          const run = yield* node(args, root)
          assert.strictEqual(run.code, 0, `${line}\n${run.stderr}`)
          outputs[args[1]!] = run.stdout
        }
        assert.include(outputs.tools, "read_mcp_resource")
        assert.include(outputs.list, "codex_apps  example://docs/readme.md  readme.md  text/markdown  Example README")
        assert.include(outputs.templates, "docs  changes://doc/{id}")
        assert.include(outputs.read, "--- example://docs/readme.md (text/markdown)\n# Example")
      }),
    // four CLI processes, each starting two servers: a loaded 2-core machine needs its time
    120_000
  )

  it.scopedLive("the app-server line starts with every example server ready", () =>
    Effect.gen(function* () {
      const line = useIt().find((l) => l.startsWith("node apps/app-server/dist/main.js "))
      assert.isDefined(line)
      const [, , ...args] = line!.split(/\s+/)
      const dataDir = args.indexOf("--data-dir")
      assert.isAbove(dataDir, 0)
      const server = yield* start({ args: args.map((a, i) => (i === dataDir + 1 ? tempDir() : a)), cwd: root })
      yield* server.initialize
      const servers = yield* waitSettled(server)
      assert.deepStrictEqual(
        servers.map((s) => [s.name, s.status]),
        [
          ["codex_apps", "ready"],
          ["docs", "ready"]
        ]
      )
      assert.isArray(resultOf(yield* server.request("mcpServer/list", {})).servers)
    })
  )
})

describe("no server configured", () => {
  it.live(
    "list, templates and read say so in one line, naming the file looked for or read (exit 2)",
    () =>
      Effect.gen(function* () {
        const dir = tempDir()
        const lookedFor = `mcp-resources: no MCP server is configured: no config file at ${join(dir, "mcp-resources.toml")} (pass --config PATH)\n`
        for (const args of [["list"], ["templates", "--server", "x"], ["read", "srv", "x://a"]]) {
          assert.deepStrictEqual(yield* node([cliJs, ...args], dir), { code: 2, stdout: "", stderr: lookedFor })
        }
        const empty = writeConfig(dir, '[tools]\nprofile = "extended"\n', "settings.toml")
        assert.deepStrictEqual(yield* node([cliJs, "list", "--config", empty], dir), {
          code: 2,
          stdout: "",
          stderr: `mcp-resources: no MCP server is configured in ${empty}\n`
        })
      }),
    120_000
  )
})
