/**
 * Bad input on config files: 10,000 fast-check cases through protocol's `Config.parse(text, file)`.
 * It never throws: every case is a Right (a config whose invariants hold) or a Left `ConfigError`
 * whose message starts with the file name.
 */
import { Config } from "@mcp-resources/protocol"
import { Either } from "effect"
import fc from "fast-check"
import { stringify as toToml } from "smol-toml"
import { describe, expect, it } from "vitest"
import { Figures } from "../src/index.js"
import { anyValue, deepNesting, fieldValue } from "./utils/arbitraries.js"

const numRuns = 10_000

const serverName = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom("srv", "alpha", "codex_apps", "a-b_1") },
  { weight: 1, arbitrary: fc.constantFrom("", "bad name", "a.b", "ü", "x".repeat(300)) },
  { weight: 1, arbitrary: fc.string({ maxLength: 12 }) }
)
const seconds = fc.oneof(fc.constantFrom(1, 10, 0.5, 86400), fc.constantFrom(0, -1, 86401, 1e308, Number.NaN), anyValue)
const server = fc.record(
  {
    command: fieldValue(["node", "", "/bin/false"]),
    args: fc.oneof(fc.array(fc.string(), { maxLength: 3 }), anyValue),
    env: fc.oneof(fc.dictionary(fc.string({ maxLength: 5 }), fc.string({ maxLength: 5 })), anyValue),
    cwd: fieldValue(["/tmp", ""]),
    url: fieldValue(["http://127.0.0.1:3001/mcp", "ftp://x", "not a url", ""]),
    bearer_token_env_var: fieldValue(["TOKEN", ""]),
    http_headers: fc.oneof(fc.dictionary(fc.string({ maxLength: 5 }), fc.string({ maxLength: 5 })), anyValue),
    enabled: fc.oneof(fc.boolean(), anyValue),
    startup_timeout_sec: seconds,
    tool_timeout_sec: seconds,
    max_message_bytes: fc.oneof(fc.constantFrom(1, 67108864, 0, -5, 1.5), anyValue),
    bogus: anyValue
  },
  { requiredKeys: [] }
)
const desktopServer = fc.record(
  {
    type: fieldValue(["stdio", "http", "streamable-http", "sse", "ws"]),
    command: fieldValue(["node", ""]),
    args: fc.oneof(fc.array(fc.string(), { maxLength: 3 }), anyValue),
    url: fieldValue(["http://127.0.0.1:3001/mcp", "bad"]),
    headers: fc.oneof(fc.dictionary(fc.string({ maxLength: 5 }), fc.string({ maxLength: 5 })), anyValue),
    enabled: fc.oneof(fc.boolean(), anyValue)
  },
  { requiredKeys: [] }
)
const config = fc.record(
  {
    mcp_servers: fc.oneof(fc.dictionary(serverName, server, { maxKeys: 3 }), anyValue),
    mcpServers: fc.oneof(fc.dictionary(serverName, desktopServer, { maxKeys: 3 }), anyValue),
    orchestrator: fc.oneof(
      fc.record(
        { mcp: fc.record({ enabled: fc.oneof(fc.boolean(), anyValue) }), skills: anyValue },
        { requiredKeys: [] }
      ),
      anyValue
    ),
    apps: fc.oneof(
      fc.record(
        {
          server_name: fieldValue(["codex_apps", "apps", "bad name", ""]),
          connectors: fc.oneof(
            fc.dictionary(
              fc.string({ maxLength: 6 }),
              fc.record({ enabled: fc.oneof(fc.boolean(), anyValue), tools: anyValue }, { requiredKeys: [] }),
              { maxKeys: 2 }
            ),
            anyValue
          )
        },
        { requiredKeys: [] }
      ),
      anyValue
    ),
    truncation: fc.oneof(
      fc.record(
        { mode: fieldValue(["bytes", "tokens", "lines"]), limit: fc.oneof(fc.integer(), anyValue) },
        { requiredKeys: [] }
      ),
      anyValue
    ),
    persistence: fc.oneof(
      fc.record(
        { driver: fieldValue(["sqlite", "postgres", "memory", "mysql"]), url: fieldValue(["postgres://x"]) },
        { requiredKeys: [] }
      ),
      anyValue
    ),
    unknown_top: anyValue
  },
  { requiredKeys: [] }
)

/** Configs that should be accepted, so that both outcomes are exercised. */
const validConfig = fc.record(
  {
    mcp_servers: fc.dictionary(
      fc.stringMatching(/^[A-Za-z0-9_-]{1,12}$/),
      fc.oneof(
        fc.record(
          {
            command: fc.constantFrom("node", "npx"),
            args: fc.array(fc.string({ maxLength: 8 }), { maxLength: 3 }),
            enabled: fc.boolean(),
            tool_timeout_sec: fc.integer({ min: 1, max: 86400 }),
            max_message_bytes: fc.integer({ min: 1, max: 2 ** 30 })
          },
          { requiredKeys: ["command"] }
        ),
        fc.record(
          {
            url: fc.constant("http://127.0.0.1:3001/mcp"),
            startup_timeout_sec: fc.double({ min: 0.001, max: 86400, noNaN: true })
          },
          { requiredKeys: ["url"] }
        )
      ),
      { maxKeys: 3 }
    ),
    truncation: fc.record({ mode: fc.constantFrom("bytes", "tokens"), limit: fc.nat() }),
    persistence: fc.record({ driver: fc.constantFrom("sqlite", "memory") })
  },
  { requiredKeys: [] }
)

/** TOML cannot hold null: such values become strings, which keeps the structure. */
const tomlSafe = (value: unknown): unknown => {
  if (value === null) return "null"
  if (Array.isArray(value)) return value.map(tomlSafe)
  if (typeof value === "object") {
    return Object.fromEntries(Object.entries(value as Record<string, unknown>).map(([k, v]) => [k, tomlSafe(v)]))
  }
  return value
}

const toTomlText = (value: Record<string, unknown>): string => {
  try {
    return toToml(tomlSafe(value) as Record<string, unknown>)
  } catch {
    return JSON.stringify(value)
  }
}

const fileName = fc.oneof(
  { weight: 8, arbitrary: fc.constantFrom("/etc/mcp/config.toml", "cfg.json", "C.TOML", "x/y/z.JSON") },
  { weight: 1, arbitrary: fc.constantFrom("config.yaml", "config", "", ".toml") }
)

const caseArb = fc.oneof(
  { weight: 1, arbitrary: validConfig.map((c) => ({ text: JSON.stringify(c), file: "valid.json" })) },
  { weight: 1, arbitrary: validConfig.map((c) => ({ text: toTomlText(c), file: "valid.toml" })) },
  { weight: 4, arbitrary: config.map((c) => ({ text: JSON.stringify(c), file: "config.json" })) },
  { weight: 4, arbitrary: config.map((c) => ({ text: toTomlText(c), file: "config.toml" })) },
  {
    // A valid-looking file cut short or with bytes inserted.
    weight: 2,
    arbitrary: fc
      .tuple(config, fc.boolean(), fc.nat(), fc.string({ unit: "binary", maxLength: 4 }))
      .map(([c, json, at, junk]) => {
        const text = json ? JSON.stringify(c) : toTomlText(c)
        const cut = at % (text.length + 1)
        return { text: text.slice(0, cut) + junk + text.slice(cut + junk.length), file: json ? "c.json" : "c.toml" }
      })
  },
  {
    weight: 1,
    arbitrary: fc.tuple(fc.string({ unit: "binary", maxLength: 200 }), fileName).map(([text, file]) => ({ text, file }))
  },
  { weight: 1, arbitrary: fc.tuple(deepNesting(5000), fileName).map(([text, file]) => ({ text, file })) },
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.integer({ min: 1, max: 3000 }), fc.boolean())
      .map(([depth, json]) =>
        json
          ? { text: `{"a":${"[".repeat(depth)}${"]".repeat(depth)}}`, file: "deep.json" }
          : { text: `a = ${"[".repeat(depth)}${"]".repeat(depth)}`, file: "deep.toml" }
      )
  }
)

describe("config files", () => {
  it("Config.parse never throws: 10,000 cases are a valid config or a ConfigError naming the file", () => {
    const tally = { valid: 0, refused: 0 }
    const started = Date.now()
    fc.assert(
      fc.property(caseArb, ({ text, file }) => {
        let result: Either.Either<Config.Config, Config.ConfigError>
        try {
          result = Config.parse(text, file)
        } catch (error) {
          throw new Error(
            `Config.parse threw for ${JSON.stringify(file)} ${JSON.stringify(text.slice(0, 200))}: ${String(error)}`
          )
        }
        if (Either.isRight(result)) {
          tally.valid++
          const c = result.right
          for (const s of c.mcpServers) {
            expect(s.name).toMatch(Config.serverNamePattern)
            expect(s.startupTimeoutSec > 0 && s.startupTimeoutSec <= 86400).toBe(true)
            expect(s.toolTimeoutSec > 0 && s.toolTimeoutSec <= 86400).toBe(true)
            expect(Number.isInteger(s.maxMessageBytes) && s.maxMessageBytes > 0).toBe(true)
          }
          expect(["sqlite", "postgres", "memory"]).toContain(c.persistence.driver)
        } else {
          tally.refused++
          const error = result.left
          expect(error).toBeInstanceOf(Config.ConfigError)
          expect(error.message.startsWith(`${file}: `), `${error.message} should start with the file`).toBe(true)
          expect(error.message.length).toBeGreaterThan(file.length + 2)
        }
      }),
      { numRuns }
    )
    Figures.add("config", {
      "cases config files": numRuns,
      "valid configs": tally.valid,
      "refused with ConfigError": tally.refused
    })
    Figures.note(
      "config",
      `${numRuns} cases (JSON, TOML, desktop mcpServers, truncated, random bytes, deep nesting) in ${((Date.now() - started) / 1000).toFixed(1)} s`
    )
    expect(tally.valid).toBeGreaterThan(numRuns / 100)
    expect(tally.refused).toBeGreaterThan(numRuns / 100)
  }, 120_000)
})
