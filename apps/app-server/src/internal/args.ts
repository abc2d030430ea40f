/** Command-line options of the app-server (app-server-protocol.md section 1). */
import * as NodeFs from "node:fs"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"

/** Where to listen for WebSocket connections. */
export interface ListenAddress {
  readonly host: string
  readonly port: number
}

/** The parsed and validated command line. */
export interface ServerOptions {
  /** The config file; `undefined` means the empty config. */
  readonly configPath: string | undefined
  readonly dataDir: string
  readonly listen: ListenAddress | undefined
  readonly stdio: boolean
  readonly allowRemote: boolean
  readonly tokenEnv: string | undefined
  readonly allowOrigins: ReadonlyArray<string>
  /** `--thread-idle-timeout SECONDS`: how long a persistent thread no connection holds stays loaded (absent: the default, 300 s). */
  readonly threadIdleTimeoutMs?: number
}

/** A command line the server refuses to start with. */
export class UsageError extends Error {
  override readonly name = "UsageError"
}

/** The usage text printed with a {@link UsageError}. */
export const usage =
  "usage: mcp-resources-app-server [--config PATH] [--data-dir DIR] [--listen ws://HOST:PORT] [--no-stdio] " +
  "[--allow-remote] [--token-env VAR] [--allow-origin ORIGIN]... [--thread-idle-timeout SECONDS]"

/** True for `localhost`, `127.0.0.0/8` and `::1`. */
export const isLoopback = (host: string): boolean => {
  const h = host.replace(/^\[|\]$/g, "").toLowerCase()
  return h === "localhost" || h === "::1" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h)
}

/** Parses `ws://HOST:PORT`. */
export const parseListen = (text: string): ListenAddress => {
  let url: URL
  try {
    url = new URL(text)
  } catch {
    throw new UsageError(`--listen: expected ws://HOST:PORT, got ${JSON.stringify(text)}`)
  }
  if (url.protocol !== "ws:" || url.hostname === "" || url.port === "" || url.pathname.length > 1) {
    throw new UsageError(`--listen: expected ws://HOST:PORT, got ${JSON.stringify(text)}`)
  }
  return { host: url.hostname.replace(/^\[|\]$/g, ""), port: Number(url.port) }
}

/** Parses the command line; `env` and `cwd` give the defaults. Throws {@link UsageError}. */
export const parseArgs = (
  argv: ReadonlyArray<string>,
  env: Readonly<Record<string, string | undefined>>,
  cwd: string
): ServerOptions => {
  let configPath: string | undefined
  let dataDir: string | undefined
  let listen: ListenAddress | undefined
  let stdio = true
  let allowRemote = false
  let tokenEnv: string | undefined
  const allowOrigins: Array<string> = []
  let threadIdleTimeoutMs: number | undefined
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!
    const eq = arg.indexOf("=")
    const flag = arg.startsWith("--") && eq > 0 ? arg.slice(0, eq) : arg
    const inline = arg.startsWith("--") && eq > 0 ? arg.slice(eq + 1) : undefined
    const value = (): string => {
      if (inline !== undefined) return inline
      const next = argv[i + 1]
      if (next === undefined) throw new UsageError(`${flag} requires a value`)
      i++
      return next
    }
    switch (flag) {
      case "--config":
        configPath = NodePath.resolve(cwd, value())
        break
      case "--data-dir":
        dataDir = NodePath.resolve(cwd, value())
        break
      case "--listen":
        listen = parseListen(value())
        break
      case "--no-stdio":
        stdio = false
        break
      case "--allow-remote":
        allowRemote = true
        break
      case "--token-env":
        tokenEnv = value()
        break
      case "--allow-origin":
        allowOrigins.push(value())
        break
      case "--thread-idle-timeout": {
        const text = value()
        const seconds = Number(text)
        if (text.trim() === "" || !Number.isFinite(seconds) || seconds < 0 || seconds > 2_000_000)
          throw new UsageError(
            `--thread-idle-timeout: expected a number of seconds from 0 to 2000000, got ${JSON.stringify(text)}`
          )
        threadIdleTimeoutMs = Math.round(seconds * 1000)
        break
      }
      default:
        throw new UsageError(`unknown argument: ${arg}`)
    }
  }
  if (!stdio && listen === undefined) throw new UsageError("--no-stdio requires --listen")
  if (listen !== undefined && !isLoopback(listen.host) && !allowRemote) {
    throw new UsageError(`--listen: ${listen.host} is not a loopback address; pass --allow-remote to serve it`)
  }
  if (allowRemote && tokenEnv === undefined) throw new UsageError("--allow-remote requires --token-env")
  if (tokenEnv !== undefined) {
    const token = env[tokenEnv]
    if (token === undefined || token === "")
      throw new UsageError(`--token-env: environment variable ${tokenEnv} is not set`)
  }
  if (configPath === undefined) {
    const fallback = NodePath.join(cwd, "mcp-resources.toml")
    if (NodeFs.existsSync(fallback)) configPath = fallback
  }
  const home = env.MCP_RESOURCES_HOME
  return {
    configPath,
    dataDir:
      dataDir ??
      (home !== undefined && home !== ""
        ? NodePath.resolve(cwd, home)
        : NodePath.join(NodeOs.homedir(), ".mcp-resources")),
    listen,
    stdio,
    allowRemote,
    tokenEnv,
    allowOrigins,
    ...(threadIdleTimeoutMs !== undefined ? { threadIdleTimeoutMs } : {})
  }
}
