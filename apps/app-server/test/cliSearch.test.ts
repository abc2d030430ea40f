/** `mcp-resources search QUERY [--server S] [--limit N]`: ranked matches, readable and `--json`; refusals. */
import { execFile } from "node:child_process"
import { fileURLToPath } from "node:url"
import { assert, describe, it } from "@effect/vitest"
import { catalogSpec, searchCatalog, stdioCommand } from "@mcp-resources/fixtures"
import { Effect } from "effect"
import { tempDir, writeConfig } from "./utils/AppServerProcess.js"

const cliJs = fileURLToPath(new URL("../dist/Cli.js", import.meta.url))

/** Runs `node dist/Cli.js ARGS` in a fresh directory, killed after 30 s. */
const cli = (args: ReadonlyArray<string>) =>
  Effect.async<{ code: number | null; stdout: string; stderr: string }>((resume) => {
    const child = execFile(
      process.execPath,
      [cliJs, ...args],
      { cwd: tempDir(), timeout: 30_000, encoding: "utf8", env: { ...process.env, MCP_RESOURCES_LOG: "error" } },
      (error, stdout, stderr) =>
        resume(
          Effect.succeed({ code: error ? (typeof error.code === "number" ? error.code : null) : 0, stdout, stderr })
        )
    )
    return Effect.sync(() => void child.kill("SIGKILL"))
  })

const catalog = searchCatalog(45, 0.05)

const config = () =>
  writeConfig(tempDir(), {
    mcp_servers: {
      docs: stdioCommand(catalogSpec("docs", catalog.docs!, 20)),
      metrics: stdioCommand(catalogSpec("metrics", catalog.metrics!, 20))
    }
  })

describe("mcp-resources search", () => {
  it.scopedLive(
    "prints ranked matches; --json prints the method's result; --server and --limit narrow it",
    () =>
      Effect.gen(function* () {
        const path = config()
        const run = yield* cli(["search", "disk space alerts", "--limit", "1", "--config", path])
        assert.strictEqual(run.code, 0, run.stderr)
        const lines = run.stdout.trimEnd().split("\n")
        assert.match(lines[0]!, /^1\. docs {2}runbook:\/\/ops\/disk-space-alerts {2}\d+(\.\d+)?$/)
        assert.deepStrictEqual(lines.slice(1), [
          "   Disk space alerts runbook  text/markdown",
          "   What to do when a volume passes 90% usage: find the largest directories and rotate logs."
        ])
        const json = yield* cli(["search", "forcast", "--server", "metrics", "--json", "--config", path])
        assert.strictEqual(json.code, 0, json.stderr)
        const result = JSON.parse(json.stdout) as { matches: Array<{ uriTemplate?: string }>; indexing: [] }
        assert.strictEqual(result.matches[0]?.uriTemplate, "weather://forecast/{city}?days={days}")
        assert.deepStrictEqual(result.indexing, [])
      }),
    60_000
  )

  it.scopedLive(
    "an empty query or a bad limit is refused",
    () =>
      Effect.gen(function* () {
        const path = config()
        const empty = yield* cli(["search", " ", "--config", path])
        assert.strictEqual(empty.code, 1)
        assert.include(empty.stderr, "mcp-resources: query must be provided")
        const limit = yield* cli(["search", "disk", "--limit", "x", "--config", path])
        assert.strictEqual(limit.code, 2)
        assert.include(limit.stderr, '--limit: expected a whole number from 1 to 50, got "x"')
      }),
    60_000
  )
})
