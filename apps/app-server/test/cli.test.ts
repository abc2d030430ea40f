import { execFile } from "node:child_process"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { assert, describe, it } from "@effect/vitest"
import { type FixtureSpec, readLog, stdioCommand, widgetAppsSpec } from "@mcp-resources/fixtures"
import { Effect } from "effect"
import { usage } from "../src/Cli.js"
import {
  resultOf,
  start,
  startInitialized,
  tempDir,
  threadWithTurn,
  WaitTimeout,
  writeConfig
} from "./utils/AppServerProcess.js"

/** The built CLI (bin `mcp-resources`). */
const cliJs = fileURLToPath(new URL("../dist/Cli.js", import.meta.url))

interface CliRun {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

/** Runs `node dist/Cli.js ARGS` in a fresh directory (no `./mcp-resources.toml`), killed after 30 s. */
const cli = (args: ReadonlyArray<string>, env: Record<string, string> = {}): Effect.Effect<CliRun, WaitTimeout> =>
  Effect.async<CliRun, WaitTimeout>((resume) => {
    const child = execFile(
      process.execPath,
      [cliJs, ...args],
      {
        cwd: tempDir(),
        timeout: 30_000,
        encoding: "utf8",
        env: { ...process.env, MCP_RESOURCES_LOG: "debug", ...env }
      },
      (error, stdout, stderr) => {
        if (error?.killed) {
          return resume(
            Effect.fail(new WaitTimeout({ message: `mcp-resources ${args.join(" ")} timed out: ${stderr}` }))
          )
        }
        resume(
          Effect.succeed({ code: error ? (typeof error.code === "number" ? error.code : null) : 0, stdout, stderr })
        )
      }
    )
    return Effect.sync(() => {
      child.kill("SIGKILL")
    })
  })

const srvSpec: FixtureSpec = {
  name: "srv",
  resourcePages: [
    { result: { resources: [{ uri: "x://a", name: "a", mimeType: "text/plain" }], nextCursor: "p2" } },
    { cursor: "p2", result: { resources: [{ uri: "x://b", name: "b" }] } }
  ],
  templatePages: [
    { result: { resourceTemplates: [{ uriTemplate: "x://{id}", name: "byId", mimeType: "text/plain" }] } }
  ],
  reads: [
    { uri: "x://a", result: { contents: [{ uri: "x://a", mimeType: "text/plain", text: "hello a" }] } },
    { uri: "x://nope", error: { code: -32002, message: "resource not found: x://nope" } }
  ]
}

const docsSpec: FixtureSpec = {
  name: "docs",
  resourcePages: [
    { result: { resources: [{ uri: "doc://readme", name: "readme", mimeType: "text/markdown", title: "Read me" }] } }
  ]
}

/** A config with fixture stdio servers: `codex_apps` (two app tools), `docs` and `srv` (its requests logged). */
const setup = (extra: Record<string, unknown> = {}) => {
  const dir = tempDir()
  const srvLog = join(dir, "srv.log")
  const config = writeConfig(dir, {
    mcp_servers: {
      codex_apps: stdioCommand(widgetAppsSpec()),
      docs: stdioCommand(docsSpec),
      srv: stdioCommand(srvSpec, { logFile: srvLog }),
      ...extra
    }
  })
  return { config, srvLog }
}

/** What the app-server's model would get for the same tool call on the same config. */
const modelOutput = (config: string, name: string, args: Record<string, unknown>) =>
  Effect.gen(function* () {
    const app = yield* startInitialized({ config })
    const { threadId, turnId } = yield* threadWithTurn(app)
    yield* app.request("tool/list", { threadId }) // waits for every server to start, as the CLI does
    const called = resultOf(
      yield* app.request("tool/call", { threadId, turnId, callId: "c", name, arguments: JSON.stringify(args) })
    )
    return called.output as string
  })

const success = (run: CliRun, stdout: string) => assert.deepStrictEqual(run, { code: 0, stdout, stderr: "" })

describe("mcp-resources CLI", () => {
  it.scopedLive(
    "tools prints the offered tools; --json is exactly the app-server's ToolSpec list",
    () =>
      Effect.gen(function* () {
        const { config } = setup()
        const readable = yield* cli(["tools", "--config", config])
        assert.strictEqual(readable.code, 0, readable.stderr)
        assert.deepStrictEqual(
          readable.stdout.split("\n").filter((l) => l !== "" && !l.startsWith(" ")),
          [
            "list_mcp_resources",
            "list_mcp_resource_templates",
            "read_mcp_resource",
            "mcp__codex_apps__best_buy_product_search",
            "mcp__codex_apps__walmart_product_search"
          ]
        )
        assert.include(readable.stdout, "mcp__codex_apps__best_buy_product_search\n    Search products (best_buy).\n")

        const json = yield* cli(["tools", "--json", "--config", config])
        const app = yield* startInitialized({ config })
        const { threadId } = yield* threadWithTurn(app)
        const tools = resultOf(yield* app.request("tool/list", { threadId })).tools
        success(json, `${JSON.stringify(tools)}\n`)

        success(yield* cli(["tools"]), "(no tools: no enabled MCP server is configured)\n")
      }),
    60_000
  )

  it.scopedLive(
    "list covers every server; --server and --cursor page one server, the cursor reaching it as {cursor}",
    () =>
      Effect.gen(function* () {
        const { config, srvLog } = setup()
        success(
          yield* cli(["list", "--config", config]),
          "docs  doc://readme  readme  text/markdown  Read me\nsrv  x://a  a  text/plain\nsrv  x://b  b\n"
        )
        success(
          yield* cli(["list", "--json", "--config", config]),
          `${yield* modelOutput(config, "list_mcp_resources", {})}\n`
        )
        success(
          yield* cli(["list", "--server", "srv", "--config", config]),
          "srv  x://a  a  text/plain\nnext cursor: p2\n"
        )
        const before = readLog(srvLog).length
        success(
          yield* cli(["list", "--server", "srv", "--cursor", "p2", "--json", "--config", config]),
          `${JSON.stringify({ server: "srv", resources: [{ server: "srv", uri: "x://b", name: "b" }] })}\n`
        )
        assert.deepStrictEqual(
          readLog(srvLog)
            .slice(before)
            .filter((r) => r.method === "resources/list"),
          [{ method: "resources/list", params: { cursor: "p2" } }]
        )
        success(yield* cli(["templates", "--config", config]), "srv  x://{id}  byId  text/plain\n")
        success(
          yield* cli(["templates", "--server", "srv", "--json", "--config", config]),
          `${JSON.stringify({
            server: "srv",
            resourceTemplates: [{ server: "srv", uriTemplate: "x://{id}", name: "byId", mimeType: "text/plain" }]
          })}\n`
        )
      }),
    60_000
  )

  it.scopedLive(
    "read prints the text; --json is exactly the model output; failures exit 1 with the model-facing message",
    () =>
      Effect.gen(function* () {
        const { config } = setup()
        success(yield* cli(["read", "srv", "x://a", "--config", config]), "--- x://a (text/plain)\nhello a\n")
        const expected = JSON.stringify({
          server: "srv",
          uri: "x://a",
          contents: [{ uri: "x://a", mimeType: "text/plain", text: "hello a" }]
        })
        success(yield* cli(["read", "srv", "x://a", "--json", "--config", config]), `${expected}\n`)
        assert.strictEqual(yield* modelOutput(config, "read_mcp_resource", { server: "srv", uri: "x://a" }), expected)

        assert.deepStrictEqual(yield* cli(["read", "srv", "x://nope", "--config", config]), {
          code: 1,
          stdout: "",
          stderr:
            "resources/read failed: resources/read failed for `srv` (x://nope): Mcp error: -32002: resource not found: x://nope\n"
        })
        assert.deepStrictEqual(yield* cli(["list", "--server", "nope", "--config", config]), {
          code: 1,
          stdout: "",
          stderr: "resources/list failed: unknown MCP server 'nope'\n"
        })
        assert.deepStrictEqual(yield* cli(["list", "--cursor", "p2", "--config", config]), {
          code: 1,
          stdout: "",
          stderr: "cursor can only be used when a server is specified\n"
        })
      }),
    60_000
  )

  it.scopedLive(
    "usage errors and a bad config exit 2 with the message on stderr; --help exits 0",
    () =>
      Effect.gen(function* () {
        const usageErrors: Array<[ReadonlyArray<string>, string]> = [
          [["bogus"], "unknown command: bogus"],
          [["read", "srv"], "read takes SERVER and URI"],
          [["read", "srv", "x://a", "--server", "s"], "unknown option for read: --server"],
          [["list", "--frob"], "unknown option for list: --frob"],
          [["list", "--server"], "--server requires a value"],
          [["tools", "extra"], "unexpected argument: extra"]
        ]
        for (const [args, message] of usageErrors) {
          assert.deepStrictEqual(yield* cli(args), {
            code: 2,
            stdout: "",
            stderr: `mcp-resources: ${message}\n${usage}\n`
          })
        }
        assert.deepStrictEqual(yield* cli([]), { code: 2, stdout: "", stderr: `${usage}\n` })

        const dir = tempDir()
        const bad = writeConfig(dir, "[mcp_servers.bad]\ncommand = 5\n")
        assert.deepStrictEqual(yield* cli(["list", "--config", bad]), {
          code: 2,
          stdout: "",
          stderr: `mcp-resources: ${bad}: mcp_servers.bad.command: expected string, got 5\n`
        })
        const missing = join(dir, "missing.toml")
        const run = yield* cli(["tools", "--config", missing])
        assert.strictEqual(run.code, 2)
        assert.strictEqual(run.stdout, "")
        assert.isTrue(run.stderr.startsWith(`mcp-resources: ${missing}: cannot read the file`), run.stderr)

        success(yield* cli(["--help"]), `${usage}\n`)
        success(yield* cli(["read", "-h"]), `${usage}\n`)
      }),
    60_000
  )

  it.scopedLive(
    "standard output carries only the result; logs go to standard error",
    () =>
      Effect.gen(function* () {
        const { config } = setup({ broken: { command: join(tempDir(), "no-such-program") } })
        const run = yield* cli(["list", "--config", config])
        assert.strictEqual(run.code, 0, run.stderr)
        const lines = run.stdout.trimEnd().split("\n")
        assert.deepStrictEqual(lines.slice(0, 3), [
          "docs  doc://readme  readme  text/markdown  Read me",
          "srv  x://a  a  text/plain",
          "srv  x://b  b"
        ])
        assert.strictEqual(lines.length, 4)
        assert.match(lines[3]!, /^failed: broken: /)
        assert.match(run.stderr, /level=WARN .*MCP server 'broken' failed to start/)
        const json = yield* cli(["list", "--json", "--config", config])
        assert.strictEqual(json.code, 0)
        assert.strictEqual(json.stdout.split("\n").length, 2)
        assert.deepStrictEqual(
          (JSON.parse(json.stdout) as { failedServers: Array<{ server: string }> }).failedServers.map((f) => f.server),
          ["broken"]
        )
        assert.include(json.stderr, "level=WARN")
      }),
    60_000
  )

  it.scopedLive(
    "serve runs the app-server: initialize over stdin is answered, the end of stdin exits 0",
    () =>
      Effect.gen(function* () {
        const { config } = setup()
        const server = yield* start({ script: cliJs, args: ["serve", "--config", config, "--data-dir", tempDir()] })
        const answer = yield* server.request("initialize", { clientInfo: { name: "cli-test" } })
        assert.deepStrictEqual(resultOf(answer), {
          serverInfo: { name: "mcp-resources-app-server", version: "0.1.0" },
          protocolVersion: 1
        })
        yield* server.endInput
        assert.strictEqual(yield* server.exited(), 0)
        assert.deepStrictEqual(server.lines.length, 1)

        const help = yield* cli(["serve", "--help"])
        assert.strictEqual(help.code, 0)
        assert.match(help.stdout, /^usage: mcp-resources-app-server \[--config PATH\]/)
        const bad = yield* cli(["serve", "--bogus"])
        assert.strictEqual(bad.code, 2)
        assert.strictEqual(bad.stdout, "")
        assert.match(bad.stderr, /^mcp-resources-app-server: unknown argument: --bogus\n/)
      }),
    60_000
  )
})
