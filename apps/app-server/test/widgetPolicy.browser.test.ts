/**
 * Host policy on a widget's own tool calls, in headless Chromium (docs/policy.md, "Widgets' tool calls"):
 * the price widget calls `buy` and `refresh_price` through the MCP Apps bridge (`tools/call` from its
 * iframe, `mcp/widget/callTool` on the app-server). A `before_tool` hook denies `buy`: the widget gets
 * the hook's reason as an error and the server never sees the call; an `after_tool` hook redacts the
 * coupon in what the widget renders; `mcp-resources audit` names both decisions.
 */
import { execFile } from "node:child_process"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { type FixtureSpec, readLog, shopWidgetSpec, stdioCommand } from "@mcp-resources/fixtures"
import { Messages } from "@mcp-resources/protocol"
import type { Browser } from "playwright-core"
import { afterAll, assert, describe, it } from "vitest"
import { tempDir, writeConfig } from "./utils/AppServerProcess.js"
import {
  chromiumPath,
  cliJs,
  connectClient,
  killHosts,
  launch,
  pageReady,
  skipReason,
  startHost,
  timeout,
  viewRequest,
  widgetFrame,
  withThread
} from "./utils/WidgetBrowser.js"

skipReason("widgetPolicy.browser.test")

/** The shop with `buy` (model and app) and an app-only `refresh_price` whose result holds a secret. */
const shopSpec = (): FixtureSpec => {
  const base = shopWidgetSpec()
  return {
    ...base,
    tools: [
      ...(base.tools ?? []).filter((tool) => tool.name !== "refresh_price"),
      {
        name: "refresh_price",
        description: "Refreshes the price (for the price widget only).",
        _meta: { ui: { visibility: ["app"] } },
        result: {
          content: [{ type: "text", text: "price: 42 EUR, coupon hunter2" }],
          structuredContent: { price: 42, currency: "EUR", coupon: "hunter2" }
        }
      },
      {
        name: "buy",
        description: "Buys the cart.",
        _meta: { ui: { visibility: ["model", "app"] } },
        result: { content: [{ type: "text", text: "bought" }] }
      }
    ]
  }
}

/** Denies `buy`; the after hook redacts `hunter2`. */
const beforeScript = `let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{const c=JSON.parse(s);
if(c.tool==="mcp__shop__buy")process.stdout.write(JSON.stringify({decision:"deny",reason:"no purchases"}))})`
const afterScript = `process.stdin.resume();process.stdin.on("end",()=>process.stdout.write('{"decision":"redact","redact":["hunter2"]}'))`

/** `mcp-resources audit THREAD` (the host stopped: its SQLite store is free). */
const audit = (threadId: string, config: string, dataDir: string) =>
  new Promise<string>((resolve, reject) => {
    execFile(
      process.execPath,
      [cliJs, "audit", threadId, "--config", config, "--data-dir", dataDir],
      { cwd: tempDir("widget-policy-cwd-"), timeout, encoding: "utf8" },
      (error, stdout, stderr) =>
        error ? reject(new Error(`audit failed: ${error.message}\n${stderr}`)) : resolve(stdout)
    )
  })

let browser: Browser | undefined
afterAll(async () => {
  await browser?.close()
  await killHosts()
})

describe.skipIf(chromiumPath === undefined)("host policy on a widget's tool calls in Chromium", () => {
  it("denies the widget's call before the server sees it, redacts what it renders, and audits both", {
    timeout: 400_000
  }, async () => {
    const dir = tempDir("widget-policy-test-")
    const dataDir = tempDir("widget-policy-data-")
    writeFileSync(join(dir, "before.cjs"), beforeScript)
    writeFileSync(join(dir, "after.cjs"), afterScript)
    const shopLog = join(dir, "shop.log")
    const config = writeConfig(dir, {
      hooks: {
        before_tool: [{ command: process.execPath, args: [join(dir, "before.cjs")] }],
        after_tool: [{ command: process.execPath, args: [join(dir, "after.cjs")], matcher: "^mcp__shop__" }]
      },
      // a loaded CI machine may take more than the default 10 s to start a fixture
      mcp_servers: { shop: { ...stdioCommand(shopSpec(), { logFile: shopLog }), startup_timeout_sec: 60 } }
    })
    browser = await launch()
    const host = await startHost(config, dataDir)
    const client = await connectClient(host)
    let threadId: string
    try {
      threadId = (await client.request("thread/start", {})).thread.id
      await client.request("turn/start", { threadId, turnId: "t1" })
      const page = await browser.newPage()
      await page.goto(withThread(host.pageUrl, threadId), { timeout })
      await pageReady(page)
      const shown = await client.request("tool/call", {
        threadId,
        turnId: "t1",
        callId: "price-call",
        name: "mcp__shop__show_price",
        arguments: "{}"
      })
      assert.isTrue(shown.success, shown.output)
      const price = await widgetFrame(page, "price-call")

      // the widget's `buy` is refused with the hook's reason before the server sees it (the fixture
      // logs each request as it receives it, before answering): the view shows the error
      const called = (name: string) =>
        price.evaluate(
          (n) =>
            (window as unknown as { widgetCallTool: (n: string) => Promise<string> }).widgetCallTool(n).then(
              (text) => `ok: ${text}`,
              (e: Error) => `error: ${e.message}`
            ),
          name
        )
      const bought = await called("buy")
      const toolCalls = () =>
        readLog(shopLog)
          .filter((r) => r.method === "tools/call")
          .map((r) => (r.params as { name: string }).name)
      assert.deepStrictEqual(toolCalls(), ["show_price"], "the server received the denied buy")
      const denied = Messages.policy.hookDenied("no purchases")
      assert.strictEqual(bought, `error: ${denied}`)
      assert.strictEqual(await price.textContent("#app"), `error: ${denied}`)
      // and the page lists the widget's call as failed
      await page.waitForSelector("#items li[data-status='failed']:has-text('buy')", { timeout })

      // the widget's `refresh_price` runs, its result redacted in the text and the structuredContent
      assert.strictEqual(await called("refresh_price"), "ok: price: 42 EUR, coupon [redacted]")
      assert.strictEqual(await price.textContent("#app"), "price: 42 EUR, coupon [redacted]")
      const answer = await viewRequest(price, "tools/call", { name: "refresh_price", arguments: {} })
      assert.notMatch(answer, /^error: /)
      const raw = JSON.parse(answer) as { content: unknown; structuredContent: unknown }
      assert.deepStrictEqual(
        [raw.content, raw.structuredContent],
        [
          [{ type: "text", text: "price: 42 EUR, coupon [redacted]" }],
          { price: 42, currency: "EUR", coupon: "[redacted]" }
        ]
      )
      assert.notInclude(await price.content(), "hunter2")
      assert.notInclude(await page.content(), "hunter2")

      // the server still never saw `buy`, and saw each refresh_price
      assert.deepStrictEqual(toolCalls(), ["show_price", "refresh_price", "refresh_price"])
      await page.close()
    } finally {
      await client.close()
      await host.stop()
    }

    // the audit tells the truth about the widget's calls
    const printed = await audit(threadId, config, dataDir)
    assert.notInclude(printed, "no policy configured")
    assert.notInclude(printed, "hunter2")
    const blocks = printed.split("\nt1  ")
    const buyBlock = blocks.find((block) => block.includes("  buy  "))
    assert.isDefined(buyBlock, printed)
    assert.include(buyBlock, "  caller: the widget of call price-call")
    assert.include(buyBlock, "  before_tool[0]: deny: no purchases")
    assert.include(buyBlock, "  server request: no")
    const refreshBlocks = blocks.filter((block) => block.includes("refresh_price"))
    assert.lengthOf(refreshBlocks, 2, printed)
    for (const block of refreshBlocks) {
      assert.include(block, "  caller: the widget of call price-call")
      assert.include(block, "  after_tool[0]: redact: 2 strings")
      assert.include(block, "  server request: yes")
    }
  })
})
