/**
 * The widget page on its own (no model driving the thread), in headless Chromium, with the third-party
 * MCP App `@modelcontextprotocol/server-basic-vanillajs` from npm over stdio: the page lists the app's
 * widget tool, calls it from the form built from its input schema and shows its widget; the view's
 * `ui/message` becomes an entry of the page's conversation; and a headless load that takes the page at
 * `load` (`chromium --headless --dump-dom`) finds it ready.
 */
import { execFile } from "node:child_process"
import { createRequire } from "node:module"
import { dirname, join } from "node:path"
import { shopWidgetSpec, stdioCommand } from "@mcp-resources/fixtures"
import type { Browser } from "playwright-core"
import { afterAll, assert, beforeAll, describe, it } from "vitest"
import { tempDir, writeConfig } from "./utils/AppServerProcess.js"
import {
  chromiumPath,
  connectClient,
  type Host,
  killHosts,
  launch,
  pageReady,
  skipReason,
  startHost,
  textOf,
  timeout,
  widgetFrame
} from "./utils/WidgetBrowser.js"

skipReason("widgetPage.browser.test")

const require = createRequire(import.meta.url)
const basicServer = join(dirname(require.resolve("@modelcontextprotocol/server-basic-vanillajs")), "index.js")

let browser: Browser | undefined
let host: Host | undefined

beforeAll(async () => {
  if (chromiumPath === undefined) return
  const config = writeConfig(tempDir("widget-page-test-"), {
    mcp_servers: { basic: { command: process.execPath, args: [basicServer, "--stdio"], startup_timeout_sec: 60 } }
  })
  host = await startHost(config, tempDir("widget-page-data-"))
  // the app's server ready first, so that the page's tool list is complete
  const client = await connectClient(host)
  await client.close()
}, 200_000)

afterAll(async () => {
  await browser?.close()
  await host?.stop()
  await killHosts()
})

/** `chromium --headless --dump-dom URL`: the DOM as the browser has it once the page has loaded. */
const dumpDom = (url: string): Promise<string> =>
  new Promise((resolve, reject) => {
    execFile(
      chromiumPath!,
      ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-sync", "--dump-dom", url],
      { timeout, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout) => (error === null ? resolve(stdout) : reject(error))
    )
  })

describe.skipIf(chromiumPath === undefined)("the widget page on its own", () => {
  it("lists the app's widget tool, calls it from its form, shows its widget and puts its ui/message in the conversation", {
    timeout: 300_000
  }, async () => {
    browser = await launch()
    const page = await browser.newPage()
    await page.goto(host!.pageUrl, { timeout })
    await pageReady(page)
    const form = 'form.tool[data-server="basic"][data-tool="get-time"]'
    assert.include(await page.textContent(form), "basic · Get Time")

    // the form's submit is the user's call of the tool; its widget shows as a model's call's would
    await page.click(`${form} button[type="submit"]`, { timeout })
    await page.waitForSelector(`${form}[data-state="completed"]`, { timeout })
    const callId = (await page.getAttribute(form, "data-call-id"))!
    assert.match(callId, /^page-/)
    await page.waitForSelector(`#items li[data-call-id="${callId}"][data-status="completed"]`, { timeout })
    const view = await widgetFrame(page, callId, "#get-time-btn")

    // the view's ui/message reaches the page's conversation, and the view gets its answer
    await view.fill("#message-text", "hello from the view")
    await view.click("#send-message-btn")
    const entry = `#conversation li.message[data-call-id="${callId}"][data-role="user"]`
    assert.include(await textOf(page.mainFrame(), entry, "hello from the view"), "from the widget of basic · get-time")
    await page.close()
  })

  it("a tool's string field is sent as its argument and reaches the widget as its input", {
    timeout: 300_000
  }, async () => {
    const config = writeConfig(tempDir("widget-page-shop-"), {
      mcp_servers: { shop: { ...stdioCommand(shopWidgetSpec()), startup_timeout_sec: 60 } }
    })
    const shop = await startHost(config, tempDir("widget-page-shop-data-"))
    try {
      await (await connectClient(shop)).close()
      browser ??= await launch()
      const page = await browser.newPage()
      await page.goto(shop.pageUrl, { timeout })
      await pageReady(page)
      const form = 'form.tool[data-server="shop"][data-tool="show_cart"]'
      await page.fill(`${form} input[name="item"]`, "tv")
      await page.click(`${form} button[type="submit"]`, { timeout })
      await page.waitForSelector(`${form}[data-state="completed"]`, { timeout })
      const callId = (await page.getAttribute(form, "data-call-id"))!
      const view = await widgetFrame(page, callId)
      assert.strictEqual(await textOf(view, "#input", "tv"), JSON.stringify({ item: "tv" }))
      await page.close()
    } finally {
      await shop.stop()
    }
  })

  it("a headless load that takes the page at load (--dump-dom) finds it ready, with its tools listed", {
    timeout: 200_000
  }, async () => {
    const dom = await dumpDom(host!.pageUrl)
    assert.include(dom, 'data-status="ready"')
    assert.include(dom, 'data-tool="get-time"')
  })
})
