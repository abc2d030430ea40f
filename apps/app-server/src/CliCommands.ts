/**
 * The commands of the `mcp-resources` CLI as data (their forms, options and summaries), the usage text
 * printed from them, and the parser of a command line into a {@link Command}. The reference generator
 * renders the command and option tables of `docs/cli.md` from the same data.
 */
import * as CommandLine from "./CommandLine.js"

/** A tool profile the CLI can run the tools on. */
export type Profile = "codex" | "extended"

/** The exit code of a partial failure: the output is printed, but some configured server failed. */
export const partialFailureExitCode = 3

/** How long `login` waits for the redirect unless `--timeout` says otherwise. */
export const defaultLoginTimeoutSec = 300

const option = (o: CommandLine.Option): CommandLine.Option => o

/** The options, by name. */
export const options = {
  config: option({
    name: "--config",
    value: "PATH",
    description: "The config file, TOML or JSON (default `./mcp-resources.toml` if it exists, else no servers)."
  }),
  profile: option({
    name: "--profile",
    value: "codex|extended",
    description:
      "The tool profile to run the tools on (default: the config's `[tools] profile`, `codex` unless set). What only the extended profile has (`read --offset`, `--length`, `--template`, `complete`) runs on it unless `--profile codex` is given."
  }),
  json: option({ name: "--json", description: "Print the exact tool output instead of the readable form." }),
  dataDir: option({
    name: "--data-dir",
    value: "DIR",
    description:
      "The app-server's data directory, where threads and OAuth tokens are stored (default `$MCP_RESOURCES_HOME`, else `~/.mcp-resources`; for `widgets`, `./.mcp-resources-widgets`)."
  }),
  server: option({ name: "--server", value: "S", description: "List one server only (and only start that one)." }),
  cursor: option({ name: "--cursor", value: "C", description: "The page to list, from a previous `next cursor`." }),
  limit: option({
    name: "--limit",
    value: "N",
    description: "`search`: the most matches to print (default 10, at most 50)."
  }),
  offset: option({
    name: "--offset",
    value: "N",
    description: "Extended profile: where the window of text starts, in UTF-8 bytes (the note of a window gives it)."
  }),
  length: option({ name: "--length", value: "N", description: "Extended profile: the most bytes of text to return." }),
  template: option({
    name: "--template",
    value: "URI_TEMPLATE",
    description: "A resource template exactly as `templates` lists it (extended profile)."
  }),
  arg: option({
    name: "--arg",
    value: "NAME=VALUE",
    repeatable: true,
    description:
      "A template variable's value (`read --template`, `complete`), or a tool argument (`call`: a VALUE that parses as JSON is passed as that JSON, else as a string)."
  }),
  variable: option({ name: "--var", value: "NAME", description: "`complete`: the template variable to complete." }),
  value: option({
    name: "--value",
    value: "PREFIX",
    description: "`complete`: what is known of the value so far (may be empty: `--value=`)."
  }),
  argsJson: option({
    name: "--args-json",
    value: "JSON",
    description: "`call`: the tool arguments as one JSON object; `--arg` values are set on top of it."
  }),
  imageDir: option({
    name: "--image-dir",
    value: "DIR",
    description: "`call`: where images of the result are saved (default: a new folder under the system's temp folder)."
  }),
  timeout: option({
    name: "--timeout",
    value: "SEC",
    description: `\`login\`: how long to wait for the browser's redirect (default ${defaultLoginTimeoutSec}).`
  }),
  help: option({ name: "--help", alias: "-h", description: "Print this usage on standard output and exit 0." })
} as const

/** One form of a command: its arguments and what it does. */
export interface Form {
  readonly args: string
  readonly summary: string
}

/** A command of the CLI. */
export interface CommandSpec {
  readonly name: string
  readonly forms: ReadonlyArray<Form>
  readonly options: ReadonlyArray<CommandLine.Option>
}

const toolOptions = [options.config, options.profile, options.json, options.dataDir]

/** Every command, in the order the usage lists them. */
export const commands: ReadonlyArray<CommandSpec> = [
  {
    name: "serve",
    forms: [{ args: "[server options]", summary: "run the JSON-RPC app-server (see mcp-resources-app-server --help)" }],
    options: []
  },
  { name: "tools", forms: [{ args: "", summary: "the tools a model would be offered" }], options: toolOptions },
  {
    name: "list",
    forms: [{ args: "[--server S] [--cursor C]", summary: "list_mcp_resources (all servers without --server)" }],
    options: [...toolOptions, options.server, options.cursor]
  },
  {
    name: "templates",
    forms: [{ args: "[--server S] [--cursor C]", summary: "list_mcp_resource_templates" }],
    options: [...toolOptions, options.server, options.cursor]
  },
  {
    name: "read",
    forms: [
      { args: "SERVER URI [--offset N] [--length N]", summary: "read_mcp_resource (a window: extended profile)" },
      {
        args: "SERVER --template URI_TEMPLATE [--arg NAME=VALUE]...",
        summary: "read_mcp_resource through a resource template (extended profile)"
      }
    ],
    options: [...toolOptions, options.offset, options.length, options.template, options.arg]
  },
  {
    name: "complete",
    forms: [
      {
        args: "SERVER --template URI_TEMPLATE --var NAME --value PREFIX [--arg NAME=VALUE]...",
        summary: "complete_mcp_resource_argument: values for a template variable (extended profile)"
      }
    ],
    options: [...toolOptions, options.template, options.variable, options.value, options.arg]
  },
  {
    name: "call",
    forms: [
      {
        args: "SERVER TOOL [--arg NAME=VALUE]... [--args-json JSON]",
        summary: "call an MCP tool as the model would (images saved to files, their paths printed)"
      }
    ],
    options: [...toolOptions, options.arg, options.argsJson, options.imageDir]
  },
  {
    name: "search",
    forms: [
      {
        args: "QUERY [--server S] [--limit N]",
        summary: "search every server's resources and templates by name, title, description and URI"
      }
    ],
    options: [options.config, options.json, options.dataDir, options.server, options.limit]
  },
  {
    name: "watch",
    forms: [{ args: "SERVER URI", summary: "subscribe to a resource and print each change until interrupted" }],
    options: [options.config, options.json, options.dataDir]
  },
  {
    name: "audit",
    forms: [
      {
        args: "THREAD [--data-dir DIR]",
        summary: "a thread's record of what was listed, read, denied and changed by hooks"
      }
    ],
    options: [options.config, options.json, options.dataDir]
  },
  {
    name: "login",
    forms: [
      {
        args: "SERVER [--timeout SEC]",
        summary: "log in to an OAuth HTTP server (prints the URL, waits for the redirect)"
      }
    ],
    options: [options.config, options.dataDir, options.timeout]
  },
  {
    name: "logout",
    forms: [{ args: "SERVER", summary: "remove the stored login of a server" }],
    options: [options.config, options.dataDir]
  },
  {
    name: "widgets",
    forms: [{ args: "[--data-dir D]", summary: "serve the MCP Apps widget host page and the app-server on loopback" }],
    options: [options.config, options.dataDir]
  }
]

/** Every option of the CLI once, in the order of {@link options}. */
export const allOptions: ReadonlyArray<CommandLine.Option> = Object.values(options)

/** `name args` of every form of every command. */
export const formLines = (): ReadonlyArray<{ readonly form: string; readonly summary: string }> =>
  commands.flatMap((command) =>
    command.forms.map((form) => ({
      form: form.args === "" ? command.name : `${command.name} ${form.args}`,
      summary: form.summary
    }))
  )

/** The exit codes, as the usage and the reference give them. */
export const exitCodes: ReadonlyArray<{ readonly code: number; readonly meaning: string }> = [
  { code: 0, meaning: "success" },
  {
    code: 1,
    meaning:
      "the tool call failed (its model-facing message is printed on standard error), or startup or the command failed"
  },
  { code: 2, meaning: "a usage error (printed with the usage) or a config that cannot be used" },
  {
    code: partialFailureExitCode,
    meaning:
      "a partial failure: the output is printed, but a configured server failed (to start, or to answer its part of an all-servers list)"
  }
]

/** The CLI usage text. */
export const usage = (() => {
  // a form longer than the column gets its summary on the next line
  const width = 44
  const commandLines = formLines().flatMap((line) =>
    line.form.length + 4 <= width
      ? [`  ${line.form.padEnd(width - 2)}${line.summary}`]
      : [`  ${line.form}`, `${" ".repeat(width)}${line.summary}`]
  )
  return [
    "usage: mcp-resources <command> [options]",
    "",
    "commands:",
    ...commandLines,
    "",
    "options:",
    CommandLine.helpList(allOptions),
    "",
    "exit codes:",
    ...exitCodes.map((exit) => `  ${exit.code}  ${exit.meaning}`)
  ].join("\n")
})()

/** What a tool command has in common. */
interface ToolBase {
  readonly configPath: string | undefined
  readonly dataDir: string | undefined
  readonly json: boolean
  /** `--profile`, when given. */
  readonly profile: Profile | undefined
  /** The command uses what only the extended profile has (it runs on it unless `--profile codex`). */
  readonly extendedOnly: boolean
}

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
      readonly _tag: "search"
      readonly configPath: string | undefined
      readonly dataDir: string | undefined
      readonly json: boolean
      readonly query: string
      readonly server?: string
      readonly limit?: number
    }
  | {
      readonly _tag: "watch"
      readonly configPath: string | undefined
      readonly dataDir: string | undefined
      readonly json: boolean
      readonly server: string
      readonly uri: string
    }
  | (ToolBase & { readonly _tag: "tools" })
  | (ToolBase & { readonly _tag: "list" | "templates"; readonly server?: string; readonly cursor?: string })
  | (ToolBase & {
      readonly _tag: "read"
      readonly server: string
      readonly target:
        | { readonly _tag: "uri"; readonly uri: string }
        | { readonly _tag: "template"; readonly uriTemplate: string; readonly values: Readonly<Record<string, string>> }
      readonly offset?: number
      readonly length?: number
    })
  | (ToolBase & {
      readonly _tag: "complete"
      readonly server: string
      readonly uriTemplate: string
      readonly variable: string
      readonly value: string
      readonly context: Readonly<Record<string, string>>
    })
  | (ToolBase & {
      readonly _tag: "call"
      readonly server: string
      readonly tool: string
      readonly arguments: Readonly<Record<string, unknown>>
      readonly imageDir?: string
    })

/** The commands that run a model tool once. */
export type ToolCommand = Extract<Command, { readonly extendedOnly: boolean }>

const usageError = (message: string) => new CommandLine.UsageError(message)

/** `NAME=VALUE` pairs of `--arg`, the value as given. */
const pairs = (texts: ReadonlyArray<string>): ReadonlyArray<readonly [string, string]> =>
  texts.map((text) => {
    const eq = text.indexOf("=")
    if (eq <= 0) throw usageError(`--arg: expected NAME=VALUE, got ${JSON.stringify(text)}`)
    return [text.slice(0, eq), text.slice(eq + 1)] as const
  })

/** Template values (strings); no prototype, so a variable named `__proto__` is a value like any other. */
const stringValues = (texts: ReadonlyArray<string>): Readonly<Record<string, string>> => {
  const values: Record<string, string> = Object.create(null) as Record<string, string>
  for (const [name, value] of pairs(texts)) values[name] = value
  return values
}

/** Sets an own property, whatever its name (`__proto__` too). */
const define = (target: Record<string, unknown>, name: string, value: unknown): void => {
  Object.defineProperty(target, name, { value, enumerable: true, writable: true, configurable: true })
}

/** `call` arguments: `--args-json`, then each `--arg` (a VALUE that parses as JSON is that JSON, else a string). */
const toolArguments = (json: string | undefined, texts: ReadonlyArray<string>): Readonly<Record<string, unknown>> => {
  const out: Record<string, unknown> = {}
  if (json !== undefined) {
    let parsed: unknown
    try {
      parsed = JSON.parse(json)
    } catch {
      throw usageError(`--args-json: expected a JSON object, got ${JSON.stringify(json)}`)
    }
    if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
      throw usageError(`--args-json: expected a JSON object, got ${JSON.stringify(json)}`)
    }
    for (const [name, entry] of Object.entries(parsed)) define(out, name, entry)
  }
  for (const [name, text] of pairs(texts)) {
    let value: unknown = text
    try {
      value = JSON.parse(text)
    } catch {
      // not JSON: the text itself
    }
    define(out, name, value)
  }
  return out
}

/** A whole number of bytes `>= 0`. */
const byteCount = (flag: string, text: string | undefined): number | undefined => {
  if (text === undefined) return undefined
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(Number(text))) {
    throw usageError(`${flag}: expected a whole number of bytes >= 0, got ${JSON.stringify(text)}`)
  }
  return Number(text)
}

const parseProfile = (text: string | undefined): Profile | undefined => {
  if (text === undefined || text === "codex" || text === "extended") return text
  throw usageError(`--profile: expected codex or extended, got ${JSON.stringify(text)}`)
}

/** Parses the CLI's arguments. Throws {@link CommandLine.UsageError}. */
export const parseCommand = (argv: ReadonlyArray<string>): Command => {
  const [name, ...rest] = argv
  if (name === "serve") return { _tag: "serve", args: rest }
  const spec = commands.find((command) => command.name === name)
  if (spec === undefined) throw usageError(name === undefined ? "a command is required" : `unknown command: ${name}`)
  const parsed = CommandLine.parse(spec.options, rest, {
    unknownOption: (arg) => `unknown option for ${spec.name}: ${arg}`
  })
  const value = (o: CommandLine.Option) => CommandLine.last(parsed, o.name)
  const configPath = value(options.config)
  const dataDir = value(options.dataDir)
  const json = parsed.switches.has(options.json.name)
  const positional = parsed.positional
  const none = () => {
    if (positional.length > 0) throw usageError(`unexpected argument: ${positional[0]}`)
  }
  switch (spec.name) {
    case "audit":
      if (positional.length !== 1) throw usageError("audit takes THREAD")
      return { _tag: "audit", configPath, dataDir, json, threadId: positional[0]! }
    case "login":
    case "logout": {
      const text = value(options.timeout)
      const timeoutSec = text === undefined ? defaultLoginTimeoutSec : Number(text)
      if (text !== undefined && (!/^\d+$/.test(text) || timeoutSec < 1)) {
        throw usageError(`--timeout must be a whole number of seconds >= 1, got ${JSON.stringify(text)}`)
      }
      if (positional.length !== 1) throw usageError(`${spec.name} takes SERVER`)
      return { _tag: spec.name, configPath, dataDir, server: positional[0]!, timeoutSec }
    }
    case "widgets": {
      none()
      if (configPath === undefined) throw usageError("widgets requires --config PATH")
      return { _tag: "widgets", configPath, ...(dataDir !== undefined ? { dataDir } : {}) }
    }
    case "search": {
      if (positional.length !== 1) throw usageError("search takes QUERY (quote a query of several words)")
      const server = value(options.server)
      const text = value(options.limit)
      if (text !== undefined && !/^\d+$/.test(text)) {
        throw usageError(`--limit: expected a whole number from 1 to 50, got ${JSON.stringify(text)}`)
      }
      return {
        _tag: "search",
        configPath,
        dataDir,
        json,
        query: positional[0]!,
        ...(server !== undefined ? { server } : {}),
        ...(text !== undefined ? { limit: Number(text) } : {})
      }
    }
    case "watch":
      if (positional.length !== 2) throw usageError("watch takes SERVER and URI")
      return { _tag: "watch", configPath, dataDir, json, server: positional[0]!, uri: positional[1]! }
    default:
      break
  }
  const profile = parseProfile(value(options.profile))
  const base = { configPath, dataDir, json, profile }
  /** Refuses what only the extended profile has under an explicit `--profile codex`. */
  const extendedOnly = (what: ReadonlyArray<string>): boolean => {
    if (what.length === 0) return false
    if (profile === "codex") {
      throw usageError(`${what[0]} is only in the extended profile; it cannot be used with --profile codex`)
    }
    return true
  }
  switch (spec.name) {
    case "tools":
      none()
      return { _tag: "tools", ...base, extendedOnly: false }
    case "list":
    case "templates": {
      none()
      const server = value(options.server)
      const cursor = value(options.cursor)
      return {
        _tag: spec.name,
        ...base,
        extendedOnly: false,
        ...(server !== undefined ? { server } : {}),
        ...(cursor !== undefined ? { cursor } : {})
      }
    }
    case "read": {
      const uriTemplate = value(options.template)
      const offset = byteCount(options.offset.name, value(options.offset))
      const length = byteCount(options.length.name, value(options.length))
      const args = CommandLine.all(parsed, options.arg.name)
      const window = { ...(offset !== undefined ? { offset } : {}), ...(length !== undefined ? { length } : {}) }
      const used = [
        ...(uriTemplate !== undefined ? ["read --template"] : []),
        ...(offset !== undefined ? ["read --offset"] : []),
        ...(length !== undefined ? ["read --length"] : [])
      ]
      if (uriTemplate === undefined) {
        if (args.length > 0) throw usageError("read --arg needs --template")
        if (positional.length !== 2) throw usageError("read takes SERVER and URI")
        return {
          _tag: "read",
          ...base,
          extendedOnly: extendedOnly(used),
          server: positional[0]!,
          target: { _tag: "uri", uri: positional[1]! },
          ...window
        }
      }
      if (positional.length !== 1) throw usageError("read --template takes SERVER (and no URI)")
      return {
        _tag: "read",
        ...base,
        extendedOnly: extendedOnly(used),
        server: positional[0]!,
        target: { _tag: "template", uriTemplate, values: stringValues(args) },
        ...window
      }
    }
    case "complete": {
      if (positional.length !== 1) throw usageError("complete takes SERVER")
      const uriTemplate = value(options.template)
      const variable = value(options.variable)
      const prefix = value(options.value)
      if (uriTemplate === undefined) throw usageError("complete requires --template URI_TEMPLATE")
      if (variable === undefined) throw usageError("complete requires --var NAME")
      if (prefix === undefined) throw usageError("complete requires --value PREFIX (--value= for none)")
      return {
        _tag: "complete",
        ...base,
        extendedOnly: extendedOnly(["complete"]),
        server: positional[0]!,
        uriTemplate,
        variable,
        value: prefix,
        context: stringValues(CommandLine.all(parsed, options.arg.name))
      }
    }
    case "call": {
      if (positional.length !== 2) throw usageError("call takes SERVER and TOOL")
      const imageDir = value(options.imageDir)
      return {
        _tag: "call",
        ...base,
        extendedOnly: false,
        server: positional[0]!,
        tool: positional[1]!,
        arguments: toolArguments(value(options.argsJson), CommandLine.all(parsed, options.arg.name)),
        ...(imageDir !== undefined ? { imageDir } : {})
      }
    }
    default:
      throw usageError(`unknown command: ${spec.name}`)
  }
}
