import { assert, describe, it } from "@effect/vitest"
import { Redacted } from "effect"
import { defaultLimits, parseArgs } from "../src/internal/args.js"

const cwd = "/nowhere"

describe("command line", () => {
  it("parses every flag and resolves paths against the working directory", () => {
    const options = parseArgs(
      [
        "--config",
        "c.toml",
        "--data-dir=d",
        "--listen",
        "ws://0.0.0.0:8080",
        "--no-stdio",
        "--allow-remote",
        "--allow-insecure-remote",
        "--token-env",
        "TOK",
        "--allow-origin",
        "http://a",
        "--allow-origin",
        "http://b"
      ],
      { TOK: "x" },
      cwd
    )
    const { token, ...rest } = options
    assert.strictEqual(Redacted.value(token!), "x")
    assert.deepStrictEqual(rest, {
      configPath: "/nowhere/c.toml",
      dataDir: "/nowhere/d",
      listen: { host: "0.0.0.0", port: 8080, secure: false },
      stdio: false,
      allowRemote: true,
      allowInsecureRemote: true,
      tokenEnv: "TOK",
      allowOrigins: ["http://a", "http://b"],
      tls: undefined,
      limits: defaultLimits
    })
  })

  it("defaults the data dir to $MCP_RESOURCES_HOME and the config to none when ./mcp-resources.toml is missing", () => {
    const options = parseArgs([], { MCP_RESOURCES_HOME: "/home/x/state" }, cwd)
    assert.strictEqual(options.dataDir, "/home/x/state")
    assert.strictEqual(options.configPath, undefined)
    assert.isTrue(options.stdio)
  })

  it("refuses a non-loopback listen without --allow-remote, --allow-remote without --token-env, and an unset token", () => {
    assert.throws(() => parseArgs(["--listen", "ws://10.0.0.1:1"], {}, cwd), /--allow-remote/)
    assert.throws(() => parseArgs(["--listen", "ws://10.0.0.1:1", "--allow-remote"], {}, cwd), /--token-env/)
    assert.throws(() => parseArgs(["--listen", "ws://[::1]:1", "--token-env", "NOPE"], {}, cwd), /NOPE is not set/)
    assert.throws(() => parseArgs(["--no-stdio"], {}, cwd), /--listen/)
    assert.throws(() => parseArgs(["--listen", "http://127.0.0.1:1"], {}, cwd), /ws:\/\/HOST:PORT/)
    assert.throws(() => parseArgs(["--bogus"], {}, cwd), /unknown argument/)
    assert.deepStrictEqual(parseArgs(["--listen", "ws://localhost:9"], {}, cwd).listen, {
      host: "localhost",
      port: 9,
      secure: false
    })
  })

  it("parses wss:// with its certificate and key, and refuses a remote ws:// without --allow-insecure-remote", () => {
    const options = parseArgs(
      [
        "--listen",
        "wss://10.0.0.1:443",
        "--allow-remote",
        "--token-env",
        "TOK",
        "--tls-cert",
        "c.pem",
        "--tls-key=k.pem"
      ],
      { TOK: "x" },
      cwd
    )
    assert.deepStrictEqual(options.listen, { host: "10.0.0.1", port: 443, secure: true })
    assert.deepStrictEqual(options.tls, { certPath: "/nowhere/c.pem", keyPath: "/nowhere/k.pem" })
    assert.isFalse(options.allowInsecureRemote)
    const remote = ["--listen", "ws://10.0.0.1:1", "--allow-remote", "--token-env", "TOK"]
    assert.throws(() => parseArgs(remote, { TOK: "x" }, cwd), /token in clear.*--allow-insecure-remote/)
    assert.isTrue(parseArgs([...remote, "--allow-insecure-remote"], { TOK: "x" }, cwd).allowInsecureRemote)
    assert.throws(() => parseArgs(["--listen", "wss://127.0.0.1:1"], {}, cwd), /requires --tls-cert and --tls-key/)
    assert.throws(() => parseArgs(["--listen", "wss://127.0.0.1:1", "--tls-cert", "c"], {}, cwd), /go together/)
    assert.throws(
      () => parseArgs(["--listen", "ws://127.0.0.1:1", "--tls-cert", "c", "--tls-key", "k"], {}, cwd),
      /require --listen wss:/
    )
  })

  it("parses the transport limits, seconds with decimals, and refuses bad values naming the flag", () => {
    const options = parseArgs(
      [
        ...["--ws-handshake-timeout", "0.5", "--ws-max-connections", "8", "--ws-ping-interval", "0"],
        ...["--ws-idle-timeout", "120", "--max-send-buffer", "1048576"],
        ...["--ws-max-pending", "16", "--ws-max-pending-per-address=4"]
      ],
      {},
      cwd
    )
    assert.deepStrictEqual(options.limits, {
      handshakeTimeoutMs: 500,
      maxConnections: 8,
      maxPending: 16,
      maxPendingPerAddress: 4,
      pingIntervalMs: 0,
      idleTimeoutMs: 120_000,
      maxSendBufferBytes: 1_048_576
    })
    assert.deepStrictEqual(parseArgs([], {}, cwd).limits, defaultLimits)
    assert.isAtMost(defaultLimits.handshakeTimeoutMs, 10_000)
    assert.throws(() => parseArgs(["--ws-handshake-timeout", "0"], {}, cwd), /--ws-handshake-timeout: must be more/)
    assert.throws(() => parseArgs(["--ws-ping-interval", "-1"], {}, cwd), /--ws-ping-interval: expected seconds/)
    assert.throws(() => parseArgs(["--ws-max-connections", "0"], {}, cwd), /--ws-max-connections: expected a whole/)
    assert.throws(() => parseArgs(["--ws-max-pending", "0"], {}, cwd), /--ws-max-pending: expected a whole/)
    assert.throws(
      () => parseArgs(["--ws-max-pending-per-address", "x"], {}, cwd),
      /--ws-max-pending-per-address: expected a whole/
    )
    assert.deepStrictEqual([defaultLimits.maxPending, defaultLimits.maxPendingPerAddress], [32, 8])
    assert.throws(() => parseArgs(["--max-send-buffer", "1e6"], {}, cwd), /--max-send-buffer: expected a whole/)
  })

  it("--thread-idle-timeout takes seconds (fractions allowed) and refuses anything else, naming the flag", () => {
    assert.strictEqual(parseArgs(["--thread-idle-timeout", "0.25"], {}, cwd).threadIdleTimeoutMs, 250)
    assert.strictEqual(parseArgs(["--thread-idle-timeout=600"], {}, cwd).threadIdleTimeoutMs, 600_000)
    assert.isFalse("threadIdleTimeoutMs" in parseArgs([], {}, cwd))
    for (const bad of ["", "-1", "abc", "Infinity", "3000000"]) {
      assert.throws(
        () => parseArgs(["--thread-idle-timeout", bad], {}, cwd),
        `--thread-idle-timeout: expected a number of seconds from 0 to 2000000, got ${JSON.stringify(bad)}`
      )
    }
  })
})
