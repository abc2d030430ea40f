/** Resource rules through the app-server (docs/policy.md): model tools, direct reads and widget reads refused alike. */
import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { readLog, stdioCommand, widgetAppsSpec, widgetUri } from "@mcp-resources/fixtures"
import { Messages } from "@mcp-resources/protocol"
import { Effect } from "effect"
import {
  errorOf,
  resultOf,
  startInitialized,
  tempDir,
  threadWithTurn,
  waitSettled,
  writeConfig
} from "./utils/AppServerProcess.js"

const srvSpec = {
  name: "srv",
  resourcePages: [
    {
      result: {
        resources: [
          { uri: "file:///repo/a.txt", name: "a" },
          { uri: "file:///home/ann/notes", name: "notes" }
        ]
      }
    }
  ],
  reads: [
    { uri: "file:///repo/a.txt", result: { contents: [{ uri: "file:///repo/a.txt", text: "A" }] } },
    { uri: "file:///home/ann/notes", result: { contents: [{ uri: "file:///home/ann/notes", text: "N" }] } }
  ]
}

describe("resource rules in the app-server", () => {
  it.scopedLive(
    "tool/call, mcp/resource/read (plain, threadless, call-scoped) refuse a denied URI before any request",
    () =>
      Effect.gen(function* () {
        const dir = tempDir()
        const srvLog = join(dir, "srv.log")
        const appsLog = join(dir, "apps.log")
        const config = writeConfig(dir, {
          resources: { deny: ["file:///home/**"] },
          mcp_servers: {
            srv: stdioCommand(srvSpec, { logFile: srvLog }),
            codex_apps: { ...stdioCommand(widgetAppsSpec(), { logFile: appsLog }), resources: { deny: ["ui://**"] } }
          }
        })
        const app = yield* startInitialized({ config })
        yield* waitSettled(app)
        const { threadId } = yield* threadWithTurn(app, { config: { resources: { deny: ["file:///repo/a.txt"] } } })
        const denied = Messages.policy.readDenied("file:///home/ann/notes")
        const call = (callId: string, name: string, args: unknown) =>
          Effect.map(
            app.request("tool/call", { threadId, turnId: "t1", callId, name, arguments: JSON.stringify(args) }),
            resultOf
          )
        // the model tool: the list leaves the denied entries out, the read is refused
        const list = yield* call("l1", "list_mcp_resources", { server: "srv" })
        // both entries are hidden: one by the config, one by the thread
        assert.strictEqual(list.output, JSON.stringify({ server: "srv", resources: [] }))
        const read = yield* call("r1", "read_mcp_resource", { server: "srv", uri: "file:///home/ann/notes" })
        assert.deepStrictEqual(read, { callId: "r1", output: denied, success: false })
        // the direct read: threadless, on the thread, for an existing and a missing URI: one text
        for (const params of [
          { server: "srv", uri: "file:///home/ann/notes" },
          { threadId, server: "srv", uri: "file:///home/ann/notes" }
        ]) {
          assert.deepStrictEqual(errorOf(yield* app.request("mcp/resource/read", params)), {
            code: -32603,
            message: denied
          })
        }
        assert.deepStrictEqual(
          errorOf(yield* app.request("mcp/resource/read", { server: "srv", uri: "file:///home/x" })),
          {
            code: -32603,
            message: Messages.policy.readDenied("file:///home/x")
          }
        )
        // the thread's own deny rule: refused on the thread, allowed without it
        assert.deepStrictEqual(
          errorOf(yield* app.request("mcp/resource/read", { threadId, server: "srv", uri: "file:///repo/a.txt" })),
          { code: -32603, message: Messages.policy.readDenied("file:///repo/a.txt") }
        )
        assert.deepStrictEqual(
          resultOf(yield* app.request("mcp/resource/read", { server: "srv", uri: "file:///repo/a.txt" })),
          {
            contents: [{ uri: "file:///repo/a.txt", text: "A" }],
            originCallId: null
          }
        )
        // the call-scoped widget read: refused whether or not the origin call exists
        for (const originCallId of ["no-such-call", "best-buy-call"]) {
          assert.deepStrictEqual(
            errorOf(
              yield* app.request("mcp/resource/read", { threadId, originCallId, server: "codex_apps", uri: widgetUri })
            ),
            { code: -32603, message: Messages.policy.readDenied(widgetUri) }
          )
        }
        const reads = (log: string) => readLog(log).filter((r) => r.method === "resources/read")
        assert.deepStrictEqual(
          reads(srvLog).map((r) => r.params),
          [{ uri: "file:///repo/a.txt" }]
        )
        assert.deepStrictEqual(reads(appsLog), [])
      })
  )
})
