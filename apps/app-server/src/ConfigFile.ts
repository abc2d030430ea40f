/**
 * The config file of the app-server and the CLI: reading it (`load`) and finding it (`locate`: the
 * file named, else `mcp-resources.toml` in the working directory), with this process's environment
 * for `${VAR}`. The file's format, its schemas and its error messages are `Config` of
 * `@mcp-resources/protocol`, a pure parse of text and an environment given to it (no file IO, no
 * `process.env`).
 */
import { Config, Messages } from "@mcp-resources/protocol"
import { Effect } from "effect"
import * as NodeFs from "node:fs"
import * as NodePath from "node:path"

/**
 * Reads and parses a config file. `${VAR}` in another host's server entries reads `options.env`,
 * else this process's environment (the protocol reads none). Top-level keys of another host's file
 * that were left unread are named in one warning.
 */
export const load = (file: string, options: Config.Options = {}): Effect.Effect<Config.Config, Config.ConfigError> =>
  Effect.tryPromise({
    try: () => NodeFs.promises.readFile(file, "utf8"),
    catch: (e) =>
      new Config.ConfigError({
        file,
        path: "",
        problem: `cannot read the file: ${(e as NodeJS.ErrnoException).code ?? String(e)}`
      })
  }).pipe(
    Effect.flatMap((text) => Config.parseRead(text, file, { env: options.env ?? process.env })),
    Effect.tap((read) =>
      read.unreadKeys.length === 0 ? Effect.void : Effect.logWarning(Messages.config.unreadKeys(file, read.unreadKeys))
    ),
    Effect.map((read) => read.config)
  )

/** The config file a server was started with, read with {@link load}; the empty config when there is none. */
export const loadOrEmpty = (path: string | undefined): Effect.Effect<Config.Config, Config.ConfigError> =>
  path === undefined ? Effect.succeed(Config.empty) : load(path)

/** The file read when no config is named: `mcp-resources.toml` in the working directory. */
export const defaultFileName = "mcp-resources.toml"

/** A config and where it came from. */
export interface Located {
  readonly config: Config.Config
  /** The file read, or the default file looked for (absolute). */
  readonly file: string
  /** False when no file was named and the default file does not exist: the config is `Config.empty`. */
  readonly found: boolean
}

/**
 * The config of a command line: the file named (`--config`, read as given), else {@link defaultFileName}
 * in `cwd` when it exists, else the empty config; {@link noServers} says which when no server is configured.
 */
export const locate = (
  named: string | undefined,
  cwd: string,
  options: Config.Options = {}
): Effect.Effect<Located, Config.ConfigError> => {
  if (named !== undefined) {
    return Effect.map(load(named, options), (config) => ({ config, file: NodePath.resolve(named), found: true }))
  }
  const file = NodePath.join(cwd, defaultFileName)
  return Effect.suspend(
    (): Effect.Effect<Located, Config.ConfigError> =>
      NodeFs.existsSync(file)
        ? Effect.map(load(file, options), (config) => ({ config, file, found: true }))
        : Effect.succeed({ config: Config.empty, file, found: false })
  )
}

/** The one line that says no MCP server is configured and which file was read or looked for; undefined when one is. */
export const noServers = (located: Located): string | undefined =>
  located.config.mcpServers.length > 0 ? undefined : Messages.config.noServers(located.file, located.found)
