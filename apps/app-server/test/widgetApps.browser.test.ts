/**
 * A third-party MCP App in the widget host, in headless Chromium: `@modelcontextprotocol/server-basic-vanillajs`
 * (the ext-apps example "Get Time App", from npm) over stdio. Its view calls its server's tool through
 * the bridge, its `ui/open-link` opens a link only after the user confirms it on the page, and the page
 * keeps its thread across a reload (`?thread=ID`).
 */
import { createServer } from "node:http"
import { createRequire } from "node:module"
import { dirname, join } from "node:path"
import type { ToolCallItem } from "@mcp-resources/protocol"
import type { Browser } from "playwright-core"
import { afterAll, assert, describe, it } from "vitest"
import { tempDir, writeConfig } from "./utils/AppServerProcess.js"
import {
  chromiumPath,
  connectClient,
  killHosts,
  launch,
  pageReady,
  skipReason,
  startHost,
  timeout,
  widgetFrame
} from "./utils/WidgetBrowser.js"

skipReason("widgetApps.browser.test")

// the package exports only its server module (dist/server.js); its stdio entry point sits beside it
const require = createRequire(import.meta.url)
const basicServer = join(dirname(require.resolve("@modelcontextprotocol/server-basic-vanillajs")), "index.js")

let browser: Browser | undefined
const closers: Array<() => Promise<void>> = []
afterAll(async () => {
  await browser?.close()
  await killHosts()
  for (const c of closers) await c()
})

describe.skipIf(chromiumPath === undefined)("a third-party MCP App in Chromium", () => {
  it("calls its server's tool, and opens a link only after the user confirms it", { timeout: 300_000 }, async () => {
    // the links point at a loopback server: what it receives is what was opened
    const opened: Array<string> = []
    const site = createServer((req, res) => {
      opened.push(req.url ?? "")
      res.end("opened")
    })
    await new Promise<void>((done) => site.listen(0, "127.0.0.1", done))
    closers.push(() => new Promise<void>((done) => site.close(() => done())))
    const siteUrl = `http://127.0.0.1:${(site.address() as { port: number }).port}`

    const config = writeConfig(tempDir("widget-apps-test-"), {
      mcp_servers: { basic: { command: process.execPath, args: [basicServer, "--stdio"], startup_timeout_sec: 60 } }
    })
    browser = await launch()
    const host = await startHost(config, tempDir("widget-apps-data-"))
    const client = await connectClient(host)
    const widgetItems: Array<ToolCallItem.McpToolCallItem> = []
    const itemSeen: Array<() => void> = []
    client.onNotification((n) => {
      if (n.method !== "item/completed") return
      const item = (n.params as { item: ToolCallItem.McpToolCallItem }).item
      if (item.initiator === "widget") widgetItems.push(item)
      for (const w of itemSeen.splice(0)) w()
    })
    try {
      // the page opened without a thread starts one and keeps it in its URL (?thread=ID)
      const page = await browser.newPage()
      await page.goto(host.pageUrl, { timeout })
      await pageReady(page)
      const threadId = new URL(page.url()).searchParams.get("thread")!
      assert.strictEqual(await page.textContent("#thread"), threadId)
      await client.request("thread/resume", { threadId })
      await client.request("turn/start", { threadId, turnId: "t1" })
      const result = await client.request("tool/call", {
        threadId,
        turnId: "t1",
        callId: "time-call",
        name: "mcp__basic__get-time",
        arguments: "{}"
      })
      assert.isTrue(result.success, result.output)
      const view = await widgetFrame(page, "time-call", "#get-time-btn")

      // the view's own tool call goes through the bridge and is recorded as the widget's
      await view.click("#get-time-btn")
      await new Promise<void>((resolve) => {
        const check = () => (widgetItems.length > 0 ? resolve() : itemSeen.push(check))
        check()
      })
      assert.deepStrictEqual(
        widgetItems.map((i) => [i.originCallId, i.tool, i.status]),
        [["time-call", "get-time", "completed"]]
      )

      // a link the user cancels is never opened; the one the user confirms is
      const box = '.widget[data-call-id="time-call"]'
      await view.fill("#link-url", `${siteUrl}/cancelled`)
      await view.click("#open-link-btn")
      await page.click(`${box} .confirm-link[data-url="${siteUrl}/cancelled"] button[data-action="cancel"]`, {
        timeout
      })
      await page.waitForSelector(`${box} .confirm-link`, { state: "detached", timeout })
      await view.fill("#link-url", `${siteUrl}/confirmed`)
      await view.click("#open-link-btn")
      const popup = page.waitForEvent("popup", { timeout })
      await page.click(`${box} .confirm-link[data-url="${siteUrl}/confirmed"] button[data-action="open"]`, {
        timeout
      })
      const tab = await popup
      await tab.waitForLoadState("load", { timeout })
      assert.strictEqual(tab.url(), `${siteUrl}/confirmed`)
      assert.deepStrictEqual(
        opened.filter((u) => u !== "/favicon.ico"),
        ["/confirmed"]
      )
      // a reload resumes the same thread and shows its widget again
      await page.reload({ timeout })
      await pageReady(page)
      assert.strictEqual(await page.textContent("#thread"), threadId)
      await widgetFrame(page, "time-call", "#get-time-btn")
      await page.close()
    } finally {
      await client.close()
      await host.stop()
    }
  })
})
