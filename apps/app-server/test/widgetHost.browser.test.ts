/**
 * The widget host end to end in headless Chromium (Debian's `chromium`, never a downloaded build),
 * driven by playwright-core: `mcp-resources widgets` serves the page and the app-server; a test client
 * plays the model (tool calls on the thread) while the page shows the widgets.
 */
import { mkdirSync } from "node:fs"
import {
  cartConnectDomain,
  cartListConnectDomain,
  otherWidgetSpec,
  otherWidgetUri,
  shopDataUri,
  shopWidgetSpec,
  stdioCommand,
  undeclaredUrl
} from "@mcp-resources/fixtures"
import type { Browser } from "playwright-core"
import { afterAll, assert, describe, it } from "vitest"
import { tempDir, writeConfig } from "./utils/AppServerProcess.js"
import {
  chromiumPath,
  connectClient,
  killHosts,
  launch,
  outDir,
  pageReady,
  skipReason,
  startHost,
  textOf,
  timeout,
  viewRequest,
  widgetFrame,
  withThread
} from "./utils/WidgetBrowser.js"

skipReason("widgetHost.browser.test")

let browser: Browser | undefined
afterAll(async () => {
  await browser?.close()
  await killHosts()
})

describe.skipIf(chromiumPath === undefined)("widget host in Chromium", () => {
  it("shows both widgets, proxies the view's requests under the rules, enforces the CSP, and survives a restart", {
    timeout: 400_000
  }, async () => {
    mkdirSync(outDir, { recursive: true })
    const dir = tempDir("widget-host-test-")
    const dataDir = tempDir("widget-host-data-")
    const config = writeConfig(dir, {
      // a loaded CI machine may take more than the default 10 s to start a fixture
      mcp_servers: {
        shop: { ...stdioCommand(shopWidgetSpec()), startup_timeout_sec: 60 },
        other: { ...stdioCommand(otherWidgetSpec()), startup_timeout_sec: 60 }
      }
    })
    browser = await launch()

    let host = await startHost(config, dataDir)
    const client = await connectClient(host)
    let threadId: string
    try {
      threadId = (await client.request("thread/start", {})).thread.id
      await client.request("turn/start", { threadId, turnId: "t1" })

      const page = await browser.newPage()
      await page.goto(withThread(host.pageUrl, threadId), { timeout })
      await pageReady(page)

      // the model calls two widget tools: the page shows both widgets with their input and result
      const call = (callId: string, tool: string, args: unknown) =>
        client.request("tool/call", { threadId, turnId: "t1", callId, name: tool, arguments: JSON.stringify(args) })
      const cartCall = await call("cart-call", "mcp__shop__show_cart", { item: "tv" })
      assert.isTrue(cartCall.success, cartCall.output)
      const priceCall = await call("price-call", "mcp__shop__show_price", { item: "radio" })
      assert.isTrue(priceCall.success, priceCall.output)
      const cart = await widgetFrame(page, "cart-call")
      const price = await widgetFrame(page, "price-call")
      assert.strictEqual(await textOf(cart, "#input", "tv"), '{"item":"tv"}')
      assert.strictEqual(await textOf(cart, "#result", "cart"), "cart: 2 items")
      assert.strictEqual(await textOf(price, "#result", "price"), "price: 40 EUR")
      // each widget runs on an origin of its own (a loopback name), not the page's nor another widget's
      const cartOrigin = await cart.evaluate(() => window.origin)
      const priceOrigin = await price.evaluate(() => window.origin)
      assert.match(cartOrigin, /^http:\/\/[a-z0-9]{32}\.localhost:\d+$/)
      assert.match(priceOrigin, /^http:\/\/[a-z0-9]{32}\.localhost:\d+$/)
      assert.notStrictEqual(cartOrigin, priceOrigin)
      assert.notStrictEqual(cartOrigin, new URL(host.pageUrl).origin)

      // a widget calls an app-only tool and renders its result; the call is an item of the page's thread
      await price.evaluate(() =>
        (window as unknown as { widgetCallTool: (n: string) => Promise<string> }).widgetCallTool("refresh_price")
      )
      assert.strictEqual(await textOf(price, "#app", "42"), "price: 42 EUR")
      await page.waitForSelector("#items li[data-status='completed']:has-text('refresh_price')", { timeout })

      // refused: a model-only tool, a non-ui:// resource, another server's ui:// resource
      const modelOnly = await viewRequest(cart, "tools/call", { name: "delete_cart", arguments: {} })
      assert.include(
        modelOnly,
        'tool delete_cart is not available to widgets: its _meta.ui.visibility does not include "app"'
      )
      const data = await viewRequest(cart, "resources/read", { uri: shopDataUri })
      assert.include(data, `a widget may read only ui:// resources of its own server, not ${shopDataUri}`)
      const other = await viewRequest(cart, "resources/read", { uri: otherWidgetUri })
      assert.match(other, /^error: /)
      // its own server's ui:// resources are readable
      assert.include(await viewRequest(cart, "resources/read", { uri: "ui://shop/price.html" }), "ui://shop/price.html")

      // the price widget fetched an undeclared domain on load: its CSP blocked it
      const csp = await textOf(price, "#csp", "connect-src")
      assert.include(csp, `connect-src ${new URL(undeclaredUrl).origin}`)
      // the cart's policy holds the connect domain its content item declared (over its list entry's)
      const cartPolicy = await cart.evaluate(
        () => document.querySelector<HTMLMetaElement>('meta[http-equiv="Content-Security-Policy"]')?.content ?? ""
      )
      assert.include(cartPolicy, `connect-src ${cartConnectDomain};`)
      assert.notInclude(cartPolicy, cartListConnectDomain)
      await page.screenshot({ path: `${outDir}widgets.png`, fullPage: true })
      await page.close()
    } finally {
      await client.close()
    }

    // a restart: a new app-server process, token and ports; the persistent thread shows its widgets again
    await host.stop()
    host = await startHost(config, dataDir)
    const again = await browser.newPage()
    await again.goto(withThread(host.pageUrl, threadId), { timeout })
    await pageReady(again)
    const cartAgain = await widgetFrame(again, "cart-call")
    const priceAgain = await widgetFrame(again, "price-call")
    assert.strictEqual(await textOf(cartAgain, "#result", "cart"), "cart: 2 items")
    assert.strictEqual(await textOf(priceAgain, "#result", "price"), "price: 40 EUR")
    await again.screenshot({ path: `${outDir}widgets-after-restart.png`, fullPage: true })
    await again.close()
    await host.stop()
  })
})
