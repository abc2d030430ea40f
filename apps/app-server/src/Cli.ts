#!/usr/bin/env node
/**
 * The `mcp-resources` CLI: `serve` runs the app-server; `tools`, `list`, `templates` and `read` run the
 * model tools once against the configured servers and print what a model would see (readable by
 * default, `--json` for the exact tool output). Exit codes: 0 success, 1 a failed tool call or
 * startup, 2 a usage or config error.
 */
import { Config as ProtocolConfig, type ToolPayload } from "@mcp-resources/protocol"
import { ResourceClient, ServerEntry } from "@mcp-resources/resource-client"
import { LifecycleSink, ToolHandlers } from "@mcp-resources/tool-handlers"
import * as NodeFs from "node:fs"
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
  widgets [--data-dir D]              serve the MCP Apps widget host page and the app-server on loopback

options:
  --config PATH   TOML or JSON config (default ./mcp-resources.toml if it exists, else no servers)
  --json          print the exact tool output instead of the readable form`

/** A command line the CLI refuses. */
export class CliUsageError extends Error {}

/** A parsed CLI command. */
export type Command =
  | { readonly _tag: "serve"; readonly args: ReadonlyArray<string> }
  | { readonly _tag: "widgets"; readonly configPath: string; readonly dataDir?: string }
  | {
      readonly _tag: "tools" | "list" | "templates" | "read"
      readonly configPath: string | undefined
      readonly json: boolean
      readonly server?: string
      readonly cursor?: string
      readonly uri?: string
    }

/** Parses the CLI's arguments. Throws {@link CliUsageError}. */
export const parseCommand = (argv: ReadonlyArray<string>): Command => {
  const [name, ...rest] = argv
  if (name === "serve") return { _tag: "serve", args: rest }
  if (name === "widgets") return parseWidgets(rest)
  if (name !== "tools" && name !== "list" && name !== "templates" && name !== "read") {
    throw new CliUsageError(name === undefined ? "a command is required" : `unknown command: ${name}`)
  }
  let configPath: string | undefined
  let json = false
  let server: string | undefined
  let cursor: string | undefined
  const positional: Array<string> = []
  for (let i = 0; i < rest.length; i++) {
    const arg = rest[i]!
    const value = () => {
      const v = rest[++i]
      if (v === undefined) throw new CliUsageError(`${arg} requires a value`)
      return v
    }
    if (arg === "--config") configPath = value()
    else if (arg === "--json") json = true
    else if (arg === "--server" && (name === "list" || name === "templates")) server = value()
    else if (arg === "--cursor" && (name === "list" || name === "templates")) cursor = value()
    else if (arg.startsWith("--")) throw new CliUsageError(`unknown option for ${name}: ${arg}`)
    else positional.push(arg)
  }
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

const parseWidgets = (rest: ReadonlyArray<string>): Command => {
  let configPath: string | undefined
  let dataDir: string | undefined
  for (let i = 0; i < rest.length; i++) {
    const arg = rest[i]!
    const value = () => {
      const v = rest[++i]
      if (v === undefined) throw new CliUsageError(`${arg} requires a value`)
      return v
    }
    if (arg === "--config") configPath = value()
    else if (arg === "--data-dir") dataDir = value()
    else
      throw new CliUsageError(
        arg.startsWith("--") ? `unknown option for widgets: ${arg}` : `unexpected argument: ${arg}`
      )
  }
  if (configPath === undefined) throw new CliUsageError("widgets requires --config PATH")
  return { _tag: "widgets", configPath, ...(dataDir !== undefined ? { dataDir } : {}) }
}

const loadConfig = (configPath: string | undefined) => {
  if (configPath !== undefined) return ProtocolConfig.load(configPath)
  return NodeFs.existsSync("mcp-resources.toml")
    ? ProtocolConfig.load("mcp-resources.toml")
    : Effect.succeed(ProtocolConfig.empty)
}

type ToolCommand = Exclude<Command, { _tag: "serve" } | { _tag: "widgets" }>

const toolFor = (command: ToolCommand): { name: string; arguments: string } => {
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

const runTools = (command: ToolCommand) =>
  Effect.gen(function* () {
    const config = yield* loadConfig(command.configPath)
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
        Effect.provide(Layer.merge(ResourceClient.layer(ServerEntry.fromConfig(config)), LifecycleSink.layerNoop))
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
    return yield* runTools(command)
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
