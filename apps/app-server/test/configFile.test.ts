import { assert, describe, it } from "@effect/vitest"
import { Config } from "@mcp-resources/protocol"
import { Effect, Logger } from "effect"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import * as ConfigFile from "../src/ConfigFile.js"

/** A desktop host's file: three servers and two top-level keys of its own. */
const claudeDesktopConfig = JSON.stringify({
  mcpServers: {
    filesystem: { command: "npx", args: ["-y", "@modelcontextprotocol/server-filesystem", "/tmp"] },
    github: { command: "npx", args: ["-y", "@modelcontextprotocol/server-github"] },
    sqlite: { command: "uvx", args: ["mcp-server-sqlite", "--db-path", "/tmp/test.db"] }
  },
  globalShortcut: "Alt+Space",
  preferences: { menuBarEnabled: false }
})

describe("ConfigFile", () => {
  it.effect("load names the unread keys of a host's file in one warning", () =>
    Effect.gen(function* () {
      const dir = mkdtempSync(join(tmpdir(), "protocol-hosts-"))
      yield* Effect.addFinalizer(() => Effect.sync(() => rmSync(dir, { recursive: true, force: true })))
      const file = join(dir, "claude_desktop_config.json")
      writeFileSync(file, claudeDesktopConfig)
      const logged: Array<{ level: string; message: unknown }> = []
      const collect = Logger.make(({ logLevel, message }) => {
        logged.push({ level: logLevel.label, message })
      })
      const config = yield* ConfigFile.load(file).pipe(Effect.provide(Logger.replace(Logger.defaultLogger, collect)))
      assert.strictEqual(config.mcpServers.length, 3)
      assert.deepStrictEqual(logged, [
        {
          level: "WARN",
          message: [
            `${file}: another host's file: only its MCP servers are read; ignored top-level keys: globalShortcut, preferences`
          ]
        }
      ])
    }).pipe(Effect.scoped)
  )

  it.effect(
    "locate: the named file, else mcp-resources.toml in the directory, else the empty config; noServers says which",
    () =>
      Effect.gen(function* () {
        const dir = mkdtempSync(join(tmpdir(), "protocol-locate-"))
        yield* Effect.addFinalizer(() => Effect.sync(() => rmSync(dir, { recursive: true, force: true })))
        const none = yield* ConfigFile.locate(undefined, dir)
        assert.deepStrictEqual(none, { config: Config.empty, file: join(dir, "mcp-resources.toml"), found: false })
        assert.strictEqual(
          ConfigFile.noServers(none),
          `no MCP server is configured: no config file at ${join(dir, "mcp-resources.toml")} (pass --config PATH)`
        )
        writeFileSync(join(dir, "mcp-resources.toml"), '[tools]\nprofile = "extended"\n')
        const found = yield* ConfigFile.locate(undefined, dir)
        assert.strictEqual(
          ConfigFile.noServers(found),
          `no MCP server is configured in ${join(dir, "mcp-resources.toml")}`
        )
        writeFileSync(join(dir, "c.json"), '{"mcpServers":{"s":{"command":"node"}}}')
        const named = yield* ConfigFile.locate(join(dir, "c.json"), "/elsewhere")
        assert.strictEqual(named.file, join(dir, "c.json"))
        assert.strictEqual(ConfigFile.noServers(named), undefined)
      }).pipe(Effect.scoped)
  )

  it.effect("load expands a host file's variables from this process's environment, or from the one given", () =>
    Effect.gen(function* () {
      const dir = mkdtempSync(join(tmpdir(), "protocol-env-"))
      const name = "MCP_RESOURCES_CONFIG_FILE_TEST_ROOT"
      yield* Effect.addFinalizer(() =>
        Effect.sync(() => {
          delete process.env[name]
          rmSync(dir, { recursive: true, force: true })
        })
      )
      const file = join(dir, ".mcp.json")
      writeFileSync(file, JSON.stringify({ mcpServers: { s: { command: "node", args: [`\${${name}}`] } } }))
      process.env[name] = "/from/process"
      const fromProcess = yield* ConfigFile.load(file)
      assert.deepStrictEqual(fromProcess.mcpServers[0]?.transport, {
        _tag: "stdio",
        command: "node",
        args: ["/from/process"],
        env: {}
      })
      const given = yield* ConfigFile.load(file, { env: { [name]: "/given" } })
      assert.deepStrictEqual(given.mcpServers[0]?.transport, {
        _tag: "stdio",
        command: "node",
        args: ["/given"],
        env: {}
      })
    }).pipe(Effect.scoped)
  )

  it.effect("load reads a file and reports a missing one with the file named", () =>
    Effect.gen(function* () {
      const dir = mkdtempSync(join(tmpdir(), "protocol-config-"))
      yield* Effect.addFinalizer(() => Effect.sync(() => rmSync(dir, { recursive: true, force: true })))
      const file = join(dir, "c.toml")
      writeFileSync(file, '[mcp_servers.srv]\ncommand = "node"\n')
      const config = yield* ConfigFile.load(file)
      assert.strictEqual(config.mcpServers[0]?.name, "srv")
      const missing = yield* Effect.flip(ConfigFile.load(join(dir, "none.toml")))
      assert.strictEqual(missing.message, `${join(dir, "none.toml")}: cannot read the file: ENOENT`)
    }).pipe(Effect.scoped)
  )
})
