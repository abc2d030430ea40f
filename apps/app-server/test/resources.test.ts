import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { directReadSpec, readLog, stdioCommand } from "@mcp-resources/fixtures"
import { Effect } from "effect"
import {
  type AppServer,
  errorOf,
  resultOf,
  startInitialized,
  tempDir,
  threadWithTurn,
  writeConfig
} from "./utils/AppServerProcess.js"

const d1Contents = [
  { uri: "test://codex/resource", mimeType: "text/markdown", text: "Resource body from the MCP server." },
  { uri: "test://codex/resource.bin", mimeType: "application/octet-stream", blob: "YmluYXJ5LXJlc291cmNl" }
]

const setup = Effect.gen(function* () {
  const dir = tempDir()
  const srvLog = join(dir, "srv.log")
  const config = writeConfig(dir, {
    mcp_servers: {
      codex_apps: stdioCommand(directReadSpec()),
      srv: stdioCommand(
        {
          name: "srv",
          reads: [
            { uri: "test://x", result: { contents: [{ uri: "test://x", text: "x" }] } },
            {
              uri: "test://meta",
              result: {
                resultType: "complete",
                _meta: { top: 1 },
                contents: [{ uri: "test://meta", text: "m", _meta: { inner: true } }]
              }
            }
          ]
        },
        { logFile: srvLog }
      )
    }
  })
  const app = yield* startInitialized({ config })
  const { threadId } = yield* threadWithTurn(app)
  return { app, threadId, srvLog }
})

const read = (app: AppServer, params: Record<string, unknown>, method = "mcp/resource/read") =>
  app.request(method, params)

describe("mcp/resource/read", () => {
  it.scopedLive("D-1..D-10: plain, threadless, elicitation, errors, connectorId meta; no items", () =>
    Effect.gen(function* () {
      const { app, threadId, srvLog } = yield* setup
      // D-1, with the alias too.
      const d1 = { threadId, server: "codex_apps", uri: "test://codex/resource" }
      assert.deepStrictEqual(resultOf(yield* read(app, d1)), { contents: d1Contents, originCallId: null })
      assert.deepStrictEqual(resultOf(yield* read(app, d1, "mcpServer/resource/read")), {
        contents: d1Contents,
        originCallId: null
      })
      // D-2
      assert.deepStrictEqual(resultOf(yield* read(app, { server: "codex_apps", uri: "test://codex/resource" })), {
        contents: d1Contents,
        originCallId: null
      })
      // D-3
      assert.deepStrictEqual(resultOf(yield* read(app, { server: "codex_apps", uri: "test://codex/elicitation" })), {
        contents: [
          { uri: "test://codex/elicitation", mimeType: "text/plain", text: "Threadless elicitation was declined." }
        ],
        originCallId: null
      })
      // D-4
      const unknown = "00000000-0000-4000-8000-000000000000"
      assert.deepStrictEqual(
        errorOf(yield* read(app, { threadId: unknown, server: "codex_apps", uri: "test://codex/resource" })),
        {
          code: -32600,
          message: `thread not found: ${unknown}`
        }
      )
      // D-5 (also with threadId null)
      assert.deepStrictEqual(errorOf(yield* read(app, { originCallId: "x", server: "anything", uri: "u" })), {
        code: -32600,
        message: "originCallId requires threadId"
      })
      assert.deepStrictEqual(
        errorOf(yield* read(app, { threadId: null, originCallId: "x", server: "nope", uri: "u" })),
        {
          code: -32600,
          message: "originCallId requires threadId"
        }
      )
      // D-6
      assert.deepStrictEqual(errorOf(yield* read(app, { server: "nope", uri: "u" })), {
        code: -32603,
        message: "unknown MCP server 'nope'"
      })
      // D-7
      yield* read(app, { threadId, server: "srv", uri: "test://x", connectorId: "c1" })
      yield* read(app, { threadId, server: "srv", uri: "test://x", connectorId: "" })
      yield* read(app, { threadId, server: "srv", uri: "test://x" })
      // D-8
      assert.deepStrictEqual(
        resultOf(yield* read(app, { threadId, originCallId: "best-buy-call", server: "srv", uri: "test://x" })),
        {
          contents: [{ uri: "test://x", text: "x" }],
          originCallId: null
        }
      )
      const reads = readLog(srvLog)
        .filter((r) => r.method === "resources/read")
        .map((r) => r.params)
      assert.deepStrictEqual(reads, [
        {
          uri: "test://x",
          _meta: { "x-codex-turn-metadata": { mcp_request_meta: { selected_connector_ids: ["c1"] } } }
        },
        { uri: "test://x", _meta: { "x-codex-turn-metadata": { mcp_request_meta: { selected_connector_ids: [""] } } } },
        { uri: "test://x" },
        { uri: "test://x" }
      ])
      // D-9
      assert.deepStrictEqual(resultOf(yield* read(app, { threadId, server: "srv", uri: "test://meta" })), {
        contents: [{ uri: "test://meta", text: "m", _meta: { inner: true } }],
        originCallId: null
      })
      // Read failures are -32603 with the chain.
      const missing = errorOf(yield* read(app, { threadId, server: "srv", uri: "test://missing" }))
      assert.strictEqual(missing.code, -32603)
      assert.isTrue(missing.message.startsWith("resources/read failed for `srv` (test://missing): "))
      // D-10
      assert.deepStrictEqual(
        app.messages.filter((m) => typeof m.method === "string" && (m.method as string).startsWith("item/")),
        []
      )
    })
  )
})
