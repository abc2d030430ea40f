/**
 * Helpers of the widget host's browser tests: Debian's `chromium` (never a downloaded build) driven by
 * playwright-core, `mcp-resources widgets` as a child process, and waits on the page's own markers.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process"
import { existsSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { PromiseClient } from "@mcp-resources/app-server-client"
import { type Browser, chromium, type Frame, type Page } from "playwright-core"
import { assert } from "vitest"

export const cliJs = fileURLToPath(new URL("../../dist/Cli.js", import.meta.url))
export const outDir = fileURLToPath(new URL("../../.test-results/widgets/", import.meta.url))
/** The bound of every wait of these tests (a loaded 2-core machine starts Chromium slowly). */
export const timeout = 90_000

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

/** The Chromium binary, or `undefined` (then the browser tests skip; `skipReason` says why on stderr). */
export const chromiumPath = findChromium()

/** Prints why a browser test file skips, when it does. */
export const skipReason = (file: string) => {
  if (chromiumPath === undefined)
    process.stderr.write(`${file}: skipped: no chromium found (apt-get install -y chromium, or set CHROMIUM_PATH)\n`)
}

/** Launches headless Chromium with the flags these tests use. */
export const launch = (): Promise<Browser> =>
  chromium.launch({
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

export interface Host {
  readonly child: ChildProcess
  readonly appServerUrl: string
  readonly pageUrl: string
  readonly stop: () => Promise<void>
}

const children = new Set<ChildProcess>()

/** Kills every host child still running (for `afterAll`). */
export const killHosts = () =>
  Promise.all(
    [...children].map(
      (child) =>
        new Promise<void>((done) => {
          if (child.exitCode !== null || child.signalCode !== null) return done()
          child.once("exit", () => done())
          child.kill("SIGKILL")
        })
    )
  )

/** Starts `mcp-resources widgets` and waits for its two URLs on standard output. */
export const startHost = (config: string, dataDir: string): Promise<Host> =>
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

export const tokenOf = (pageUrl: string): string => new URLSearchParams(new URL(pageUrl).hash.slice(1)).get("token")!

export const withThread = (pageUrl: string, threadId: string): string => {
  const url = new URL(pageUrl)
  url.search = `?thread=${encodeURIComponent(threadId)}`
  return url.href
}

/** The widget's own document (the sandbox proxy's inner iframe) of the call, once `ready` matches in it. */
export const widgetFrame = async (
  page: Page,
  callId: string,
  ready = "body[data-initialized='true']"
): Promise<Frame> => {
  const box = `.widget[data-call-id="${callId}"][data-initialized="true"]`
  await page.waitForSelector(box, { timeout })
  const handle = await page.frameLocator(`${box} iframe`).locator("iframe[srcdoc]").first().elementHandle({ timeout })
  const frame = await handle!.contentFrame()
  await frame!.waitForSelector(ready, { timeout })
  return frame!
}

/** The sandbox proxy's frame (the page's iframe) of the call. */
export const proxyFrame = async (page: Page, callId: string): Promise<Frame> => {
  const handle = await page.waitForSelector(`.widget[data-call-id="${callId}"] iframe`, { timeout })
  return (await handle.contentFrame())!
}

/** Waits until the page settled (`ready`, or `failed: …`), and asserts it is ready. */
export const pageReady = async (page: Page) => {
  await page.waitForSelector("body[data-status]", { timeout })
  assert.strictEqual(await page.textContent("#status"), "ready")
}

export const textOf = async (frame: Frame, selector: string, expected: string) => {
  await frame.waitForFunction(
    ([s, e]) => document.querySelector(s!)?.textContent?.includes(e!) === true,
    [selector, expected],
    { timeout }
  )
  return frame.textContent(selector)
}

/** The view's request through the bridge: its result, or `error: message`. */
export const viewRequest = (frame: Frame, method: string, params: unknown) =>
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

/** A client of the host's app-server (the test plays the model), once every configured server is ready. */
export const connectClient = async (host: Host) => {
  const client = await PromiseClient.connectWebSocket(
    { url: host.appServerUrl, token: tokenOf(host.pageUrl) },
    { requestTimeoutMs: timeout }
  )
  // every fixture server ready first (a tool of a server still starting is not offered yet): the list,
  // then, while one starts, the next mcpServer/statusChanged (listened to before the list is asked for)
  let changed: () => void = () => {}
  const stop = client.onNotification((n) => {
    if (n.method === "mcpServer/statusChanged") changed()
  })
  await client.initialize({ name: "widget-host-test" })
  const deadline = Date.now() + timeout
  try {
    for (;;) {
      const next = new Promise<void>((resolve) => {
        changed = resolve
      })
      const { servers } = await client.request("mcpServer/list", {})
      if (servers.every((s) => s.status === "ready")) break
      assert.isFalse(
        servers.some((s) => s.status === "failed"),
        `a server failed: ${JSON.stringify(servers)}`
      )
      let timer: ReturnType<typeof setTimeout> | undefined
      await Promise.race([
        next,
        new Promise<never>((_, reject) => {
          timer = setTimeout(
            () => reject(new Error(`servers not ready: ${JSON.stringify(servers)}`)),
            Math.max(0, deadline - Date.now())
          )
        })
      ]).finally(() => clearTimeout(timer))
    }
  } finally {
    stop()
  }
  return client
}
