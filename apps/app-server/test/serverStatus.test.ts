/**
 * `mcpServer/statusChanged` in process: every initialized connection hears each change of a configured
 * server's status, with the server's `mcpServer/list` entry; a reload announces what it changed only.
 */
import { assert, describe, it } from "@effect/vitest"
import { exampleSpec, stdioCommand } from "@mcp-resources/fixtures"
import { Effect } from "effect"
import { tempDir, writeConfig } from "./utils/AppServerProcess.js"
import { type Message, resultOf, startInProcess, waitSettled } from "./utils/InProcess.js"

process.env.MCP_RESOURCES_LOG = "error"

const statusChanges = (messages: ReadonlyArray<Message>, from: number) =>
  messages
    .slice(from)
    .filter((m) => m.method === "mcpServer/statusChanged")
    .map((m) => m.params as Record<string, unknown>)

describe("mcpServer/statusChanged", () => {
  it.scopedLive("a reload announces each status it changed, with the server's mcpServer/list entry", () =>
    Effect.gen(function* () {
      const dataDir = tempDir()
      const docs = stdioCommand(exampleSpec())
      const config = (extra: Record<string, unknown>) =>
        writeConfig(dataDir, { mcp_servers: { docs: { command: docs.command, args: docs.args }, ...extra } })
      const server = yield* startInProcess({ dataDir, configPath: config({}) })
      yield* waitSettled(server)
      const from = server.messages.length
      // a server that cannot start joins; docs stays as it was
      config({ broken: { command: "/nonexistent/mcp-server" } })
      resultOf(yield* server.request("config/mcpServer/reload", {}))
      yield* server.waitFor(
        (m) => m.method === "mcpServer/statusChanged" && (m.params as { status?: string }).status === "failed",
        "broken failed"
      )
      const changes = statusChanges(server.messages, from)
      // docs did not change: only broken is announced, starting (unless it failed first) then failed
      assert.deepStrictEqual(
        changes.map((c) => c.name),
        changes.map(() => "broken")
      )
      assert.include(["starting,failed", "failed"], changes.map((c) => c.status).join())
      const listed = resultOf(yield* server.request("mcpServer/list", {})).servers as Array<Record<string, unknown>>
      assert.deepStrictEqual(
        changes.at(-1),
        listed.find((s) => s.name === "broken")
      )
      assert.isString(changes.at(-1)!.error)
      // disabling a server announces it disabled
      const before = server.messages.length
      config({ broken: { command: "/nonexistent/mcp-server", enabled: false } })
      resultOf(yield* server.request("config/mcpServer/reload", {}))
      const disabled = yield* server.waitFor(
        (m) => m.method === "mcpServer/statusChanged" && server.messages.indexOf(m) >= before,
        "broken disabled"
      )
      assert.deepStrictEqual(disabled.params, { name: "broken", status: "disabled", transport: "stdio" })
    })
  )
})
