import { readFileSync } from "node:fs"
import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { computedManifest, skillsExtensionCommand, stdioCommand } from "@mcp-resources/fixtures"
import { Effect } from "effect"
import { errorOf, resultOf, startInitialized, tempDir, writeConfig } from "./utils/AppServerProcess.js"
import * as PublishedSchema from "./utils/PublishedSchema.js"

const skillMd = (name: string, description: string) =>
  `---\nname: ${name}\ndescription: ${description}\n---\n\n# ${name}\n`

const skill = (path: string, description: string, files: Record<string, string> = {}) => {
  const name = path.split("/").at(-1)!
  return {
    path,
    frontmatter: { name, description },
    files: { "SKILL.md": skillMd(name, description), ...files }
  }
}

/** The command as a server entry with a startup timeout for a loaded machine. */
const entry = (command: { command: string; args: Array<string> }) => ({ ...command, startup_timeout_sec: 60 })

const methodsIn = (logFile: string): Array<string> => {
  try {
    return readFileSync(logFile, "utf8")
      .split("\n")
      .filter((line) => line !== "")
      .map((line) => (JSON.parse(line) as { method: string }).method)
  } catch {
    return []
  }
}

describe("skills extension methods", () => {
  it.scopedLive("list and read two servers' same-named skills; a changed file is refreshed and announced", () =>
    Effect.gen(function* () {
      const dir = tempDir()
      const alphaLog = join(dir, "alpha.log")
      const betaLog = join(dir, "beta.log")
      const alpha = skill("deploy", "Alpha deploys.", { "notes.md": "first" })
      const config = writeConfig(dir, {
        mcp_servers: {
          alpha: entry(
            skillsExtensionCommand(
              { skills: [alpha], changeAfterList: { path: "deploy", file: "notes.md", content: "second" } },
              alphaLog
            )
          ),
          beta: entry(skillsExtensionCommand({ skills: [skill("deploy", "Beta deploys.")] }, betaLog)),
          plain: entry(stdioCommand({}))
        }
      })
      const app = yield* startInitialized({ config })
      const listed = resultOf(yield* app.request("skills/extension/list", {})) as {
        skills: Array<Record<string, unknown>>
        warnings: Array<string>
      }
      assert.deepStrictEqual(listed.warnings, [])
      assert.deepStrictEqual(listed.skills[0], {
        server: "alpha",
        uri: "skill://deploy/SKILL.md",
        name: "alpha/deploy",
        frontmatter: { name: "deploy", description: "Alpha deploys." },
        resources: computedManifest(alpha),
        allowedTools: null,
        problem: null
      })
      assert.deepStrictEqual(
        listed.skills.map((s) => [s.server, s.name]),
        [
          ["alpha", "alpha/deploy"],
          ["beta", "beta/deploy"]
        ]
      )
      assert.deepStrictEqual(methodsIn(alphaLog), ["skills/list"])
      const read = resultOf(
        yield* app.request("skills/extension/read", { server: "beta", uri: "skill://deploy/SKILL.md" })
      )
      assert.deepStrictEqual(PublishedSchema.resultProblems("skills/extension/read", read), [])
      assert.deepStrictEqual(read, {
        server: "beta",
        uri: "skill://deploy/SKILL.md",
        skill: "skill://deploy/SKILL.md",
        mimeType: "text/markdown",
        text: skillMd("deploy", "Beta deploys."),
        verified: true
      })
      assert.deepStrictEqual(methodsIn(alphaLog), ["skills/list"])
      const notes = resultOf(
        yield* app.request("skills/extension/read", { server: "alpha", uri: "skill://deploy/notes.md" })
      ) as { text: string }
      assert.strictEqual(notes.text, "second")
      assert.deepStrictEqual(methodsIn(alphaLog), ["skills/list", "resources/read", "skills/get"])
      const changed = yield* app.waitFor((m) => m.method === "skills/extension/changed")
      assert.deepStrictEqual(PublishedSchema.notificationProblems("skills/extension/changed", changed.params), [])
      assert.deepStrictEqual(changed.params, { server: "alpha", uri: "skill://deploy/SKILL.md" })
      const refused = errorOf(
        yield* app.request("skills/extension/read", { server: "plain", uri: "skill://deploy/SKILL.md" })
      )
      assert.strictEqual(refused.message, "skill://deploy/SKILL.md is not a file of a skill of MCP server 'plain'")
    })
  )

  it.scopedLive(
    "`[skills] extension = false`: an empty list, no request to the server; the Codex catalog is separate",
    () =>
      Effect.gen(function* () {
        const dir = tempDir()
        const log = join(dir, "alpha.log")
        const config = writeConfig(dir, {
          skills: { extension: false },
          mcp_servers: { alpha: skillsExtensionCommand({ skills: [skill("deploy", "Deploy.")] }, log) }
        })
        const app = yield* startInitialized({ config })
        assert.deepStrictEqual(resultOf(yield* app.request("skills/extension/list", {})), { skills: [], warnings: [] })
        assert.strictEqual(
          errorOf(yield* app.request("skills/extension/read", { server: "alpha", uri: "skill://deploy/SKILL.md" }))
            .message,
          "the skills extension is disabled by `[skills] extension`"
        )
        assert.deepStrictEqual(methodsIn(log), [])
      })
  )
})
