/** Resource rules through the app-server (docs/policy.md): model tools, direct reads and widget reads refused alike. */
import { mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import {
  fileTreeReads,
  fileTreeStdioCommand,
  priceWidgetUri,
  readLog,
  shopWidgetSpec,
  stdioCommand,
  widgetAppsSpec,
  widgetUri
} from "@mcp-resources/fixtures"
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

describe("resource rules against a server that normalizes URIs", () => {
  it.scopedLive(
    "other spellings of a denied URI are refused by the model tool, direct and threadless reads and widget reads; the URI echoed is the one asked",
    () =>
      Effect.gen(function* () {
        const dir = tempDir()
        const root = join(dir, "tree")
        mkdirSync(join(root, "repo", "secrets"), { recursive: true })
        writeFileSync(join(root, "repo", ".env"), "ENV-MARKER-5e1d")
        writeFileSync(join(root, "repo", "secrets", "key"), "KEY-MARKER-0b7c")
        writeFileSync(join(root, "repo", "a.txt"), "A-TEXT")
        const fsLog = join(dir, "fs.log")
        const shopLog = join(dir, "shop.log")
        const config = writeConfig(dir, {
          resources: { deny: ["file:///repo/.env", "file:///repo/secrets/**"] },
          mcp_servers: {
            fs: fileTreeStdioCommand({ root, log: fsLog }),
            shop: { ...stdioCommand(shopWidgetSpec(), { logFile: shopLog }), resources: { deny: [priceWidgetUri] } }
          }
        })
        const app = yield* startInitialized({ config })
        yield* waitSettled(app)
        const { threadId } = yield* threadWithTurn(app)
        const attacks = [
          "FILE:///repo/.env",
          "file:///repo/%2Eenv",
          "file:///repo/./.env",
          "file:///repo//.env",
          "file:///repo/x/../.env",
          "file:///repo/.env/",
          "file:///repo/%73ecrets/key",
          "file:///repo/secrets%2Fkey"
        ]
        for (const [i, uri] of attacks.entries()) {
          const called = resultOf(
            yield* app.request("tool/call", {
              threadId,
              turnId: "t1",
              callId: `n${i}`,
              name: "read_mcp_resource",
              arguments: JSON.stringify({ server: "fs", uri })
            })
          )
          assert.isFalse(called.success as boolean, uri)
          assert.include(called.output as string, `access to ${uri} is denied by host policy`)
          for (const params of [
            { server: "fs", uri },
            { threadId, server: "fs", uri }
          ]) {
            const refused = errorOf(yield* app.request("mcp/resource/read", params))
            assert.strictEqual(refused.code, -32603)
            assert.include(refused.message, `access to ${uri} is denied by host policy`)
          }
        }
        assert.strictEqual(
          errorOf(yield* app.request("mcp/resource/read", { server: "fs", uri: "file:///repo/secrets%2Fkey" })).message,
          Messages.policy.readUnjudgeable("file:///repo/secrets%2Fkey", 'an encoded "/" (%2F) in its path')
        )
        // an allowed file in another spelling is read, sent and echoed as asked
        assert.deepStrictEqual(
          resultOf(yield* app.request("mcp/resource/read", { server: "fs", uri: "FILE:///repo/%61.txt" })),
          { contents: [{ uri: "FILE:///repo/%61.txt", mimeType: "text/plain", text: "A-TEXT" }], originCallId: null }
        )
        assert.deepStrictEqual(
          fileTreeReads(fsLog).map((r) => r.uri),
          ["FILE:///repo/%61.txt"]
        )
        // a widget's resource read: another spelling of the denied ui:// resource is refused before any request
        yield* app.request("tool/call", {
          threadId,
          turnId: "t1",
          callId: "cart-call",
          name: "mcp__shop__show_cart",
          arguments: "{}"
        })
        const respelled = "ui://shop/%70rice.html"
        assert.deepStrictEqual(
          errorOf(yield* app.request("mcp/widget/readResource", { threadId, callId: "cart-call", uri: respelled })),
          { code: -32603, message: Messages.policy.readDenied(respelled) }
        )
        assert.deepStrictEqual(
          readLog(shopLog).filter((r) => r.method === "resources/read"),
          []
        )
        assert.notInclude(JSON.stringify(app.messages), "MARKER")
      }),
    120_000
  )
})
