/**
 * The widget host end to end in headless Chromium (Debian's `chromium`, never a downloaded build),
 * driven by playwright-core: `mcp-resources widgets` serves the page and the app-server; a test client
 * plays the model (tool calls on the thread) while the page shows the widgets.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process"
import { existsSync, mkdirSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { PromiseClient } from "@mcp-resources/app-server-client"
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
import { type Browser, chromium, type Frame, type Page } from "playwright-core"
import { afterAll, assert, describe, it } from "vitest"
import { tempDir, writeConfig } from "./utils/AppServerProcess.js"

const cliJs = fileURLToPath(new URL("../dist/Cli.js", import.meta.url))
const outDir = fileURLToPath(new URL("../.test-results/widgets/", import.meta.url))
const timeout = 90_000

const findChromium = (): string | undefined => {
  for (const candidate of [process.env.CHROMIUM_PATH, "/usr/bin/chromium", "/usr/bin/chromium-browser"]) {
    if (candidate !== undefined && candidate !== "" && existsSync(candidate)) return candidate
  }
  try {
    const found = execFileSync("sh", ["-c", "command -v chromium || command -v chromium-browser"], { encoding: "utf8" })
    return found.trim() === "" ? undefined : found.trim()
  } catch {
    return undefined
  }
}

const chromiumPath = findChromium()
if (chromiumPath === undefined) {
  process.stderr.write(
    "widgetHost.browser.test: skipped: no chromium found (apt-get install -y chromium, or set CHROMIUM_PATH)\n"
  )
}

interface Host {
  readonly child: ChildProcess
  readonly appServerUrl: string
  readonly pageUrl: string
  readonly stop: () => Promise<void>
}

const children = new Set<ChildProcess>()

/** Starts `mcp-resources widgets` and waits for its two URLs on standard output. */
const startHost = (config: string, dataDir: string): Promise<Host> =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cliJs, "widgets", "--config", config, "--data-dir", dataDir], {
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, MCP_RESOURCES_LOG: "info" }
    })
    children.add(child)
    const exited = new Promise<void>((done) => child.once("exit", () => done()))
    const stop = async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM")
      await exited
      children.delete(child)
    }
    let out = ""
    let err = ""
    const timer = setTimeout(() => {
      void stop()
      reject(new Error(`mcp-resources widgets printed no URLs within ${timeout} ms: ${out}\n${err}`))
    }, timeout)
    child.stderr!.on("data", (chunk: Buffer) => {
      err = (err + chunk.toString("utf8")).slice(-8192)
    })
    child.stdout!.on("data", (chunk: Buffer) => {
      out += chunk.toString("utf8")
      const app = /^app-server: (\S+)$/m.exec(out)
      const page = /^widgets: (\S+)$/m.exec(out)
      if (app !== null && page !== null) {
        clearTimeout(timer)
        resolve({ child, appServerUrl: app[1]!, pageUrl: page[1]!, stop })
      }
    })
    child.once("exit", (code) => {
      clearTimeout(timer)
      reject(new Error(`mcp-resources widgets exited (${code}): ${err}`))
    })
  })

const tokenOf = (pageUrl: string): string => new URLSearchParams(new URL(pageUrl).hash.slice(1)).get("token")!

const withThread = (pageUrl: string, threadId: string): string => {
  const url = new URL(pageUrl)
  url.search = `?thread=${encodeURIComponent(threadId)}`
  return url.href
}

/** The widget's own document (the sandbox proxy's inner iframe) of the call. */
const widgetFrame = async (page: Page, callId: string): Promise<Frame> => {
  const box = `.widget[data-call-id="${callId}"][data-initialized="true"]`
  await page.waitForSelector(box, { timeout })
  const handle = await page.frameLocator(`${box} iframe`).locator("iframe").elementHandle({ timeout })
  const frame = await handle!.contentFrame()
  await frame!.waitForSelector("body[data-initialized='true']", { timeout })
  return frame!
}

/** Waits until the page settled (`ready`, or `failed: …`), and asserts it is ready. */
const pageReady = async (page: Page) => {
  await page.waitForSelector("body[data-status]", { timeout })
  assert.strictEqual(await page.textContent("#status"), "ready")
}

const textOf = async (frame: Frame, selector: string, expected: string) => {
  await frame.waitForFunction(
    ([s, e]) => document.querySelector(s!)?.textContent?.includes(e!) === true,
    [selector, expected],
    { timeout }
  )
  return frame.textContent(selector)
}

/** The view's request through the bridge: its result, or `error: message`. */
const viewRequest = (frame: Frame, method: string, params: unknown) =>
  frame.evaluate(
    ([m, p]) =>
      (window as unknown as { widgetRequest: (m: string, p: unknown) => Promise<unknown> })
        .widgetRequest(m as string, p)
        .then(
          (r) => JSON.stringify(r),
          (e: Error) => `error: ${e.message}`
        ),
    [method, params] as const
  )

let browser: Browser | undefined
afterAll(async () => {
  await browser?.close()
  await Promise.all(
    [...children].map(
      (child) =>
        new Promise<void>((done) => {
          if (child.exitCode !== null || child.signalCode !== null) return done()
          child.once("exit", () => done())
          child.kill("SIGKILL")
        })
    )
  )
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
    browser = await chromium.launch({
      executablePath: chromiumPath!,
      args: [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run"
      ],
      timeout
    })

    let host = await startHost(config, dataDir)
    const client = await PromiseClient.connectWebSocket(
      { url: host.appServerUrl, token: tokenOf(host.pageUrl) },
      { requestTimeoutMs: timeout }
    )
    let threadId: string
    try {
      await client.initialize({ name: "widget-host-test" })
      // both fixture servers ready first (a tool of a server still starting is not offered yet)
      const deadline = Date.now() + timeout
      for (;;) {
        const { servers } = await client.request("mcpServer/list", {})
        if (servers.every((s) => s.status === "ready")) break
        assert.isFalse(
          servers.some((s) => s.status === "failed"),
          `a server failed: ${JSON.stringify(servers)}`
        )
        assert.isBelow(Date.now(), deadline, `servers not ready: ${JSON.stringify(servers)}`)
        await new Promise((done) => setTimeout(done, 100))
      }
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
      // each widget runs on the sandbox origin, not the page's
      const widgetOrigin = await cart.evaluate(() => window.origin)
      assert.match(widgetOrigin, /^http:\/\/127\.0\.0\.1:\d+$/)
      assert.notStrictEqual(widgetOrigin, new URL(host.pageUrl).origin)

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
