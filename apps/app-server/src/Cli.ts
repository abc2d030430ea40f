#!/usr/bin/env node
/**
 * The `mcp-resources` CLI: `serve` runs the app-server; `tools`, `list`, `templates`, `read`, `complete`
 * and `call` run one model tool against the configured servers and print what a model would see
 * (readable by default, `--json` for the exact tool output); `watch` prints a resource's changes. The
 * commands and options are data in `CliCommands`. Exit codes: 0 success, 1 a failed tool call or
 * startup, 2 a usage or config error, 3 a partial failure (a configured server failed).
 */
import { Messages } from "@mcp-resources/protocol"
import { OAuth } from "@mcp-resources/resource-client"
import { ThreadStore } from "@mcp-resources/thread-store"
import * as NodeChild from "node:child_process"
import { Console, Effect } from "effect"
import * as CliCommands from "./CliCommands.js"
import * as ConfigFile from "./ConfigFile.js"
import * as CommandLine from "./CommandLine.js"
import * as Audit from "./cli/audit.js"
import { dataDirOf, loadConfig, tokenStoreLayer } from "./cli/setup.js"
import * as Search from "./cli/search.js"
import * as ToolCommands from "./cli/tools.js"
import * as Warnings from "./cli/warnings.js"
import * as Watch from "./cli/watch.js"
import { loggerLayerWithout } from "./Logging.js"
import * as HostSecrets from "./HostSecrets.js"

/** The CLI usage text. */
export const usage = CliCommands.usage

/** A command line the CLI refuses. */
export const CliUsageError = CommandLine.UsageError

/** A parsed CLI command. */
export type Command = CliCommands.Command

/** Parses the CLI's arguments. Throws {@link CommandLine.UsageError}. */
export const parseCommand = CliCommands.parseCommand

/** How long `login` waits for the redirect unless `--timeout` says otherwise. */
export const defaultLoginTimeoutSec = CliCommands.defaultLoginTimeoutSec

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
    const store = tokenStoreLayer(config, command.dataDir)
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
      catch: (e) => (e instanceof CommandLine.UsageError ? e : new CommandLine.UsageError(String(e)))
    })
    if (command._tag === "serve") {
      process.argv = [process.argv[0]!, "mcp-resources-app-server", ...command.args]
      yield* Effect.promise(() => import("./main.js"))
      return yield* Effect.never
    }
    if (command._tag === "widgets") {
      const config = yield* ConfigFile.load(command.configPath)
      const { run: runWidgets } = yield* Effect.promise(() => import("./cli/widgets.js"))
      return yield* Effect.tryPromise({
        try: () => runWidgets({ ...command, config }),
        catch: (e) => (e instanceof Error ? e : new Error(String(e)))
      })
    }
    if (command._tag === "audit") return yield* runAudit(command)
    if (command._tag === "login" || command._tag === "logout") return yield* runLogin(command)
    // the rest need the config (a config that cannot be used exits 2) and, but for `tools`, a server
    const located = yield* ConfigFile.locate(command.configPath, process.cwd())
    const none = command._tag === "tools" ? undefined : ConfigFile.noServers(located)
    if (none !== undefined) {
      yield* Console.error(`mcp-resources: ${none}`)
      return 2
    }
    const config = located.config
    if (command._tag === "watch") return yield* Watch.run(command, config)
    if (command._tag === "search") return yield* Search.run(command, config)
    return yield* ToolCommands.run(command as CliCommands.ToolCommand, config)
  }).pipe(
    Effect.catchAll((error) =>
      Console.error(
        error instanceof CommandLine.UsageError
          ? `mcp-resources: ${error.message}\n${usage}`
          : `mcp-resources: ${error.message}`
      ).pipe(
        Effect.as(error instanceof CommandLine.UsageError || ("_tag" in error && error._tag === "ConfigError") ? 2 : 1)
      )
    ),
    Effect.provide(loggerLayerWithout(Warnings.isRepeat))
  )

const isMain = process.argv[1] !== undefined && /(?:^|[\\/])(Cli\.js|mcp-resources(?:\.js)?)$/.test(process.argv[1])
if (isMain) {
  // the app's own secrets are withheld from every server and hook the command starts (HostSecrets.ts)
  Effect.runPromise(HostSecrets.withheld(run(process.argv.slice(2)))).then(
    (code) => {
      process.exitCode = code
    },
    (e) => {
      process.stderr.write(`mcp-resources: ${String(e)}\n`)
      process.exitCode = 1
    }
  )
}
