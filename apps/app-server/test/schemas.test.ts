import { assert, describe, it } from "@effect/vitest"
import { stdioCommand } from "@mcp-resources/fixtures"
import { Effect } from "effect"
import {
  type Message,
  resultOf,
  startInitialized,
  tempDir,
  waitSettled,
  writeConfig
} from "./utils/AppServerProcess.js"
import { document, problems } from "./utils/PublishedSchema.js"

describe("the published JSON Schema matches what the server sends", () => {
  it.scopedLive(
    "a session over every method: each result and notification validates against its schema",
    () =>
      Effect.gen(function* () {
        const spec = {
          name: "srv",
          resourcePages: [{ result: { resources: [{ uri: "memo://id", name: "memo", mimeType: "text/plain" }] } }],
          reads: [
            { uri: "test://x", result: { contents: [{ uri: "test://x", mimeType: "text/plain", text: "hi" }] } },
            {
              uri: "ui://srv/w.html",
              result: {
                contents: [{ uri: "ui://srv/w.html", mimeType: "text/html;profile=mcp-app", text: "<p>w</p>" }]
              }
            }
          ],
          tools: [{ name: "show", _meta: { ui: { resourceUri: "ui://srv/w.html", prefersBorder: true } } }]
        }
        const config = writeConfig(tempDir(), { mcp_servers: { srv: stdioCommand(spec) } })
        const app = yield* startInitialized({ config })
        const sent: Array<{ readonly id: unknown; readonly method: string; readonly params: unknown }> = []
        const request = (method: string, params: Record<string, unknown>) =>
          Effect.gen(function* () {
            const answer = yield* app.request(method, params)
            sent.push({ id: answer.id, method, params })
            return answer
          })

        yield* waitSettled(app)
        const started = resultOf(
          yield* request("thread/start", { config: { truncation: { mode: "bytes", limit: 8000 } } })
        )
        const threadId = (started.thread as { id: string }).id
        yield* request("turn/start", { threadId, turnId: "t1" })
        yield* request("tool/list", { threadId })
        yield* request("tool/call", { threadId, turnId: "t1", callId: "c1", name: "list_mcp_resources", arguments: "" })
        yield* request("tool/call", {
          threadId,
          turnId: "t1",
          callId: "c2",
          name: "read_mcp_resource",
          arguments: '{"server":"srv","uri":"test://x"}'
        })
        yield* request("tool/call", {
          threadId,
          turnId: "t1",
          callId: "c3",
          name: "read_mcp_resource",
          arguments: "[]"
        })
        yield* request("tool/call", { threadId, turnId: "t1", callId: "c4", name: "mcp__srv__show", arguments: "{}" })
        yield* request("mcp/widget/list", { threadId })
        yield* request("mcp/widget/tools", { threadId })
        yield* request("mcp/widget/read", { threadId, callId: "c4" })
        yield* request("mcp/widget/readResource", { threadId, callId: "c4", uri: "ui://srv/w.html" })
        yield* request("mcp/widget/callTool", { threadId, callId: "c4", name: "show", arguments: {} })
        yield* request("mcp/resource/read", { threadId, server: "srv", uri: "test://x", connectorId: "c" })
        yield* request("mcpServer/resource/read", { server: "srv", uri: "test://x" })
        yield* request("mcp/resource/search", { threadId, query: "x" })
        yield* request("thread/list", {})
        yield* request("mcpServer/list", {})
        yield* request("skills/list", { threadId })
        yield* request("skills/extension/list", {})
        yield* request("thread/compact", { threadId })
        yield* request("thread/rollback", { threadId, numTurns: 1 })
        yield* request("config/mcpServer/reload", {})
        yield* request("thread/resume", { threadId })
        yield* request("thread/delete", { threadId })

        const failures: Array<string> = []
        const answered = new Set<string>()
        for (const { id, method, params } of sent) {
          const entry = document["x-methods"][method]
          if (entry === undefined) {
            failures.push(`${method}: not in x-methods`)
            continue
          }
          for (const p of problems(entry.params, params)) failures.push(`${method} params: ${p}`)
          const answer = app.messages.find((m: Message) => m.id === id)
          if (answer?.result === undefined) {
            failures.push(`${method}: answered ${JSON.stringify(answer?.error)}`)
            continue
          }
          answered.add(method)
          for (const p of problems(entry.result, answer.result)) failures.push(`${method} result: ${p}`)
        }
        const notified = new Set<string>()
        for (const message of app.notifications()) {
          const entry = document["x-notifications"][String(message.method)]
          if (entry === undefined) {
            failures.push(`${String(message.method)}: not in x-notifications`)
            continue
          }
          notified.add(String(message.method))
          for (const p of problems(entry.params, message.params)) failures.push(`${String(message.method)}: ${p}`)
        }
        assert.deepStrictEqual(failures, [])
        // Every method but skills/read (it needs an apps server with skills), mcp/resource/complete (it
        // needs a server with completions: checked in resourceTemplates.test.ts), mcpServer/oauth/login
        // (an OAuth server: checked in oauth.test.ts), skills/extension/read (a skills-extension server:
        // checked in skillsExtension.test.ts), mcp/resource/subscribe and unsubscribe (a server with
        // subscriptions: checked in resourceChanges.test.ts) and initialize (sent by startInitialized,
        // checked in capabilities.test.ts) was answered and checked here.
        assert.deepStrictEqual(
          Object.keys(document["x-methods"]).filter((m) => !answered.has(m)),
          [
            "initialize",
            "mcp/resource/complete",
            "mcp/resource/subscribe",
            "mcp/resource/unsubscribe",
            "mcpServer/oauth/login",
            "skills/read",
            "skills/extension/read"
          ]
        )
        // Every notification but the four that need those servers (checked in the same files).
        const elsewhere = [
          "mcpServer/oauth/loginCompleted",
          "mcpServer/oauth/scopeRequired",
          "skills/extension/changed",
          "mcp/resource/changed"
        ]
        assert.deepStrictEqual(
          [...notified].sort(),
          Object.keys(document["x-notifications"])
            .filter((m) => !elsewhere.includes(m))
            .sort()
        )
      }),
    60_000
  )
})
