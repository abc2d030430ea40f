import { execFile, spawn } from "node:child_process"
import { appendFileSync, existsSync, readFileSync } from "node:fs"
import { createRequire } from "node:module"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { assert, describe, it } from "@effect/vitest"
import {
  changesStdioCommand,
  everythingCommand,
  exampleCommand,
  type FixtureSpec,
  readLog,
  stdioCommand,
  widgetAppsSpec
} from "@mcp-resources/fixtures"
import { Effect } from "effect"
import { usage } from "../src/Cli.js"
import {
  freePort,
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
const modelOutput = (
  config: string,
  name: string,
  args: Record<string, unknown>,
  profile: "codex" | "extended" = "codex"
) =>
  Effect.gen(function* () {
    const app = yield* startInitialized({ config })
    const { threadId, turnId } = yield* threadWithTurn(
      app,
      profile === "codex" ? {} : { config: { toolProfile: profile } }
    )
    yield* app.request("tool/list", { threadId }) // waits for every server to start, as the CLI does
    const called = resultOf(
      yield* app.request("tool/call", { threadId, turnId, callId: "c", name, arguments: JSON.stringify(args) })
    )
    return called.output as string
  })

/** {@link cli} logging warnings only (server-everything logs its start-up at debug). */
const cliWarn = (args: ReadonlyArray<string>) => cli(args, { MCP_RESOURCES_LOG: "warn" })

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
        assert.strictEqual(run.code, 3, run.stderr)
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
        assert.strictEqual(json.code, 3)
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

/** A child process whose output is collected as it comes; killed when the scope closes. */
interface Streaming {
  readonly stdout: () => string
  readonly stderr: () => string
  /** Waits (at most 30 s) until `which` output matches. */
  readonly waitFor: (which: "stdout" | "stderr", pattern: RegExp) => Effect.Effect<void, WaitTimeout>
  readonly signal: (name: NodeJS.Signals) => Effect.Effect<void>
  readonly exited: Effect.Effect<number | null, WaitTimeout>
}

const streaming = (command: string, args: ReadonlyArray<string>, env: Record<string, string> = {}) =>
  Effect.acquireRelease(
    Effect.sync((): Streaming & { readonly kill: () => void } => {
      const child = spawn(command, args, { cwd: tempDir(), env: { ...process.env, ...env } })
      const out = { stdout: "", stderr: "" }
      const listeners = new Set<() => void>()
      const changed = () => {
        for (const listener of listeners) listener()
      }
      child.stdout.on("data", (chunk: Buffer) => {
        out.stdout += chunk.toString("utf8")
        changed()
      })
      child.stderr.on("data", (chunk: Buffer) => {
        out.stderr += chunk.toString("utf8")
        changed()
      })
      const exit = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)))
      const within = <A>(what: string, wait: Promise<A>): Effect.Effect<A, WaitTimeout> =>
        Effect.promise(() => wait).pipe(
          Effect.timeoutFail({
            duration: "30 seconds",
            onTimeout: () =>
              new WaitTimeout({ message: `${what} within 30 s; stdout: ${out.stdout}; stderr: ${out.stderr}` })
          })
        )
      return {
        stdout: () => out.stdout,
        stderr: () => out.stderr,
        waitFor: (which, pattern) =>
          within(
            `no ${pattern} on ${which}`,
            new Promise<void>((resolve) => {
              const check = () => {
                if (!pattern.test(out[which])) return
                listeners.delete(check)
                resolve()
              }
              listeners.add(check)
              check()
            })
          ),
        signal: (name) =>
          Effect.sync(() => {
            child.kill(name)
          }),
        exited: within("no exit", exit),
        kill: () => {
          child.kill("SIGKILL")
        }
      }
    }),
    (running) => Effect.sync(running.kill)
  )

/** A TCP port nobody listens on now. */
/** The example server, server-everything and a changing-documents server, as the demo configures them. */
const exampleSetup = () => {
  const dir = tempDir()
  const touchFile = join(dir, "touches.txt")
  const config = writeConfig(dir, {
    mcp_servers: {
      example: exampleCommand(),
      everything: { ...everythingCommand(), startup_timeout_sec: 60 },
      docs: changesStdioCommand({ touchFile }),
      quiet: { ...changesStdioCommand({ subscribe: false }), poll_changes_sec: 0 },
      polled: { ...changesStdioCommand({ subscribe: false }), poll_changes_sec: 0.2 }
    }
  })
  return { config, touchFile }
}

describe("mcp-resources CLI: what the model can do, one command each", () => {
  it.scopedLive(
    "read --offset and --length page through a resource on the extended profile; --json is the model's window",
    () =>
      Effect.gen(function* () {
        const { config } = exampleSetup()
        const first = yield* cliWarn([
          "read",
          "example",
          "example://docs/readme.md",
          "--length",
          "40",
          "--config",
          config
        ])
        assert.strictEqual(first.code, 0, first.stderr)
        assert.strictEqual(
          first.stdout,
          [
            "[resource example://docs/readme.md of MCP server example: 1 content, 78 bytes of text]",
            "[contents[0] example://docs/readme.md (text/markdown): text, 78 bytes]",
            "# Example",
            "",
            "This server lists three resou",
            "[window: bytes 0-40 of 78; to continue, call read_mcp_resource with offset 40]",
            ""
          ].join("\n")
        )
        // the note's offset, given back as --offset (the --flag=value form too)
        const next = yield* cliWarn([
          "read",
          "example",
          "example://docs/readme.md",
          "--offset=40",
          "--json",
          `--config=${config}`
        ])
        assert.strictEqual(next.code, 0, next.stderr)
        const model = yield* modelOutput(
          config,
          "read_mcp_resource",
          { server: "example", uri: "example://docs/readme.md", offset: 40 },
          "extended"
        )
        assert.strictEqual(next.stdout, `${model}\n`)
        assert.match(next.stdout, /\[window: bytes 40-78 of 78; this is the end\]\n$/)
        // the codex profile has no windows: refused before anything starts
        assert.deepStrictEqual(
          yield* cliWarn(["read", "example", "example://docs/readme.md", "--offset", "40", "--profile", "codex"]),
          {
            code: 2,
            stdout: "",
            stderr: `mcp-resources: read --offset is only in the extended profile; it cannot be used with --profile codex\n${usage}\n`
          }
        )
      }),
    120_000
  )

  it.scopedLive(
    "read --template expands a template and complete asks server-everything for values, as the model would",
    () =>
      Effect.gen(function* () {
        const { config } = exampleSetup()
        const template = "demo://resource/dynamic/text/{resourceId}"
        const read = yield* cliWarn([
          "read",
          "everything",
          "--template",
          template,
          "--arg",
          "resourceId=1",
          "--config",
          config
        ])
        assert.strictEqual(read.code, 0, read.stderr)
        assert.match(
          read.stdout,
          /^\[resource demo:\/\/resource\/dynamic\/text\/1 of MCP server everything: 1 content, \d+ bytes of text\]\n/
        )
        assert.match(read.stdout, /\nResource 1: /)
        const complete = yield* cliWarn([
          "complete",
          "everything",
          "--template",
          template,
          "--var",
          "resourceId",
          "--value",
          "1",
          "--json",
          "--config",
          config
        ])
        assert.strictEqual(complete.code, 0, complete.stderr)
        const model = yield* modelOutput(
          config,
          "complete_mcp_resource_argument",
          { server: "everything", uriTemplate: template, argument: "resourceId", value: "1" },
          "extended"
        )
        assert.strictEqual(complete.stdout, `${model}\n`)
        const values = (JSON.parse(model) as { values: Array<string> }).values
        assert.include(values, "1")
        const readable = yield* cliWarn([
          "complete",
          "everything",
          `--template=${template}`,
          "--var=resourceId",
          "--value=1",
          "--config",
          config
        ])
        assert.strictEqual(readable.code, 0, readable.stderr)
        assert.deepStrictEqual(readable.stdout.trimEnd().split("\n").slice(0, values.length), values)
        // a template the server does not list: the model's message, exit 1
        const unlisted = yield* cliWarn([
          "read",
          "everything",
          "--template",
          "nope://{x}",
          "--arg",
          "x=1",
          "--config",
          config
        ])
        assert.deepStrictEqual(unlisted, {
          code: 1,
          stdout: "",
          stderr:
            "MCP server 'everything' lists no resource template 'nope://{x}'; list_mcp_resource_templates gives the templates it lists\n"
        })
      }),
    120_000
  )

  it.scopedLive(
    "call passes --arg values as JSON when they parse, saves images to files and prints their paths",
    () =>
      Effect.gen(function* () {
        const { config } = exampleSetup()
        success(
          yield* cliWarn(["call", "everything", "get-sum", "--arg", "a=2", "--arg", "b=3", "--config", config]),
          "The sum of 2 and 3 is 5.\n"
        )
        success(
          yield* cliWarn([
            "call",
            "everything",
            "get-sum",
            "--args-json",
            '{"a":2,"b":7}',
            "--arg",
            "b=3",
            "--config",
            config
          ]),
          "The sum of 2 and 3 is 5.\n"
        )
        const echo = yield* cliWarn([
          "call",
          "everything",
          "echo",
          "--arg",
          "message=[not json",
          "--json",
          "--config",
          config
        ])
        assert.strictEqual(echo.code, 0, echo.stderr)
        assert.strictEqual(
          echo.stdout,
          `${yield* modelOutput(config, "mcp__everything__echo", { message: "[not json" })}\n`
        )

        const imageDir = tempDir()
        const image = yield* cliWarn([
          "call",
          "everything",
          "get-tiny-image",
          "--image-dir",
          imageDir,
          "--config",
          config
        ])
        assert.strictEqual(image.code, 0, image.stderr)
        const file = join(imageDir, "get-tiny-image-1.png")
        assert.include(image.stdout, `[image image/png saved to ${file}]`)
        const json = yield* cliWarn(["call", "everything", "get-tiny-image", "--json", "--config", config])
        const content = (JSON.parse(json.stdout) as { content: Array<{ type: string; data?: string }> }).content
        const data = content.find((block) => block.type === "image")?.data
        assert.isString(data)
        assert.deepStrictEqual(readFileSync(file), Buffer.from(data!, "base64"))

        // the extended profile sends the image as an image part: saved the same way
        const extended = yield* cliWarn([
          "call",
          "everything",
          "get-tiny-image",
          "--profile",
          "extended",
          "--image-dir",
          imageDir,
          "--config",
          config
        ])
        assert.strictEqual(extended.code, 0, extended.stderr)
        assert.include(extended.stdout, "sent as image part 1]")
        assert.include(extended.stdout, `[image 1 (image/png) saved to ${file}]`)
        assert.deepStrictEqual(readFileSync(file), Buffer.from(data!, "base64"))

        assert.deepStrictEqual(yield* cliWarn(["call", "everything", "no-such-tool", "--config", config]), {
          code: 1,
          stdout: "",
          stderr: expectNoTool(yield* cliWarn(["tools", "--config", config]))
        })
        assert.deepStrictEqual(yield* cliWarn(["call", "everything", "echo", "--args-json", "[1]"]), {
          code: 2,
          stdout: "",
          stderr: `mcp-resources: --args-json: expected a JSON object, got "[1]"\n${usage}\n`
        })
      }),
    180_000
  )

  it.scopedLive(
    "watch subscribes and prints each change until SIGINT, then unsubscribes and exits 0; a server without subscriptions is polled, one with polling off refused",
    () =>
      Effect.gen(function* () {
        const { config, touchFile } = exampleSetup()
        const watch = yield* streaming(process.execPath, [
          cliJs,
          "watch",
          "docs",
          "changes://doc/plan",
          "--config",
          config
        ])
        yield* watch.waitFor("stderr", /watching changes:\/\/doc\/plan of MCP server 'docs'/)
        appendFileSync(touchFile, "changes://doc/other\nchanges://doc/plan\n")
        yield* watch.waitFor("stdout", /changed\n/)
        appendFileSync(touchFile, "changes://doc/plan\n")
        yield* watch.waitFor("stdout", /changed\n.*changed\n/)
        yield* watch.signal("SIGINT")
        assert.strictEqual(yield* watch.exited, 0, watch.stderr())
        const lines = watch.stdout().trimEnd().split("\n")
        assert.strictEqual(lines.length, 2)
        for (const line of lines)
          assert.match(line, /^\d{4}-\d\d-\d\dT[\d:.]+Z {2}docs {2}changes:\/\/doc\/plan {2}changed$/)

        // a server without subscriptions is polled: its document counts its reads, so every poll finds a change
        const polled = yield* streaming(process.execPath, [
          cliJs,
          "watch",
          "polled",
          "changes://doc/plan",
          "--config",
          config
        ])
        yield* polled.waitFor(
          "stderr",
          /watching changes:\/\/doc\/plan of MCP server 'polled' by polling every 0\.2 s; stop with Ctrl-C/
        )
        yield* polled.waitFor("stdout", /changed\n.*changed\n/)
        yield* polled.signal("SIGINT")
        assert.strictEqual(yield* polled.exited, 0, polled.stderr())
        for (const line of polled.stdout().trimEnd().split("\n"))
          assert.match(line, /^\d{4}-\d\d-\d\dT[\d:.]+Z {2}polled {2}changes:\/\/doc\/plan {2}changed$/)

        // with polling off as well, it is refused
        assert.deepStrictEqual(yield* cliWarn(["watch", "quiet", "changes://doc/plan", "--config", config]), {
          code: 1,
          stdout: "",
          stderr:
            "mcp-resources: MCP server 'quiet' does not offer resource subscriptions (resources.subscribe) and is not polled (mcp_servers.quiet.poll_changes_sec = 0), so it cannot tell of changes to changes://doc/plan\n"
        })
      }),
    120_000
  )
})

/** The message of `call` for a tool the server does not offer, naming the tools it does. */
const expectNoTool = (tools: CliRun): string => {
  const offered = tools.stdout
    .split("\n")
    .filter((line) => line.startsWith("mcp__everything__"))
    .map((line) => line.slice("mcp__everything__".length))
  return `mcp-resources: MCP server 'everything' offers the model no tool 'no-such-tool'; its tools: ${offered.join(", ")}\n`
}

describe("mcp-resources CLI: arguments, servers started, failures", () => {
  it.scopedLive(
    "--flag=value is accepted for every option, as by the app-server",
    () =>
      Effect.gen(function* () {
        const { config } = setup()
        success(
          yield* cli(["list", `--config=${config}`, "--server=srv"]),
          "srv  x://a  a  text/plain\nnext cursor: p2\n"
        )
        success(yield* cli(["read", "srv", "x://a", `--config=${config}`]), "--- x://a (text/plain)\nhello a\n")
        assert.deepStrictEqual(yield* cli(["tools", "--json=yes"]), {
          code: 2,
          stdout: "",
          stderr: `mcp-resources: --json takes no value\n${usage}\n`
        })
      }),
    60_000
  )

  it.scopedLive(
    "a command naming one server starts that server only",
    () =>
      Effect.gen(function* () {
        const dir = tempDir()
        const marker = join(dir, "started")
        const config = writeConfig(dir, {
          mcp_servers: {
            srv: stdioCommand(srvSpec),
            // a server that leaves a file behind when it is started (and then is not an MCP server)
            other: {
              command: process.execPath,
              args: ["-e", `require("node:fs").writeFileSync(${JSON.stringify(marker)}, "")`]
            }
          }
        })
        success(
          yield* cli(["list", "--server", "srv", "--config", config]),
          "srv  x://a  a  text/plain\nnext cursor: p2\n"
        )
        success(yield* cli(["read", "srv", "x://a", "--config", config]), "--- x://a (text/plain)\nhello a\n")
        success(yield* cli(["templates", "--server", "srv", "--config", config]), "srv  x://{id}  byId  text/plain\n")
        assert.isFalse(existsSync(marker), "the other server was started")
        // without --server every server starts
        const all = yield* cli(["list", "--config", config])
        assert.strictEqual(all.code, 3, all.stderr)
        assert.isTrue(existsSync(marker))
      }),
    60_000
  )

  it.scopedLive(
    "a server without resources/templates/list has no templates in the readable form; --json keeps the codex bytes",
    () =>
      Effect.gen(function* () {
        const { config } = setup({
          pg: stdioCommand({
            name: "pg",
            resourcePages: [{ result: { resources: [{ uri: "pg://t/users", name: "users" }] } }],
            templatesList: false
          })
        })
        success(yield* cli(["templates", "--config", config]), "srv  x://{id}  byId  text/plain\n")
        success(yield* cli(["templates", "--server", "pg", "--config", config]), "(no resource templates)\n")
        const json = yield* cli(["templates", "--json", "--config", config])
        assert.deepStrictEqual(json, {
          code: 0,
          stdout: `${yield* modelOutput(config, "list_mcp_resource_templates", {})}\n`,
          stderr: ""
        })
        assert.deepStrictEqual(JSON.parse(json.stdout).failedServers, [
          { server: "pg", error: "resources/templates/list failed for `pg`: Mcp error: -32601: Method not found" }
        ])
        assert.deepStrictEqual(yield* cli(["templates", "--server", "pg", "--json", "--config", config]), {
          code: 1,
          stdout: "",
          stderr:
            "resources/templates/list failed: resources/templates/list failed for `pg`: Mcp error: -32601: Method not found\n"
        })
        // the extended profile lists no templates for it, as its model sees
        const extended = yield* cli(["templates", "--json", "--profile", "extended", "--config", config])
        assert.strictEqual(extended.code, 0, extended.stderr)
        assert.strictEqual(
          extended.stdout,
          `${yield* modelOutput(config, "list_mcp_resource_templates", {}, "extended")}\n`
        )
        assert.notInclude(extended.stdout, "failedServers")
      }),
    90_000
  )

  it.scopedLive(
    "a server that failed to start: the output is printed, exit 3, and one warning for the cause",
    () =>
      Effect.gen(function* () {
        const { config } = setup({ broken: { command: join(tempDir(), "no-such-program") } })
        for (const args of [["list"], ["templates"], ["tools"], ["list", "--json"]]) {
          const run = yield* cli([...args, "--config", config], { MCP_RESOURCES_LOG: "info" })
          assert.strictEqual(run.code, 3, `${args.join(" ")}: ${run.stderr}`)
          const warnings = run.stderr.split("\n").filter((line) => line.includes("broken"))
          assert.strictEqual(warnings.length, 1, `${args.join(" ")}: ${run.stderr}`)
          assert.match(warnings[0]!, /level=WARN .*MCP server 'broken' failed to start: /)
        }
      }),
    90_000
  )

  it.scopedLive(
    "login against a server that does not offer OAuth says so in one line, without the page it answered",
    () =>
      Effect.gen(function* () {
        const port = yield* freePort()
        const everything = createRequire(import.meta.url).resolve(
          "@modelcontextprotocol/server-everything/package.json"
        )
        const server = yield* streaming(
          process.execPath,
          [join(everything, "..", "dist", "index.js"), "streamableHttp"],
          {
            PORT: String(port)
          }
        )
        yield* server.waitFor("stderr", new RegExp(`listening on port ${port}`))
        const config = writeConfig(tempDir(), { mcp_servers: { everything: { url: `http://127.0.0.1:${port}/mcp` } } })
        const login = yield* cli(["login", "everything", "--config", config, "--data-dir", tempDir()])
        assert.deepStrictEqual(login, {
          code: 1,
          stdout: "",
          stderr:
            "mcp-resources: MCP server 'everything' does not offer OAuth: it answered an unauthenticated initialize with HTTP 200, not 401, and the OAuth discovery failed: Dynamic Client Registration rejected (HTTP 404)\n"
        })
      }),
    60_000
  )
})
