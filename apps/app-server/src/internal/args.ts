/** Command-line options of the app-server (app-server-protocol.md section 1). */
import * as NodeFs from "node:fs"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"
import { Redacted } from "effect"
import * as CommandLine from "../CommandLine.js"

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
  /**
   * `--ws-max-pending`: connections that have not completed an authenticated WebSocket upgrade (still
   * in their TCP or TLS handshake, sending the upgrade request, or refused) beyond it are closed on arrival.
   */
  readonly maxPending: number
  /** `--ws-max-pending-per-address`: the same, counted per peer address. */
  readonly maxPendingPerAddress: number
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
  maxPending: 32,
  maxPendingPerAddress: 8,
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
  /** `--cluster`: serve as one instance of several on one PostgreSQL store, as `[cluster] enabled = true` does. */
  readonly cluster?: boolean
}

/** A command line the server refuses to start with. */
export const UsageError = CommandLine.UsageError
/** A command line the server refuses to start with. */
export type UsageError = CommandLine.UsageError

/**
 * Every flag of the app-server, as data: {@link parseArgs} reads them, `--help` prints them, and the
 * reference generator renders the flag table of `docs/cli.md` from them. A new flag is an entry here
 * and its reading in {@link parseArgs}.
 */
export const flags: ReadonlyArray<CommandLine.Option> = [
  {
    name: "--config",
    value: "PATH",
    description:
      "The config file, `.toml` or `.json` (docs/config.md). Default: `./mcp-resources.toml` when it exists, else the empty config (no MCP servers)."
  },
  {
    name: "--data-dir",
    value: "DIR",
    description:
      "Where persistent state lives (`DIR/state.sqlite`, docs/persistence.md); created when missing. Default: `$MCP_RESOURCES_HOME`, else `~/.mcp-resources`."
  },
  {
    name: "--listen",
    value: "ws://HOST:PORT",
    description:
      "Also serve JSON-RPC over WebSocket, one message per text frame. `wss://HOST:PORT` serves it over TLS (needs `--tls-cert` and `--tls-key`)."
  },
  { name: "--no-stdio", description: "Do not use standard input and output at all (needs `--listen`)." },
  {
    name: "--allow-remote",
    description: "Allow a `HOST` that is not a loopback address (needs `--token-env`)."
  },
  {
    name: "--allow-insecure-remote",
    description:
      "Allow a non-loopback `ws://` (plain text: the token crosses the network in clear). Without it a remote bind must be `wss://`."
  },
  {
    name: "--token-env",
    value: "VAR",
    description:
      "Every WebSocket connection must present the value of the environment variable `VAR` (`Authorization: Bearer <token>` or the subprotocol `bearer.<token>`), which must be set and non-empty."
  },
  {
    name: "--allow-origin",
    value: "ORIGIN",
    repeatable: true,
    description: "A WebSocket upgrade whose `Origin` header is present and not listed is refused (HTTP 403)."
  },
  {
    name: "--tls-cert",
    value: "PEM",
    description: "The certificate (chain) of a `wss://` listener; with `--tls-key`, and only with `wss://`."
  },
  {
    name: "--tls-key",
    value: "PEM",
    description: "The private key of a `wss://` listener; with `--tls-cert`, and only with `wss://`."
  },
  {
    name: "--ws-handshake-timeout",
    value: "SEC",
    description:
      "A connection that has not sent its WebSocket upgrade by then is closed (default 10; with TLS the TLS handshake gets as long again)."
  },
  {
    name: "--ws-max-connections",
    value: "N",
    description:
      "TCP connections to the listener at once, handshaking or open (default 128); one over the cap is closed on arrival."
  },
  {
    name: "--ws-max-pending",
    value: "N",
    description:
      "Connections not yet in (no authenticated upgrade yet: handshaking, sending the upgrade, or refused) at once (default 32); one over is closed on arrival."
  },
  {
    name: "--ws-max-pending-per-address",
    value: "N",
    description: "The same, from one peer address (default 8): a peer without the token holds at most this many places."
  },
  {
    name: "--ws-ping-interval",
    value: "SEC",
    description:
      "The server pings every WebSocket this often and closes one that sent nothing (no pong, no frame) since the last ping (default 30; 0 never pings)."
  },
  {
    name: "--ws-idle-timeout",
    value: "SEC",
    description:
      "A WebSocket with no message either way for between SEC and twice SEC is closed with 1000 `idle timeout` (default 0: never)."
  },
  {
    name: "--max-send-buffer",
    value: "BYTES",
    description:
      "Unsent output one connection (stdio or WebSocket) may hold before it is closed (default 67108864, 64 MiB)."
  },
  {
    name: "--thread-idle-timeout",
    value: "SEC",
    description: "Seconds a persistent thread no connection holds stays loaded (default 300; fractions allowed)."
  },
  {
    name: "--cluster",
    description:
      "Serve as one of several app-servers on one PostgreSQL store, as `[cluster] enabled = true` does (docs/deploying.md)."
  },
  { name: "--help", alias: "-h", description: "Print this usage on standard output and exit 0." }
]

/** The usage text printed with a {@link UsageError} and by `--help`: the synopsis, then every flag. */
export const usage = `usage: mcp-resources-app-server ${flags
  .filter((flag) => flag.name !== "--help")
  .map((flag) => `[${CommandLine.synopsis(flag)}]`)
  .join(" ")}

${CommandLine.helpList(flags)}

Seconds may have decimals (0.5). --flag=value is accepted as well as --flag value.`

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
  const parsed = CommandLine.parse(flags, argv, { positional: false })
  const value = (flag: string): string | undefined => CommandLine.last(parsed, flag)
  const path = (flag: string): string | undefined => {
    const text = value(flag)
    return text === undefined ? undefined : NodePath.resolve(cwd, text)
  }
  const limitOf = (flag: string, read: (flag: string, text: string) => number, fallback: number): number => {
    const text = value(flag)
    return text === undefined ? fallback : read(flag, text)
  }
  let configPath = path("--config")
  const dataDir = path("--data-dir")
  const listenText = value("--listen")
  const listen = listenText === undefined ? undefined : parseListen(listenText)
  const stdio = !parsed.switches.has("--no-stdio")
  const allowRemote = parsed.switches.has("--allow-remote")
  const allowInsecureRemote = parsed.switches.has("--allow-insecure-remote")
  const tokenEnv = value("--token-env")
  const tlsCert = path("--tls-cert")
  const tlsKey = path("--tls-key")
  const allowOrigins = [...CommandLine.all(parsed, "--allow-origin")]
  const limits: TransportLimits = {
    handshakeTimeoutMs: limitOf(
      "--ws-handshake-timeout",
      (flag, text) => {
        const ms = parseSeconds(flag, text)
        if (ms === 0) throw new UsageError(`${flag}: must be more than 0 seconds`)
        return ms
      },
      defaultLimits.handshakeTimeoutMs
    ),
    maxConnections: limitOf("--ws-max-connections", parseCount, defaultLimits.maxConnections),
    maxPending: limitOf("--ws-max-pending", parseCount, defaultLimits.maxPending),
    maxPendingPerAddress: limitOf("--ws-max-pending-per-address", parseCount, defaultLimits.maxPendingPerAddress),
    pingIntervalMs: limitOf("--ws-ping-interval", parseSeconds, defaultLimits.pingIntervalMs),
    idleTimeoutMs: limitOf("--ws-idle-timeout", parseSeconds, defaultLimits.idleTimeoutMs),
    maxSendBufferBytes: limitOf("--max-send-buffer", parseCount, defaultLimits.maxSendBufferBytes)
  }
  const idleText = value("--thread-idle-timeout")
  let threadIdleTimeoutMs: number | undefined
  if (idleText !== undefined) {
    const secs = Number(idleText)
    if (idleText.trim() === "" || !Number.isFinite(secs) || secs < 0 || secs > 2_000_000)
      throw new UsageError(
        `--thread-idle-timeout: expected a number of seconds from 0 to 2000000, got ${JSON.stringify(idleText)}`
      )
    threadIdleTimeoutMs = Math.round(secs * 1000)
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
    ...(threadIdleTimeoutMs !== undefined ? { threadIdleTimeoutMs } : {}),
    ...(parsed.switches.has("--cluster") ? { cluster: true } : {})
  }
}
