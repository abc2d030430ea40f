import { assert, describe, it } from "@effect/vitest"
import { type FixtureSpec, stdioCommand, widgetAppsSpec, widgetUri } from "@mcp-resources/fixtures"
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

const appOnly = (spec: FixtureSpec, tool: string): FixtureSpec => ({
  ...spec,
  tools: spec.tools!.map((t) =>
    t.name === tool ? { ...t, _meta: { ...t._meta, ui: { ...(t._meta?.ui as object), visibility: ["app"] } } } : t
  )
})

const call = (app: AppServer, threadId: string, callId: string, tool: string, args: unknown) =>
  Effect.map(
    app.request("tool/call", {
      threadId,
      turnId: "t1",
      callId,
      name: `mcp__codex_apps__${tool}`,
      arguments: JSON.stringify(args)
    }),
    resultOf
  )

const widgetRead = (app: AppServer, threadId: string, originCallId: string, uri = widgetUri) =>
  app.request("mcp/resource/read", { threadId, originCallId, server: "codex_apps", uri })

const expectWidgets = (app: AppServer, threadId: string) =>
  Effect.gen(function* () {
    assert.deepStrictEqual(resultOf(yield* widgetRead(app, threadId, "best-buy-call")), {
      contents: [{ uri: widgetUri, mimeType: "text/html", text: "<html>best_buy</html>" }],
      originCallId: "best-buy-call"
    })
    assert.deepStrictEqual(resultOf(yield* widgetRead(app, threadId, "walmart-call")), {
      contents: [{ uri: widgetUri, mimeType: "text/html", text: "<html>walmart</html>" }],
      originCallId: "walmart-call"
    })
  })

for (const ephemeral of [false, true]) {
  describe(`widget flow (ephemeral: ${ephemeral})`, () => {
    it.scopedLive(`W-1..W-8: tool items carry the app context and widgets read through their originating call`, () =>
      Effect.gen(function* () {
        const dir = tempDir()
        const dataDir = tempDir()
        const config = writeConfig(dir, { mcp_servers: { codex_apps: stdioCommand(widgetAppsSpec()) } })
        const app = yield* startInitialized({ config, dataDir })
        const { threadId } = yield* threadWithTurn(app, { ephemeral })
        // W-1
        assert.isTrue(
          (yield* call(app, threadId, "best-buy-call", "best_buy_product_search", { query: "tv" })).success as boolean
        )
        assert.isTrue(
          (yield* call(app, threadId, "walmart-call", "walmart_product_search", { query: "tv" })).success as boolean
        )
        const failed = yield* call(app, threadId, "failed-call", "best_buy_product_search", { query: "fail" })
        assert.isFalse(failed.success as boolean)
        yield* call(app, threadId, "ambiguous-account-call", "walmart_product_search", {
          query: "tv",
          link_id: "link_other"
        })
        const completed = app
          .notifications("item/completed")
          .map((m) => (m.params as { item: Record<string, unknown> }).item)
        const byId = new Map(completed.map((item) => [item.id as string, item]))
        assert.deepStrictEqual(
          [
            byId.get("best-buy-call")!.connectorId,
            byId.get("best-buy-call")!.linkId,
            byId.get("best-buy-call")!.mcpAppResourceUri
          ],
          ["best_buy", "link_best_buy", widgetUri]
        )
        assert.strictEqual(byId.get("walmart-call")!.connectorId, "walmart")
        assert.strictEqual(byId.get("failed-call")!.status, "failed")
        assert.notStrictEqual(byId.get("failed-call")!.result, null)
        // W-2
        yield* expectWidgets(app, threadId)
        // W-3, W-4, W-5
        const w3 = errorOf(yield* widgetRead(app, threadId, "failed-call"))
        assert.strictEqual(w3.code, -32603)
        assert.include(w3.message, "was not found")
        const w4 = errorOf(yield* widgetRead(app, threadId, "walmart-call", "ui://widget/wrong.html"))
        assert.include(w4.message, "does not match")
        const w5 = errorOf(yield* widgetRead(app, threadId, "ambiguous-account-call"))
        assert.include(w5.message, "ambiguous account")
        // W-6
        assert.deepStrictEqual(
          errorOf(
            yield* app.request("mcp/resource/read", {
              originCallId: "best-buy-call",
              server: "codex_apps",
              uri: widgetUri
            })
          ),
          { code: -32600, message: "originCallId requires threadId" }
        )
        if (ephemeral) return
        // W-7
        assert.deepStrictEqual(resultOf(yield* app.request("thread/compact", { threadId })), {})
        yield* app.request("turn/start", { threadId, turnId: "t2" })
        yield* expectWidgets(app, threadId)
        // W-8
        yield* app.endInput
        assert.strictEqual(yield* app.exited(), 0)
        writeConfig(dir, {
          mcp_servers: { codex_apps: stdioCommand(appOnly(widgetAppsSpec(), "best_buy_product_search")) }
        })
        const again = yield* startInitialized({ config, dataDir })
        assert.deepStrictEqual(resultOf(yield* again.request("thread/resume", { threadId })), {
          thread: { id: threadId, ephemeral: false }
        })
        yield* expectWidgets(again, threadId)
        yield* again.request("turn/start", { threadId, turnId: "t3" })
        const names = (resultOf(yield* again.request("tool/list", { threadId })).tools as Array<{ name: string }>).map(
          (t) => t.name
        )
        assert.include(names, "mcp__codex_apps__walmart_product_search")
        assert.notInclude(names, "mcp__codex_apps__best_buy_product_search")
      })
    )
  })
}
