import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { readLog, skillGuideText, skillMainText, skillsSpec, stdioCommand } from "@mcp-resources/fixtures"
import { Effect } from "effect"
import { errorOf, resultOf, startInitialized, tempDir, threadWithTurn, writeConfig } from "./utils/AppServerProcess.js"

const counts = (logFile: string) => {
  const log = readLog(logFile)
  const reads = (uri: string) =>
    log.filter((r) => r.method === "resources/read" && (r.params as { uri: string }).uri === uri).length
  return {
    list: log.filter((r) => r.method === "resources/list").length,
    main: reads("skill://plugin_demo/deploy/SKILL.md"),
    guide: reads("skill://plugin_demo/deploy/references/guide.md")
  }
}

describe("skills", () => {
  it.scopedLive("S-1..S-3: the catalog with its warning, cached reads, and a new generation after reload", () =>
    Effect.gen(function* () {
      const dir = tempDir()
      const logFile = join(dir, "apps.log")
      const config = writeConfig(dir, { mcp_servers: { codex_apps: stdioCommand(skillsSpec(), { logFile }) } })
      const app = yield* startInitialized({ config })
      const { threadId } = yield* threadWithTurn(app)
      const expected = {
        skills: [
          {
            name: "demo-plugin:deploy",
            description: "Deploy through the &lt;hosted&gt; orchestrator.",
            package: "skill://plugin_demo/deploy",
            mainResource: "skill://plugin_demo/deploy/SKILL.md",
            visible: true
          }
        ],
        warnings: [
          "Orchestrator skill discovery stopped after 2 resource pages: failed to list orchestrator skill resources: resources/list failed for `codex_apps`: Mcp error: -32603: simulated later-page failure"
        ],
        truncated: false
      }
      assert.strictEqual(
        JSON.stringify(resultOf(yield* app.request("skills/list", { threadId }))),
        JSON.stringify(expected)
      )
      // S-2
      yield* app.request("skills/list", { threadId })
      const main = { threadId, package: "skill://plugin_demo/deploy", resource: "skill://plugin_demo/deploy/SKILL.md" }
      assert.deepStrictEqual(resultOf(yield* app.request("skills/read", main)), {
        resource: main.resource,
        contents: skillMainText,
        next_cursor: null
      })
      const guide = { ...main, resource: "skill://plugin_demo/deploy/references/guide.md" }
      for (let i = 0; i < 2; i++) {
        assert.deepStrictEqual(resultOf(yield* app.request("skills/read", guide)), {
          resource: guide.resource,
          contents: skillGuideText,
          next_cursor: null
        })
      }
      assert.deepStrictEqual(counts(logFile), { list: 3, main: 1, guide: 1 })
      // S-3
      yield* app.request("config/mcpServer/reload", {})
      yield* app.request("skills/list", { threadId })
      yield* app.request("skills/read", main)
      assert.deepStrictEqual(counts(logFile), { list: 6, main: 2, guide: 1 })
    })
  )

  it.scopedLive("S-5: disabled skills list nothing and refuse reads without any MCP request", () =>
    Effect.gen(function* () {
      const dir = tempDir()
      const logFile = join(dir, "apps.log")
      const config = writeConfig(dir, {
        orchestrator: { skills: { enabled: false } },
        mcp_servers: { codex_apps: stdioCommand(skillsSpec(), { logFile }) }
      })
      const app = yield* startInitialized({ config })
      const { threadId } = yield* threadWithTurn(app)
      assert.deepStrictEqual(resultOf(yield* app.request("skills/list", { threadId })), {
        skills: [],
        warnings: [],
        truncated: false
      })
      const error = errorOf(
        yield* app.request("skills/read", {
          threadId,
          package: "skill://plugin_demo/deploy",
          resource: "skill://plugin_demo/deploy/SKILL.md"
        })
      )
      assert.deepStrictEqual(error, {
        code: -32603,
        message: "orchestrator skills are disabled by `orchestrator.skills.enabled`"
      })
      assert.deepStrictEqual(
        readLog(logFile)
          .map((r) => r.method)
          .filter((m) => m.startsWith("resources/")),
        []
      )
    })
  )
})
