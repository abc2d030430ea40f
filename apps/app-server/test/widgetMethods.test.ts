import { assert, describe, it } from "@effect/vitest"
import {
  cartConnectDomain,
  cartWidgetUri,
  mcpAppMimeType,
  otherWidgetSpec,
  otherWidgetUri,
  priceWidgetUri,
  shopDataUri,
  shopWidgetSpec,
  stdioCommand,
  widgetAppsSpec
} from "@mcp-resources/fixtures"
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

const callTool = (app: AppServer, threadId: string, callId: string, name: string, args: unknown = {}) =>
  Effect.map(
    app.request("tool/call", { threadId, turnId: "t1", callId, name, arguments: JSON.stringify(args) }),
    resultOf
  )

const shopConfig = (dir: string, widgets?: Record<string, unknown>) =>
  writeConfig(dir, {
    mcp_servers: { shop: stdioCommand(shopWidgetSpec()), other: stdioCommand(otherWidgetSpec()) },
    ...(widgets !== undefined ? { widgets } : {})
  })

describe("mcp/widget/*", () => {
  it.scopedLive("reads a call's widget with merged UI metadata, proxies app tools and ui:// reads only", () =>
    Effect.gen(function* () {
      const app = yield* startInitialized({ config: shopConfig(tempDir()) })
      const { threadId } = yield* threadWithTurn(app)
      assert.isTrue(
        (yield* callTool(app, threadId, "cart-call", "mcp__shop__show_cart", { item: "tv" })).success as boolean
      )
      yield* callTool(app, threadId, "price-call", "mcp__shop__show_price")

      const listed = resultOf(yield* app.request("mcp/widget/list", { threadId }))
      assert.deepStrictEqual(listed, {
        widgets: [
          { callId: "cart-call", turnId: "t1", server: "shop", tool: "show_cart", uri: cartWidgetUri },
          { callId: "price-call", turnId: "t1", server: "shop", tool: "show_price", uri: priceWidgetUri }
        ]
      })

      const cart = resultOf(yield* app.request("mcp/widget/read", { threadId, callId: "cart-call" }))
      assert.strictEqual(cart.server, "shop")
      assert.strictEqual(cart.uri, cartWidgetUri)
      assert.strictEqual(cart.mimeType, mcpAppMimeType)
      assert.include(cart.html as string, "<title>Cart</title>")
      // the list entry's prefersBorder stays; the content item's csp wins over the list entry's
      assert.deepStrictEqual(cart.ui, { csp: { connectDomains: [cartConnectDomain] }, prefersBorder: true })
      assert.deepStrictEqual(cart.toolInput, { item: "tv" })
      assert.deepStrictEqual((cart.toolResult as { content: unknown }).content, [
        { type: "text", text: "cart: 2 items" }
      ])

      // an unlisted ui:// resource is read all the same, without metadata
      const price = resultOf(yield* app.request("mcp/widget/read", { threadId, callId: "price-call" }))
      assert.deepStrictEqual(price.ui, {})

      // an app-only tool: called and recorded in the originating call's turn, marked widget-initiated
      const called = resultOf(
        yield* app.request("mcp/widget/callTool", {
          threadId,
          callId: "price-call",
          name: "refresh_price",
          arguments: {}
        })
      )
      assert.deepStrictEqual((called.result as { content: unknown }).content, [{ type: "text", text: "price: 42 EUR" }])
      const completed = app
        .notifications("item/completed")
        .map((m) => m.params as { turnId: string; item: Record<string, unknown> })
        .find((n) => n.item.id === called.itemId)!
      assert.strictEqual(completed.turnId, "t1")
      assert.strictEqual(completed.item.initiator, "widget")
      assert.strictEqual(completed.item.originCallId, "price-call")
      assert.strictEqual(completed.item.tool, "refresh_price")
      assert.strictEqual(completed.item.status, "completed")

      // refusals: a model-only tool, an unknown tool, a non-ui:// resource, another server's resource
      const modelOnly = errorOf(
        yield* app.request("mcp/widget/callTool", { threadId, callId: "cart-call", name: "delete_cart" })
      )
      assert.deepStrictEqual(modelOnly, {
        code: -32600,
        message: 'tool delete_cart is not available to widgets: its _meta.ui.visibility does not include "app"'
      })
      const unknown = errorOf(
        yield* app.request("mcp/widget/callTool", { threadId, callId: "cart-call", name: "nope" })
      )
      assert.strictEqual(unknown.message, "tool nope is not a tool of MCP server shop")
      const data = errorOf(
        yield* app.request("mcp/widget/readResource", { threadId, callId: "cart-call", uri: shopDataUri })
      )
      assert.deepStrictEqual(data, {
        code: -32600,
        message: `a widget may read only ui:// resources of its own server, not ${shopDataUri}`
      })
      const other = errorOf(
        yield* app.request("mcp/widget/readResource", { threadId, callId: "cart-call", uri: otherWidgetUri })
      )
      assert.notInclude(other.message, "<html")
      const own = resultOf(
        yield* app.request("mcp/widget/readResource", { threadId, callId: "cart-call", uri: priceWidgetUri })
      )
      assert.strictEqual((own.contents as Array<{ uri: string }>)[0]!.uri, priceWidgetUri)

      // unknown calls and calls without a widget
      assert.deepStrictEqual(errorOf(yield* app.request("mcp/widget/read", { threadId, callId: "nope" })), {
        code: -32600,
        message: "no completed MCP tool call nope in this thread"
      })
      assert.strictEqual(
        errorOf(yield* app.request("mcp/widget/read", { threadId, callId: called.itemId })).message,
        `MCP tool call ${called.itemId as string} has no UI resource`
      )
    })
  )

  it.scopedLive(
    "host policy: a denied ui:// resource is refused to mcp/widget/read and mcp/widget/readResource alike",
    () =>
      Effect.gen(function* () {
        const config = writeConfig(tempDir(), {
          mcp_servers: {
            shop: { ...stdioCommand(shopWidgetSpec()), resources: { deny: [priceWidgetUri] } },
            other: stdioCommand(otherWidgetSpec())
          }
        })
        const app = yield* startInitialized({ config })
        const { threadId } = yield* threadWithTurn(app)
        yield* callTool(app, threadId, "cart-call", "mcp__shop__show_cart", { item: "tv" })
        yield* callTool(app, threadId, "price-call", "mcp__shop__show_price")
        const denied = `resources/read failed: access to ${priceWidgetUri} is denied by host policy`
        assert.strictEqual(
          errorOf(yield* app.request("mcp/widget/read", { threadId, callId: "price-call" })).message,
          denied
        )
        assert.strictEqual(
          errorOf(yield* app.request("mcp/widget/readResource", { threadId, callId: "cart-call", uri: priceWidgetUri }))
            .message,
          denied
        )
        // what the rules allow is read as before
        const cart = resultOf(yield* app.request("mcp/widget/read", { threadId, callId: "cart-call" }))
        assert.strictEqual(cart.uri, cartWidgetUri)
      })
  )

  it.scopedLive("the apps server's widget goes through the call-scoped read", () =>
    Effect.gen(function* () {
      const config = writeConfig(tempDir(), { mcp_servers: { codex_apps: stdioCommand(widgetAppsSpec()) } })
      const app = yield* startInitialized({ config })
      const { threadId } = yield* threadWithTurn(app)
      yield* callTool(app, threadId, "best-buy-call", "mcp__codex_apps__best_buy_product_search", { query: "tv" })
      const read = resultOf(yield* app.request("mcp/widget/read", { threadId, callId: "best-buy-call" }))
      assert.strictEqual(read.html, "<html>best_buy</html>")
    })
  )

  it.scopedLive("mcp/widget/tools lists the tools that show a widget, with what a page needs to call them", () =>
    Effect.gen(function* () {
      const app = yield* startInitialized({ config: shopConfig(tempDir()) })
      const { threadId } = yield* threadWithTurn(app)
      const listed = resultOf(yield* app.request("mcp/widget/tools", { threadId }))
      const schema = { type: "object", properties: { item: { type: "string" } } }
      // app-only refresh_price and the tools without a ui:// resource are not offered to a user
      assert.deepStrictEqual(listed, {
        tools: [
          {
            server: "shop",
            tool: "show_cart",
            callName: "mcp__shop__show_cart",
            description: "Shows the show_cart widget.",
            inputSchema: schema,
            resourceUri: cartWidgetUri
          },
          {
            server: "shop",
            tool: "show_price",
            callName: "mcp__shop__show_price",
            description: "Shows the show_price widget.",
            inputSchema: schema,
            resourceUri: priceWidgetUri
          }
        ]
      })
      // the call name is the one tool/call takes, and the call's widget is then listed
      const called = yield* callTool(
        app,
        threadId,
        "listed-call",
        (listed.tools as Array<{ callName: string }>)[0]!.callName,
        {
          item: "tv"
        }
      )
      assert.isTrue(called.success as boolean)
      const widgets = resultOf(yield* app.request("mcp/widget/list", { threadId })).widgets as Array<{ uri: string }>
      assert.deepStrictEqual(
        widgets.map((w) => w.uri),
        [cartWidgetUri]
      )
    })
  )

  it.scopedLive("[widgets] enabled = false refuses every widget method", () =>
    Effect.gen(function* () {
      const app = yield* startInitialized({ config: shopConfig(tempDir(), { enabled: false }) })
      const { threadId } = yield* threadWithTurn(app)
      yield* callTool(app, threadId, "cart-call", "mcp__shop__show_cart")
      assert.deepStrictEqual(errorOf(yield* app.request("mcp/widget/read", { threadId, callId: "cart-call" })), {
        code: -32600,
        message: "widgets are disabled ([widgets] enabled = false)"
      })
      assert.deepStrictEqual(errorOf(yield* app.request("mcp/widget/tools", { threadId })), {
        code: -32600,
        message: "widgets are disabled ([widgets] enabled = false)"
      })
    })
  )
})
