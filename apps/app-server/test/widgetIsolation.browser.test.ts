/**
 * Widgets attacked from inside, in headless Chromium (issue 46, items 1 and 2): a hostile server's
 * widget tries every path found to reach another widget, another widget's bridge or another server's
 * tools, and every way to send a request past its CSP through its proxy parent (or by navigating), to a
 * loopback listener that must stay silent. Silence is shown by ordering: once every attempt has settled
 * in the browser, a sentinel request is sent, and it must be the first thing the listener ever saw.
 */
import { mkdirSync } from "node:fs"
import { createServer, type Server, type Socket } from "node:net"
import type { ToolCallItem } from "@mcp-resources/protocol"
import { hostileWidgetSpec, shopWidgetSpec, stdioCommand } from "@mcp-resources/fixtures"
import type { Browser, Frame, Page } from "playwright-core"
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
  widgetFrame,
  withThread
} from "./utils/WidgetBrowser.js"

skipReason("widgetIsolation.browser.test")

/** A TCP listener that records the first line of every connection, in arrival order. */
const startListener = async () => {
  const seen: Array<string> = []
  const waiters: Array<() => void> = []
  const sockets = new Set<Socket>()
  const server: Server = createServer((socket) => {
    sockets.add(socket)
    socket.once("close", () => sockets.delete(socket))
    let head = ""
    let recorded = false
    const record = (line: string) => {
      if (recorded) return
      recorded = true
      seen.push(line)
      for (const w of waiters.splice(0)) w()
    }
    socket.on("data", (chunk: Buffer) => {
      head += chunk.toString("latin1")
      const end = head.indexOf("\r\n")
      if (end >= 0) {
        record(head.slice(0, end))
        socket.end("HTTP/1.1 204 No Content\r\nconnection: close\r\n\r\n")
      }
    })
    // a connection that sends nothing still counts
    socket.once("end", () => record("(a connection without a request line)"))
    socket.on("error", () => {})
  })
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done))
  const port = (server.address() as { port: number }).port
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    /** Resolves with the first line of the first connection (at once when one already came). */
    first: () =>
      new Promise<string>((resolve) => {
        if (seen.length > 0) return resolve(seen[0]!)
        waiters.push(() => resolve(seen[0]!))
      }),
    close: () =>
      new Promise<void>((done) => {
        for (const s of sockets) s.destroy()
        server.close(() => done())
      })
  }
}

let browser: Browser | undefined
const cleanups: Array<() => Promise<void>> = []
afterAll(async () => {
  await browser?.close()
  await killHosts()
  for (const c of cleanups) await c()
})

/** Fails with what the listener received as soon as it receives anything but the sentinel. */
const silence = (listener: Awaited<ReturnType<typeof startListener>>) => {
  const escaped = listener.first().then((line) => {
    if (line.includes("/sentinel")) return new Promise<never>(() => {})
    throw new Error(`the listener received a request from the widget: ${line}`)
  })
  // raced below; a rejection outside a race is reported by the final assertion on `seen`
  escaped.catch(() => {})
  return escaped
}

const attacksOf = async (frame: Frame): Promise<Record<string, string>> =>
  JSON.parse((await frame.textContent("#attacks")) ?? "{}") as Record<string, string>

/** The next navigation of any frame of the page to an error page or to `origin` (a blocked or an escaped one). */
const blockedOrEscaped = (page: Page, origin: string) =>
  page.waitForEvent("framenavigated", {
    predicate: (f) => f.url().startsWith("chrome-error:") || f.url().startsWith(origin),
    timeout
  })

/** `mcp-resources widgets` with `shop` and the hostile `evil`, a page on a new thread, and the two `shop` widgets shown. */
const setUp = async (listenerUrl: string) => {
  const dir = tempDir("widget-isolation-test-")
  const config = writeConfig(dir, {
    mcp_servers: {
      shop: { ...stdioCommand(shopWidgetSpec()), startup_timeout_sec: 60 },
      evil: { ...stdioCommand(hostileWidgetSpec(listenerUrl)), startup_timeout_sec: 60 }
    }
  })
  browser ??= await launch()
  const host = await startHost(config, tempDir("widget-isolation-data-"))
  const client = await connectClient(host)
  // every widget-initiated item, in arrival order
  const widgetItems: Array<ToolCallItem.McpToolCallItem> = []
  const itemWaiters: Array<() => void> = []
  client.onNotification((n) => {
    if (n.method !== "item/started") return
    const item = (n.params as { item: ToolCallItem.McpToolCallItem }).item
    if (item.initiator !== "widget") return
    widgetItems.push(item)
    for (const w of itemWaiters.splice(0)) w()
  })
  const widgetItem = (predicate: (item: ToolCallItem.McpToolCallItem) => boolean) =>
    new Promise<void>((resolve) => {
      const check = () => (widgetItems.some(predicate) ? resolve() : itemWaiters.push(check))
      check()
    })
  const threadId = (await client.request("thread/start", {})).thread.id
  await client.request("turn/start", { threadId, turnId: "t1" })
  const page = await browser.newPage()
  await page.goto(withThread(host.pageUrl, threadId), { timeout })
  await pageReady(page)
  const call = async (callId: string, tool: string, args: unknown) => {
    const result = await client.request("tool/call", {
      threadId,
      turnId: "t1",
      callId,
      name: tool,
      arguments: JSON.stringify(args)
    })
    assert.isTrue(result.success, result.output)
  }
  // the victims: two widgets of `shop`, whose app-only tool `refresh_price` the hostile widget wants
  await call("cart-call", "mcp__shop__show_cart", { item: "tv" })
  await call("price-call", "mcp__shop__show_price", { item: "radio" })
  const cart = await widgetFrame(page, "cart-call")
  const price = await widgetFrame(page, "price-call")
  assert.strictEqual(await textOf(cart, "#result", "cart"), "cart: 2 items")
  const tearDown = async () => {
    await page.close()
    await client.close()
    await host.stop()
  }
  return { page, call, price, widgetItems, widgetItem, tearDown }
}

describe.skipIf(chromiumPath === undefined)("hostile widgets in Chromium", () => {
  it("cannot reach another widget, another widget's bridge or another server's tool", {
    timeout: 300_000
  }, async () => {
    mkdirSync(outDir, { recursive: true })
    const listener = await startListener()
    cleanups.push(listener.close)
    const { page, call, price, widgetItems, widgetItem, tearDown } = await setUp(listener.url)
    try {
      await call("evil-isolation", "mcp__evil__show_evil", { mode: "isolation" })
      const isolation = await widgetFrame(page, "evil-isolation")
      await isolation.waitForSelector("body[data-attacks-done='true']", { timeout })
      const attempts = await attacksOf(isolation)
      // the page, and for each of the two other widgets 5 paths
      assert.strictEqual(Object.keys(attempts).length, 13, JSON.stringify(attempts))
      for (const [path, outcome] of Object.entries(attempts)) {
        assert.match(outcome, /^(blocked: SecurityError|refused: )/, `${path}: ${outcome}`)
      }
      assert.strictEqual(
        attempts["own bridge calls another server's tool"],
        "refused: tool refresh_price is not a tool of MCP server evil"
      )
      // the victims' documents are untouched by the forged messages
      assert.strictEqual(await price.textContent("#result"), "price: 40 EUR")
      // the sentinel: the price widget's own call of refresh_price must be the first widget call recorded
      await price.evaluate(() =>
        (window as unknown as { widgetCallTool: (n: string, a: unknown) => Promise<string> }).widgetCallTool(
          "refresh_price",
          { sentinel: true }
        )
      )
      await widgetItem((item) => JSON.stringify(item.arguments) === '{"sentinel":true}')
      assert.deepStrictEqual(
        widgetItems.map((item) => [item.originCallId, item.tool, item.arguments]),
        [["price-call", "refresh_price", { sentinel: true }]]
      )
      await page.screenshot({ path: `${outDir}widgets-hostile.png`, fullPage: true })
    } finally {
      await tearDown()
    }
  })

  it("cannot send a request past its CSP through its proxy parent, nor by navigating", {
    timeout: 300_000
  }, async () => {
    mkdirSync(outDir, { recursive: true })
    const listener = await startListener()
    cleanups.push(listener.close)
    const { page, call, tearDown } = await setUp(listener.url)
    try {
      const escaped = silence(listener)
      await call("evil-exfiltrate", "mcp__evil__show_evil", { mode: "exfiltrate" })
      const exfiltrate = await widgetFrame(page, "evil-exfiltrate")
      await Promise.race([exfiltrate.waitForSelector("body[data-attacks-done='true']", { timeout }), escaped]).catch(
        async (e: Error) => {
          const so = `${await exfiltrate.textContent("#attacks")}; violations ${await exfiltrate.textContent("#violations")}`
          throw new Error(`${e.message}; attempts so far: ${so}`)
        }
      )
      const leaks = await attacksOf(exfiltrate)
      assert.strictEqual(Object.keys(leaks).length, 15, JSON.stringify(leaks))
      // each attempt settled on the CSP violation it caused
      for (const [path, outcome] of Object.entries(leaks)) {
        assert.match(outcome, /^blocked: [a-z-]+-src(-elem)?$/, `${path}: ${outcome}`)
      }
      assert.strictEqual(leaks["parent fetch"], "blocked: connect-src")
      assert.strictEqual(leaks["image in the parent"], "blocked: img-src")
      // navigating its own frame, then making its proxy navigate itself: both blocked (an error page)
      const own = blockedOrEscaped(page, listener.url)
      await call("evil-navigate", "mcp__evil__show_evil", { mode: "navigate" })
      assert.match((await Promise.race([own, escaped])).url(), /^chrome-error:/)
      const proxy = blockedOrEscaped(page, listener.url)
      await call("evil-navigate-proxy", "mcp__evil__show_evil", { mode: "navigate-proxy" })
      assert.match((await Promise.race([proxy, escaped])).url(), /^chrome-error:/)
      // the sentinel: the first request the listener ever saw is this one
      await fetch(`${listener.url}/sentinel`)
      assert.strictEqual(await listener.first(), "GET /sentinel HTTP/1.1")
      assert.deepStrictEqual(listener.seen, ["GET /sentinel HTTP/1.1"])
    } finally {
      await tearDown()
    }
  })
})
