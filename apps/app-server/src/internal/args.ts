/** Command-line options of the app-server (app-server-protocol.md section 1). */
import * as NodeFs from "node:fs"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"
import { Redacted } from "effect"

/** Where to listen for WebSocket connections: `ws://` (plain) or `wss://` (TLS). */
export interface ListenAddress {
  readonly host: string
  readonly port: number
  /** True for `wss://` (needs `--tls-cert` and `--tls-key`). */
  readonly secure: boolean
}

/** The certificate and private key (PEM files) of a `wss://` listener. */
export interface TlsFiles {
  readonly certPath: string
  readonly keyPath: string
}

/** Per-connection limits of the transports; a refusal or close under any of them is logged. */
export interface TransportLimits {
  /** `--ws-handshake-timeout`: a connection that has not sent its WebSocket upgrade by then is closed. */
  readonly handshakeTimeoutMs: number
  /** `--ws-max-connections`: TCP connections to the listener (handshaking or open) beyond it are dropped. */
  readonly maxConnections: number
  /** `--ws-ping-interval`: the server pings each WebSocket this often and closes one that sent nothing since the last ping; 0 never pings. */
  readonly pingIntervalMs: number
  /** `--ws-idle-timeout`: a WebSocket with no message either way for this long is closed; 0 never. */
  readonly idleTimeoutMs: number
  /** `--max-send-buffer`: unsent bytes of one connection (stdio or WebSocket) above which it is closed. */
  readonly maxSendBufferBytes: number
}

/** The defaults of {@link TransportLimits}. */
export const defaultLimits: TransportLimits = {
  handshakeTimeoutMs: 10_000,
  maxConnections: 128,
  pingIntervalMs: 30_000,
  idleTimeoutMs: 0,
  maxSendBufferBytes: 64 * 1024 * 1024
}

/** The parsed and validated command line. */
export interface ServerOptions {
  /** The config file; `undefined` means the empty config. */
  readonly configPath: string | undefined
  readonly dataDir: string
  readonly listen: ListenAddress | undefined
  readonly stdio: boolean
  readonly allowRemote: boolean
  /** `--allow-insecure-remote`: a non-loopback `ws://` (the token in clear on the network) is allowed. */
  readonly allowInsecureRemote: boolean
  readonly tokenEnv: string | undefined
  /** The token read from `--token-env`'s variable (the program then removes the variable from its environment). */
  readonly token: Redacted.Redacted<string> | undefined
  readonly allowOrigins: ReadonlyArray<string>
  /** `--tls-cert` and `--tls-key`, given together and only with `wss://`. */
  readonly tls: TlsFiles | undefined
  readonly limits: TransportLimits
  /** `--thread-idle-timeout SECONDS`: how long a persistent thread no connection holds stays loaded (absent: the default, 300 s). */
  readonly threadIdleTimeoutMs?: number
}

/** A command line the server refuses to start with. */
export class UsageError extends Error {
  override readonly name = "UsageError"
}

/** The usage text printed with a {@link UsageError}. */
export const usage =
  "usage: mcp-resources-app-server [--config PATH] [--data-dir DIR] [--listen ws://HOST:PORT|wss://HOST:PORT] " +
  "[--no-stdio] [--allow-remote] [--allow-insecure-remote] [--token-env VAR] [--allow-origin ORIGIN]... " +
  "[--tls-cert PEM --tls-key PEM] [--ws-handshake-timeout SEC] [--ws-max-connections N] " +
  "[--ws-ping-interval SEC] [--ws-idle-timeout SEC] [--max-send-buffer BYTES] " +
  "[--thread-idle-timeout SECONDS]"

/** True for `localhost`, `127.0.0.0/8` and `::1`. */
export const isLoopback = (host: string): boolean => {
  const h = host.replace(/^\[|\]$/g, "").toLowerCase()
  return h === "localhost" || h === "::1" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h)
}

/** Parses `ws://HOST:PORT` or `wss://HOST:PORT`. */
export const parseListen = (text: string): ListenAddress => {
  const refuse = () =>
    new UsageError(`--listen: expected ws://HOST:PORT or wss://HOST:PORT, got ${JSON.stringify(text)}`)
  let url: URL
  try {
    url = new URL(text)
  } catch {
    throw refuse()
  }
  // `URL` drops a port equal to the scheme's default (80, 443): it is read from the text then.
  const port = url.port !== "" ? url.port : (/:(\d+)\/?$/.exec(text)?.[1] ?? "")
  if (
    (url.protocol !== "ws:" && url.protocol !== "wss:") ||
    url.hostname === "" ||
    port === "" ||
    url.pathname.length > 1
  ) {
    throw refuse()
  }
  return { host: url.hostname.replace(/^\[|\]$/g, ""), port: Number(port), secure: url.protocol === "wss:" }
}

/** A number of seconds `>= 0` (decimals allowed), in milliseconds. */
const parseSeconds = (flag: string, text: string): number => {
  const n = /^\d+(\.\d+)?$/.test(text) ? Number(text) : Number.NaN
  if (!Number.isFinite(n) || n > 86_400)
    throw new UsageError(`${flag}: expected seconds (0 to 86400), got ${JSON.stringify(text)}`)
  return Math.round(n * 1000)
}

/** A whole number `>= 1`. */
const parseCount = (flag: string, text: string): number => {
  const n = /^\d+$/.test(text) ? Number(text) : Number.NaN
  if (!Number.isSafeInteger(n) || n < 1)
    throw new UsageError(`${flag}: expected a whole number >= 1, got ${JSON.stringify(text)}`)
  return n
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
  let allowInsecureRemote = false
  let tokenEnv: string | undefined
  let tlsCert: string | undefined
  let tlsKey: string | undefined
  const allowOrigins: Array<string> = []
  const limits: { -readonly [K in keyof TransportLimits]: TransportLimits[K] } = { ...defaultLimits }
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
      case "--allow-insecure-remote":
        allowInsecureRemote = true
        break
      case "--tls-cert":
        tlsCert = NodePath.resolve(cwd, value())
        break
      case "--tls-key":
        tlsKey = NodePath.resolve(cwd, value())
        break
      case "--ws-handshake-timeout": {
        const ms = parseSeconds(flag, value())
        if (ms === 0) throw new UsageError(`${flag}: must be more than 0 seconds`)
        limits.handshakeTimeoutMs = ms
        break
      }
      case "--ws-max-connections":
        limits.maxConnections = parseCount(flag, value())
        break
      case "--ws-ping-interval":
        limits.pingIntervalMs = parseSeconds(flag, value())
        break
      case "--ws-idle-timeout":
        limits.idleTimeoutMs = parseSeconds(flag, value())
        break
      case "--max-send-buffer":
        limits.maxSendBufferBytes = parseCount(flag, value())
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
  if (listen !== undefined && !isLoopback(listen.host) && !listen.secure && !allowInsecureRemote) {
    throw new UsageError(
      `--listen: ws://${listen.host} would send the token in clear over the network; serve wss:// with --tls-cert and --tls-key, or pass --allow-insecure-remote`
    )
  }
  if ((tlsCert === undefined) !== (tlsKey === undefined)) throw new UsageError("--tls-cert and --tls-key go together")
  if (listen?.secure === true && tlsCert === undefined)
    throw new UsageError("--listen wss:// requires --tls-cert and --tls-key")
  if (tlsCert !== undefined && listen?.secure !== true)
    throw new UsageError("--tls-cert and --tls-key require --listen wss://HOST:PORT")
  let token: Redacted.Redacted<string> | undefined
  if (tokenEnv !== undefined) {
    const value = env[tokenEnv]
    if (value === undefined || value === "")
      throw new UsageError(`--token-env: environment variable ${tokenEnv} is not set`)
    token = Redacted.make(value)
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
    allowInsecureRemote,
    tokenEnv,
    token,
    allowOrigins,
    tls: tlsCert !== undefined && tlsKey !== undefined ? { certPath: tlsCert, keyPath: tlsKey } : undefined,
    limits,
    ...(threadIdleTimeoutMs !== undefined ? { threadIdleTimeoutMs } : {})
  }
}
