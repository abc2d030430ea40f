import { assert, describe, it } from "@effect/vitest"
import { parseArgs } from "../src/internal/args.js"

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
    assert.deepStrictEqual(options, {
      configPath: "/nowhere/c.toml",
      dataDir: "/nowhere/d",
      listen: { host: "0.0.0.0", port: 8080 },
      stdio: false,
      allowRemote: true,
      tokenEnv: "TOK",
      allowOrigins: ["http://a", "http://b"]
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
    assert.deepStrictEqual(parseArgs(["--listen", "ws://localhost:9"], {}, cwd).listen, { host: "localhost", port: 9 })
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
