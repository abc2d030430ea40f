#!/usr/bin/env node
/**
 * The `mcp-resources` CLI: `serve` runs the app-server; `tools`, `list`, `templates` and `read` run the
 * model tools once against the configured servers and print what a model would see (readable by
 * default, `--json` for the exact tool output). Exit codes: 0 success, 1 a failed tool call or
 * startup, 2 a usage or config error.
 */
import { Messages, Config as ProtocolConfig, type ToolPayload } from "@mcp-resources/protocol"
import { McpTransport, OAuth, ResourceClient, ServerEntry, TokenStore } from "@mcp-resources/resource-client"
import { LifecycleSink, ToolHandlers } from "@mcp-resources/tool-handlers"
import { ThreadStore } from "@mcp-resources/thread-store"
import * as NodeChild from "node:child_process"
import * as NodeFs from "node:fs"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"
import * as Audit from "./cli/audit.js"
import { Console, Effect, Layer } from "effect"
import { loggerLayer } from "./Logging.js"

/** The CLI usage text. */
export const usage = `usage: mcp-resources <command> [options]

commands:
  serve [server options]              run the JSON-RPC app-server (see mcp-resources-app-server --help)
  tools                               the tools a model would be offered
  list [--server S] [--cursor C]      list_mcp_resources (all servers without --server)
  templates [--server S] [--cursor C] list_mcp_resource_templates
  read SERVER URI                     read_mcp_resource
  audit THREAD [--data-dir DIR]       a thread's record of what was listed, read, denied and changed by hooks
  login SERVER [--timeout SEC]        log in to an OAuth HTTP server (prints the URL, waits for the redirect)
  logout SERVER                       remove the stored login of a server
  widgets [--data-dir D]              serve the MCP Apps widget host page and the app-server on loopback

options:
  --config PATH   TOML or JSON config (default ./mcp-resources.toml if it exists, else no servers)
  --json          print the exact tool output instead of the readable form
  --data-dir DIR  audit, login, logout: the app-server's data directory, where threads and tokens are
                  stored (default $MCP_RESOURCES_HOME, else ~/.mcp-resources)`

/** A command line the CLI refuses. */
export class CliUsageError extends Error {}

/** A parsed CLI command. */
export type Command =
  | { readonly _tag: "serve"; readonly args: ReadonlyArray<string> }
  | { readonly _tag: "widgets"; readonly configPath: string; readonly dataDir?: string }
  | {
      readonly _tag: "audit"
      readonly configPath: string | undefined
      readonly dataDir: string | undefined
      readonly json: boolean
      readonly threadId: string
    }
  | {
      readonly _tag: "login" | "logout"
      readonly configPath: string | undefined
      readonly dataDir: string | undefined
      readonly server: string
      readonly timeoutSec: number
    }
  | {
      readonly _tag: "tools" | "list" | "templates" | "read"
      readonly configPath: string | undefined
      readonly json: boolean
      readonly server?: string
      readonly cursor?: string
      readonly uri?: string
    }

/** The options and positional arguments of one command (`--name value` options, `--name` flags). */
interface Scanned {
  readonly values: ReadonlyMap<string, string>
  readonly flags: ReadonlySet<string>
  readonly positional: ReadonlyArray<string>
}

/** Reads `rest` of command `name`: `valued` options take the next argument, `flags` stand alone. Throws {@link CliUsageError}. */
const scan = (
  name: string,
  rest: ReadonlyArray<string>,
  valued: ReadonlyArray<string>,
  flags: ReadonlyArray<string> = []
): Scanned => {
  const values = new Map<string, string>()
  const set = new Set<string>()
  const positional: Array<string> = []
  for (let i = 0; i < rest.length; i++) {
    const arg = rest[i]!
    if (valued.includes(arg)) {
      const v = rest[++i]
      if (v === undefined) throw new CliUsageError(`${arg} requires a value`)
      values.set(arg, v)
    } else if (flags.includes(arg)) set.add(arg)
    else if (arg.startsWith("--")) throw new CliUsageError(`unknown option for ${name}: ${arg}`)
    else positional.push(arg)
  }
  return { values, flags: set, positional }
}

/** Parses the CLI's arguments. Throws {@link CliUsageError}. */
export const parseCommand = (argv: ReadonlyArray<string>): Command => {
  const [name, ...rest] = argv
  if (name === "serve") return { _tag: "serve", args: rest }
  if (name === "audit") return parseAudit(rest)
  if (name === "login" || name === "logout") return parseLogin(name, rest)
  if (name === "widgets") return parseWidgets(rest)
  if (name !== "tools" && name !== "list" && name !== "templates" && name !== "read") {
    throw new CliUsageError(name === undefined ? "a command is required" : `unknown command: ${name}`)
  }
  const paged = name === "list" || name === "templates"
  const { values, flags, positional } = scan(name, rest, paged ? ["--config", "--server", "--cursor"] : ["--config"], [
    "--json"
  ])
  const configPath = values.get("--config")
  const json = flags.has("--json")
  const server = values.get("--server")
  const cursor = values.get("--cursor")
  if (name === "read") {
    if (positional.length !== 2) throw new CliUsageError("read takes SERVER and URI")
    return { _tag: name, configPath, json, server: positional[0]!, uri: positional[1]! }
  }
  if (positional.length > 0) throw new CliUsageError(`unexpected argument: ${positional[0]}`)
  return {
    _tag: name,
    configPath,
    json,
    ...(server !== undefined ? { server } : {}),
    ...(cursor !== undefined ? { cursor } : {})
  }
}

const parseAudit = (rest: ReadonlyArray<string>): Command => {
  const { values, flags, positional } = scan("audit", rest, ["--config", "--data-dir"], ["--json"])
  if (positional.length !== 1) throw new CliUsageError("audit takes THREAD")
  return {
    _tag: "audit",
    configPath: values.get("--config"),
    dataDir: values.get("--data-dir"),
    json: flags.has("--json"),
    threadId: positional[0]!
  }
}

/** How long `login` waits for the redirect unless `--timeout` says otherwise. */
export const defaultLoginTimeoutSec = 300

const parseLogin = (name: "login" | "logout", rest: ReadonlyArray<string>): Command => {
  const valued = name === "login" ? ["--config", "--data-dir", "--timeout"] : ["--config", "--data-dir"]
  const { values, positional } = scan(name, rest, valued)
  const text = values.get("--timeout")
  const timeoutSec = text === undefined ? defaultLoginTimeoutSec : Number(text)
  if (text !== undefined && (!/^\d+$/.test(text) || timeoutSec < 1)) {
    throw new CliUsageError(`--timeout must be a whole number of seconds >= 1, got ${JSON.stringify(text)}`)
  }
  if (positional.length !== 1) throw new CliUsageError(`${name} takes SERVER`)
  return {
    _tag: name,
    configPath: values.get("--config"),
    dataDir: values.get("--data-dir"),
    server: positional[0]!,
    timeoutSec
  }
}

/** The data dir of login/logout: `--data-dir`, else `$MCP_RESOURCES_HOME`, else `~/.mcp-resources` (as the app-server). */
const dataDirOf = (dataDir: string | undefined): string => {
  if (dataDir !== undefined) return NodePath.resolve(dataDir)
  const home = process.env.MCP_RESOURCES_HOME
  return home !== undefined && home !== "" ? NodePath.resolve(home) : NodePath.join(NodeOs.homedir(), ".mcp-resources")
}

const runAudit = (command: Extract<Command, { _tag: "audit" }>) =>
  Effect.gen(function* () {
    const config = yield* loadConfig(command.configPath)
    const list = yield* Audit.load(command.threadId).pipe(
      Effect.provide(
        ThreadStore.layerFromConfig({
          driver: config.persistence.driver,
          url: config.persistence.url,
          dataDir: dataDirOf(command.dataDir)
        })
      )
    )
    yield* Console.log(command.json ? JSON.stringify(list) : Audit.readable(command.threadId, list))
    return 0
  })

/** Opens the URL with `$BROWSER` when it is set; never fails (the URL is printed either way). */
const openBrowser = (url: string) =>
  Effect.sync(() => {
    const browser = process.env.BROWSER
    if (browser === undefined || browser.trim() === "") return false
    try {
      const child = NodeChild.spawn(browser, [url], { stdio: "ignore", detached: true })
      child.on("error", () => undefined)
      child.unref()
      return true
    } catch {
      return false
    }
  })

const runLogin = (command: Extract<Command, { _tag: "login" | "logout" }>) =>
  Effect.gen(function* () {
    const config = yield* loadConfig(command.configPath)
    const entry = config.mcpServers.find((server) => server.name === command.server)
    if (entry === undefined) {
      yield* Console.error(`mcp-resources: ${Messages.unknownServer(command.server)}`)
      return 1
    }
    const store = TokenStore.layerDataDir(dataDirOf(command.dataDir))
    if (command._tag === "logout") {
      const removed = yield* OAuth.logout(entry.name).pipe(Effect.provide(store))
      yield* Console.log(removed ? Messages.oauth.loggedOut(entry.name) : Messages.oauth.notLoggedIn(entry.name))
      return 0
    }
    return yield* Effect.scoped(
      Effect.gen(function* () {
        const start = yield* OAuth.startLogin(entry, { timeoutSec: command.timeoutSec })
        if (start.authorizationUrl !== "") {
          yield* Console.log(
            `To log in to MCP server '${entry.name}', open this URL in a browser:\n\n  ${start.authorizationUrl}\n`
          )
          const opened = yield* openBrowser(start.authorizationUrl)
          yield* Console.log(
            `${opened ? "Opened $BROWSER. " : ""}Waiting up to ${command.timeoutSec} s for the redirect to ${start.redirectUrl} ...`
          )
        }
        yield* start.completion
        yield* Console.log(Messages.oauth.loggedIn(entry.name))
        return 0
      })
    ).pipe(Effect.provide(store))
  }).pipe(Effect.catchTag("LoginError", (error) => Effect.as(Console.error(`mcp-resources: ${error.message}`), 1)))

const parseWidgets = (rest: ReadonlyArray<string>): Command => {
  const { values, positional } = scan("widgets", rest, ["--config", "--data-dir"])
  if (positional.length > 0) throw new CliUsageError(`unexpected argument: ${positional[0]}`)
  const configPath = values.get("--config")
  if (configPath === undefined) throw new CliUsageError("widgets requires --config PATH")
  const dataDir = values.get("--data-dir")
  return { _tag: "widgets", configPath, ...(dataDir !== undefined ? { dataDir } : {}) }
}

const loadConfig = (configPath: string | undefined) => {
  if (configPath !== undefined) return ProtocolConfig.load(configPath)
  return NodeFs.existsSync("mcp-resources.toml")
    ? ProtocolConfig.load("mcp-resources.toml")
    : Effect.succeed(ProtocolConfig.empty)
}

const toolFor = (
  command: Extract<Command, { _tag: "tools" | "list" | "templates" | "read" }>
): { name: string; arguments: string } => {
  const args: Record<string, string> = {}
  if (command.server !== undefined) args.server = command.server
  if (command.cursor !== undefined) args.cursor = command.cursor
  if (command.uri !== undefined) args.uri = command.uri
  const name =
    command._tag === "list"
      ? "list_mcp_resources"
      : command._tag === "templates"
        ? "list_mcp_resource_templates"
        : "read_mcp_resource"
  return { name, arguments: JSON.stringify(args) }
}

/** The readable form of a successful tool output (the JSON payload, when it is still whole). */
export const readable = (command: Command["_tag"], output: string): string => {
  let payload: Record<string, unknown>
  try {
    payload = JSON.parse(output) as Record<string, unknown>
  } catch {
    return output // truncated payloads are no longer JSON: print them as the model sees them
  }
  const lines: Array<string> = []
  const entries = (payload.resources ?? payload.resourceTemplates ?? []) as Array<Record<string, unknown>>
  if (command === "list" || command === "templates") {
    for (const e of entries) {
      const what = String(e.uri ?? e.uriTemplate)
      const extra = [e.mimeType, e.title ?? e.description].filter((x) => typeof x === "string").join("  ")
      lines.push(`${e.server}  ${what}  ${e.name}${extra ? `  ${extra}` : ""}`)
    }
    if (entries.length === 0) lines.push(command === "list" ? "(no resources)" : "(no resource templates)")
    if (typeof payload.nextCursor === "string") lines.push(`next cursor: ${payload.nextCursor}`)
    for (const f of (payload.failedServers ?? []) as Array<{ server: string; error: string }>) {
      lines.push(`failed: ${f.server}: ${f.error}`)
    }
    return lines.join("\n")
  }
  for (const c of (payload.contents ?? []) as Array<Record<string, unknown>>) {
    lines.push(`--- ${c.uri}${typeof c.mimeType === "string" ? ` (${c.mimeType})` : ""}`)
    lines.push(typeof c.text === "string" ? c.text : `[blob, ${String(c.blob).length} base64 characters]`)
  }
  return lines.join("\n")
}

const runTools = (command: Extract<Command, { _tag: "tools" | "list" | "templates" | "read" }>) =>
  Effect.gen(function* () {
    const located = yield* ProtocolConfig.locate(command.configPath, process.cwd())
    // no server to ask: one line naming the file read or looked for (the config's own message)
    const none = command._tag === "tools" ? undefined : ProtocolConfig.noServers(located)
    if (none !== undefined) {
      yield* Console.error(`mcp-resources: ${none}`)
      return 2
    }
    const config = located.config
    return yield* Effect.scoped(
      Effect.gen(function* () {
        const client = yield* ResourceClient.ResourceClient
        const set = yield* client.acquire
        // A one-shot CLI waits for every server's startup so that an all-servers list is complete.
        yield* set.awaitAllSettled
        const ctx: ToolHandlers.ToolContext = {
          set,
          config,
          orchestratorMcpEnabled: config.orchestrator.mcpEnabled,
          truncation: config.truncation,
          profile: config.tools.profile
        }
        if (command._tag === "tools") {
          const specs: ReadonlyArray<ToolPayload.ToolSpec> = yield* ToolHandlers.listTools(ctx)
          yield* Console.log(
            command.json
              ? JSON.stringify(specs)
              : specs.length === 0
                ? "(no tools: no enabled MCP server is configured)"
                : specs.map((s) => `${s.name}\n    ${s.description.split("\n")[0]}`).join("\n")
          )
          return 0
        }
        const { output, success } = yield* ToolHandlers.callTool(ctx, { callId: "cli", ...toolFor(command) })
        if (!success) {
          yield* Console.error(output)
          return 1
        }
        yield* Console.log(command.json ? output : readable(command._tag, output))
        return 0
      }).pipe(
        Effect.provide(
          Layer.merge(
            ResourceClient.layerWith(ServerEntry.fromConfig(config)).pipe(
              Layer.provide(McpTransport.layer),
              Layer.provide(TokenStore.layerDataDir(dataDirOf(undefined)))
            ),
            LifecycleSink.layerNoop
          )
        )
      )
    )
  })

/** Runs the CLI and returns its exit code. */
export const run = (argv: ReadonlyArray<string>): Effect.Effect<number> =>
  Effect.gen(function* () {
    // `serve --help` is the server's own usage (main.js prints it).
    if (argv[0] !== "serve" && (argv.includes("--help") || argv.includes("-h") || argv.length === 0)) {
      yield* argv.length === 0 ? Console.error(usage) : Console.log(usage)
      return argv.length === 0 ? 2 : 0
    }
    const command = yield* Effect.try({
      try: () => parseCommand(argv),
      catch: (e) => (e instanceof CliUsageError ? e : new CliUsageError(String(e)))
    })
    if (command._tag === "serve") {
      process.argv = [process.argv[0]!, "mcp-resources-app-server", ...command.args]
      yield* Effect.promise(() => import("./main.js"))
      return yield* Effect.never
    }
    if (command._tag === "widgets") {
      const config = yield* ProtocolConfig.load(command.configPath)
      const { run: runWidgets } = yield* Effect.promise(() => import("./cli/widgets.js"))
      return yield* Effect.tryPromise({
        try: () => runWidgets({ ...command, config }),
        catch: (e) => (e instanceof Error ? e : new Error(String(e)))
      })
    }
    if (command._tag === "audit") return yield* runAudit(command)
    if (command._tag === "login" || command._tag === "logout") return yield* runLogin(command)
    return yield* runTools(command as Extract<Command, { _tag: "tools" | "list" | "templates" | "read" }>)
  }).pipe(
    Effect.catchAll((error) =>
      Console.error(
        error instanceof CliUsageError ? `mcp-resources: ${error.message}\n${usage}` : `mcp-resources: ${error.message}`
      ).pipe(Effect.as(error instanceof CliUsageError || ("_tag" in error && error._tag === "ConfigError") ? 2 : 1))
    ),
    Effect.provide(loggerLayer)
  )

const isMain = process.argv[1] !== undefined && /(?:^|[\\/])(Cli\.js|mcp-resources)$/.test(process.argv[1])
if (isMain) {
  Effect.runPromise(run(process.argv.slice(2))).then(
    (code) => {
      process.exitCode = code
    },
    (e) => {
      process.stderr.write(`mcp-resources: ${String(e)}\n`)
      process.exitCode = 1
    }
  )
}
