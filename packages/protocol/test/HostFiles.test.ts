// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the `${VAR}` references of other hosts' files are the subject here
/**
 * Other hosts' config files, read from copies of real ones (test/fixtures/hosts): Claude Desktop's
 * `claude_desktop_config.json`, VS Code's `.vscode/mcp.json`, Claude Code's `.mcp.json` and Cursor's
 * `mcp.json`.
 */
import { readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { assert, describe, it } from "@effect/vitest"
import { Either } from "effect"
import * as Config from "../src/Config.js"

const hostFile = (name: string) => fileURLToPath(new URL(`./fixtures/hosts/${name}`, import.meta.url))

const read = (name: string, env: Config.Options["env"] = {}): Config.Read => {
  const result = Config.parseRead(readFileSync(hostFile(name), "utf8"), name, { env })
  if (Either.isLeft(result)) throw new Error(result.left.message)
  return result.right
}

const refusal = (text: string, file: string, env: Config.Options["env"] = {}): string => {
  const result = Config.parse(text, file, { env })
  if (Either.isRight(result)) throw new Error(`expected ${file} to be refused`)
  return result.left.message
}

/** The transport of the first server of a config that parsed (the test fails when it did not). */
const firstTransport = (parsed: Either.Either<Config.Config, Config.ConfigError>) => {
  if (Either.isLeft(parsed)) throw new Error(parsed.left.message)
  return parsed.right.mcpServers[0]!.transport
}

const server = (config: Config.Config, name: string) => {
  const found = config.mcpServers.find((s) => s.name === name)
  if (found === undefined) throw new Error(`no server ${name}`)
  return found
}

describe("other hosts' files", () => {
  it("Claude Desktop: the mcpServers are read, preferences and globalShortcut are named as unread", () => {
    const { config, unreadKeys } = read("claude_desktop_config.json")
    assert.deepStrictEqual(unreadKeys, ["globalShortcut", "preferences"])
    assert.deepStrictEqual(
      config.mcpServers.map((s) => s.name),
      ["filesystem", "github", "sqlite"]
    )
    assert.deepStrictEqual(server(config, "filesystem").transport, {
      _tag: "stdio",
      command: "npx",
      args: ["-y", "@modelcontextprotocol/server-filesystem", "/Users/alex/Desktop", "/Users/alex/Downloads"],
      env: {}
    })
    // everything but the servers keeps its default
    assert.deepStrictEqual({ ...config, mcpServers: [] }, { ...Config.empty, mcpServers: [] })
  })

  it("VS Code: the servers form with type stdio, http and sse, headers expanded from ${env:VAR}, oauth.clientId", () => {
    const { config, unreadKeys } = read("vscode-mcp-env.json", { GITHUB_TOKEN: "gho_token" })
    assert.deepStrictEqual(unreadKeys, ["inputs"])
    assert.deepStrictEqual(
      config.mcpServers.map((s) => [s.name, s.transport._tag]),
      [
        ["github", "http"],
        ["legacy-search", "http"],
        ["memory", "stdio"],
        ["slack", "http"]
      ]
    )
    assert.deepStrictEqual(server(config, "github").transport, {
      _tag: "http",
      url: "https://api.githubcopilot.com/mcp/",
      httpHeaders: { Authorization: "Bearer gho_token" }
    })
    assert.deepStrictEqual(server(config, "legacy-search").transport, {
      _tag: "http",
      url: "http://localhost:8931/sse",
      sse: true,
      httpHeaders: {}
    })
    assert.deepStrictEqual(server(config, "slack").transport, {
      _tag: "http",
      url: "https://mcp.slack.com/mcp",
      httpHeaders: {},
      oauthClientId: "example-client-id"
    })
  })

  it("VS Code: an ${input:…} prompt is refused with its name and key, the value never quoted", () => {
    const text = readFileSync(hostFile("vscode-mcp.json"), "utf8")
    assert.strictEqual(
      refusal(text, ".vscode/mcp.json"),
      ".vscode/mcp.json: servers.perplexity.env.PERPLEXITY_API_KEY: `${input:perplexity-key}` is a VS Code input prompt, which mcp-resources cannot show; put the value in an environment variable and write `${env:NAME}`"
    )
  })

  it("Claude Code: ${VAR} and ${VAR:-default} in args, env, url and headers; type sse with oauth", () => {
    const { config, unreadKeys } = read("claude-code.mcp.json", {
      DATABASE_URL: "postgresql://localhost/mydb",
      API_KEY: "k-123",
      API_TOKEN: "t-456",
      DEBUG: ""
    })
    assert.deepStrictEqual(unreadKeys, [])
    assert.deepStrictEqual(server(config, "postgres").transport, {
      _tag: "stdio",
      command: "npx",
      args: ["-y", "@modelcontextprotocol/server-postgres", "postgresql://localhost/mydb"],
      env: {}
    })
    // an empty DEBUG takes the default, as `:-` does in a shell
    assert.deepStrictEqual(server(config, "my-tool").transport, {
      _tag: "stdio",
      command: "node",
      args: ["./my-mcp-server.js"],
      env: { DEBUG: "false", API_BASE: "https://api.example.com" }
    })
    assert.deepStrictEqual(server(config, "http-service").transport, {
      _tag: "http",
      url: "https://api.example.com/mcp",
      httpHeaders: { "X-API-Key": "k-123" }
    })
    assert.deepStrictEqual(server(config, "remote-api").transport, {
      _tag: "http",
      url: "https://api.example.com/mcp/sse",
      sse: true,
      httpHeaders: { Authorization: "Bearer t-456" },
      oauthClientId: "my-client-id",
      oauthRedirectPort: 8765
    })
    const set = read("claude-code.mcp.json", {
      DATABASE_URL: "x",
      API_KEY: "x",
      API_TOKEN: "x",
      API_BASE_URL: "http://127.0.0.1:9000"
    }).config
    assert.strictEqual((server(set, "http-service").transport as Config.HttpTransport).url, "http://127.0.0.1:9000/mcp")
  })

  it("Claude Code: an unset ${VAR} without a default is refused with the variable and the key named", () => {
    const text = readFileSync(hostFile("claude-code.mcp.json"), "utf8")
    assert.strictEqual(
      refusal(text, ".mcp.json", { API_KEY: "x", API_TOKEN: "x" }),
      ".mcp.json: mcpServers.postgres.args[2]: environment variable DATABASE_URL is not set (write ${DATABASE_URL:-default} to give a default)"
    )
    assert.strictEqual(
      refusal(text, ".mcp.json", { DATABASE_URL: "x", API_TOKEN: "s3cret" }),
      ".mcp.json: mcpServers.http-service.headers.X-API-Key: environment variable API_KEY is not set (write ${API_KEY:-default} to give a default)"
    )
  })

  it("Cursor: url entries with ${env:VAR} headers", () => {
    const { config } = read("cursor-mcp.json", { CONTEXT7_API_KEY: "c7", USERJOT_API_TOKEN: "uj" })
    assert.deepStrictEqual(server(config, "context7").transport, {
      _tag: "http",
      url: "https://mcp.context7.com/mcp",
      httpHeaders: { CONTEXT7_API_KEY: "c7" }
    })
    assert.deepStrictEqual(server(config, "userjot").transport, {
      _tag: "http",
      url: "https://api.userjot.com/v1/mcp",
      httpHeaders: { Authorization: "Bearer uj" }
    })
  })

  it("other ${…} forms are refused by name; a bare $VAR stays as written", () => {
    assert.strictEqual(
      refusal('{"servers":{"s":{"command":"node","args":["${workspaceFolder:x}"]}}}', "mcp.json"),
      "mcp.json: servers.s.args[0]: unsupported variable `${workspaceFolder:x}`: only `${VAR}`, `${VAR:-default}` and `${env:VAR}` are expanded"
    )
    const config = Config.parse('{"mcpServers":{"s":{"command":"node","args":["$HOME","${A}${B:-b}"]}}}', "m.json", {
      env: { A: "a", HOME: "/home/x" }
    })
    assert.deepStrictEqual(firstTransport(config), { _tag: "stdio", command: "node", args: ["$HOME", "ab"], env: {} })
  })

  it("the TOML form and the JSON mcp_servers form are never expanded", () => {
    const env = { TOKEN: "secret" }
    const toml = Config.parse('[mcp_servers.s]\ncommand = "node"\nargs = ["${TOKEN}"]', "c.toml", { env })
    const json = Config.parse('{"mcp_servers":{"s":{"command":"node","args":["${TOKEN}"]}}}', "c.json", { env })
    for (const parsed of [toml, json]) {
      assert.deepStrictEqual(firstTransport(parsed), { _tag: "stdio", command: "node", args: ["${TOKEN}"], env: {} })
    }
  })

  it("the parse reads only the environment it is given, never this process's", () => {
    const name = "MCP_RESOURCES_CONFIG_TEST_TOKEN"
    const text = `{"mcpServers":{"s":{"command":"node","args":["\${${name}}"]}}}`
    process.env[name] = "from-the-process"
    try {
      const none = Config.parse(text, "m.json")
      assert.strictEqual(
        Either.isLeft(none) ? none.left.message : "parsed",
        `m.json: mcpServers.s.args[0]: environment variable ${name} is not set (write \${${name}:-default} to give a default)`
      )
      const given = Config.parse(text, "m.json", { env: { [name]: "given" } })
      assert.deepStrictEqual(firstTransport(given), { _tag: "stdio", command: "node", args: ["given"], env: {} })
    } finally {
      delete process.env[name]
    }
  })

  it('the TOML form selects legacy SSE with type = "sse"', () => {
    const parsed = Config.parse('[mcp_servers.s]\ntype = "sse"\nurl = "http://127.0.0.1:1/sse"', "c.toml")
    assert.deepStrictEqual(firstTransport(parsed), {
      _tag: "http",
      url: "http://127.0.0.1:1/sse",
      sse: true,
      httpHeaders: {}
    })
  })
})
