/**
 * The loopback server of the widget host (docs/widgets.md): the host page on one port and the sandbox
 * proxies on a second port, each widget's proxy on an origin of its own
 * (`http://<label>.localhost:<port>`, issued by `POST /sandbox` of the page just before it frames the
 * proxy), so that no widget can reach the page, another widget or another widget's proxy. A proxy
 * document is served once, under its widget's own policy (Csp.proxyPolicy). Both servers answer only
 * requests whose `Host` is one of their loopback names. The page connects to the app-server itself (its
 * WebSocket URL comes from `/config.json`; the token from the page URL's fragment, which never reaches a
 * server). The page's `load` event waits until the page has settled (`GET /settle.js` is held until the
 * page's `POST /settle`, or 30 s), so a headless browser that takes the page at `load` sees it ready.
 */
import { readFileSync } from "node:fs"
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import type { Widget } from "@mcp-resources/protocol"
import * as Csp from "./Csp.js"
import * as LoadHolds from "./internal/loadHolds.js"
import * as SandboxOrigins from "./internal/sandboxOrigins.js"

/** Options of {@link serve}. */
export interface Options {
  /** The app-server's `ws://` URL (a function when it is known only after the page's origin is). */
  readonly appServerUrl: string | (() => string | undefined)
  /** The loopback address to listen on: `127.0.0.1` (the default) or `::1`. */
  readonly host?: string
  /** The page's port (default 0: any free port). */
  readonly pagePort?: number
  /** The sandbox proxy's port (default 0: any free port). */
  readonly sandboxPort?: number
}

/** The running servers. */
export interface Running {
  /** `http://HOST:PORT`, the page's origin (the one origin the app-server must allow). */
  readonly pageOrigin: string
  /** The sandbox proxies' port: each widget's proxy is served on `http://<label>.localhost:<sandboxPort>`. */
  readonly sandboxPort: number
  /** The page URL with the token in its fragment (`#token=…`), and `?thread=ID` when given. */
  readonly pageUrl: (token: string | undefined, threadId?: string) => string
  /** Stops both servers. */
  readonly close: () => Promise<void>
}

const bundle = (name: string): string => readFileSync(new URL(`./bundle/${name}`, import.meta.url), "utf8")

const pageHtml = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>mcp-resources widgets</title>
<style>
body { font-family: system-ui, sans-serif; margin: 1.5rem; }
#items li { margin: 0.2rem 0; }
.widget { margin: 1rem 0; }
.widget iframe { width: 100%; height: 260px; border: 0; }
.widget.border iframe { border: 1px solid #999; border-radius: 6px; }
.error { color: #a00; }
form.tool { margin: 0.6rem 0; padding: 0.5rem; border: 1px solid #ccc; border-radius: 6px; }
form.tool .tool-name { font-weight: 600; }
form.tool label.field { display: block; margin: 0.2rem 0; }
form.tool[data-state="failed"] .outcome, form.tool[data-state="invalid"] .outcome { color: #a00; }
#conversation .from { color: #555; }
</style></head>
<body>
<h1>mcp-resources widgets</h1>
<p>status: <span id="status">connecting</span> · thread: <code id="thread"></code></p>
<h2>Widget tools</h2>
<div id="tools"></div>
<h2>Conversation</h2>
<ol id="conversation"></ol>
<h2>MCP tool calls</h2>
<ul id="items"></ul>
<h2>Widgets</h2>
<div id="widgets"></div>
<script type="module" src="/host.js"></script>
</body></html>`

const sandboxHtml = (hostOrigin: string) => `<!doctype html>
<html><head><meta charset="utf-8"><meta name="mcp-host-origin" content="${hostOrigin}">
<style>html, body { margin: 0; height: 100%; } iframe { width: 100%; height: 100%; border: 0; }</style>
</head><body><script type="module" src="/sandbox.js"></script></body></html>`

const listen = (server: Server, host: string, port: number): Promise<number> =>
  new Promise((resolve, reject) => {
    server.once("error", reject)
    server.listen(port, host, () => {
      server.off("error", reject)
      resolve((server.address() as AddressInfo).port)
    })
  })

const closeServer = (server: Server): Promise<void> =>
  new Promise((resolve) => {
    server.closeAllConnections()
    server.close(() => resolve())
  })

const send = (
  res: ServerResponse,
  status: number,
  type: string,
  body: string,
  headers: Record<string, string> = {}
) => {
  res.writeHead(status, {
    "content-type": type,
    "cache-control": "no-store",
    "x-content-type-options": "nosniff",
    ...headers
  })
  res.end(body)
}

/** The largest `POST /sandbox` body read (a widget's declared `csp`). */
export const maxSandboxRequestBytes = 64 * 1024

const readBody = (req: IncomingMessage): Promise<string | undefined> =>
  new Promise((resolve) => {
    const chunks: Array<Buffer> = []
    let size = 0
    req.on("data", (chunk: Buffer) => {
      size += chunk.length
      if (size > maxSandboxRequestBytes) {
        resolve(undefined)
        req.destroy()
        return
      }
      chunks.push(chunk)
    })
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")))
    req.on("error", () => resolve(undefined))
  })

const cspKeys = ["connectDomains", "resourceDomains", "frameDomains", "baseUriDomains"] as const

/** The declared `csp` of a `POST /sandbox` body: each field a list of strings, anything else dropped. */
const cspOf = (value: unknown): Widget.WidgetCsp | undefined => {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return undefined
  const csp: { -readonly [K in (typeof cspKeys)[number]]?: Array<string> } = {}
  for (const key of cspKeys) {
    const list = (value as Record<string, unknown>)[key]
    if (Array.isArray(list)) csp[key] = list.filter((d): d is string => typeof d === "string")
  }
  return csp
}

/** Starts the page and the sandbox proxies on loopback. */
export const serve = async (options: Options): Promise<Running> => {
  const host = options.host ?? "127.0.0.1"
  if (host !== "127.0.0.1" && host !== "::1") {
    throw new Error(`widget host: host must be 127.0.0.1 or ::1 (the sandbox origins are *.localhost), got ${host}`)
  }
  const hostText = host.includes(":") ? `[${host}]` : host
  const appServerUrl = () => (typeof options.appServerUrl === "string" ? options.appServerUrl : options.appServerUrl())
  const hostJs = bundle("host.js")
  const sandboxJs = bundle("sandbox.js")
  const origins = SandboxOrigins.make()
  const holds = LoadHolds.make()
  let pageOrigin = ""
  let pagePort = 0
  let sandboxPort = 0
  /** The page answers only its loopback names (a DNS-rebound name is refused). */
  const pageHostAllowed = (value: string | undefined) =>
    value === `127.0.0.1:${pagePort}` || value === `localhost:${pagePort}` || value === `[::1]:${pagePort}`
  /** The label of a sandbox request's `Host` (`<label>.localhost:<port>`), when issued. */
  const sandboxLabel = (value: string | undefined): string | undefined => {
    const suffix = `.localhost:${sandboxPort}`
    if (value === undefined || !value.endsWith(suffix)) return undefined
    const label = value.slice(0, -suffix.length)
    return origins.known(label) ? label : undefined
  }
  const page = createServer((req: IncomingMessage, res: ServerResponse) => {
    if (!pageHostAllowed(req.headers.host)) return send(res, 421, "text/plain", "unknown host")
    const path = new URL(req.url ?? "/", "http://x").pathname
    const url = appServerUrl()
    const policy = `default-src 'none'; script-src 'self'; style-src 'unsafe-inline'; connect-src 'self' ${url ?? ""}; frame-src http://*.localhost:${sandboxPort}; base-uri 'none'; frame-ancestors 'none'`
    if (path === "/sandbox" && req.method === "POST") {
      // only the page itself issues sandbox origins (a browser names the caller's origin on a POST)
      if (req.headers.origin !== pageOrigin) return send(res, 403, "text/plain", "forbidden")
      if (!(req.headers["content-type"] ?? "").startsWith("application/json"))
        return send(res, 415, "text/plain", "expected application/json")
      void readBody(req).then((body) => {
        let csp: Widget.WidgetCsp | undefined
        try {
          csp = cspOf((JSON.parse(body ?? "") as { csp?: unknown }).csp)
        } catch {
          return send(res, 400, "text/plain", "expected a JSON object {csp?}")
        }
        const label = origins.issue(Csp.proxyPolicy(csp, pageOrigin))
        send(res, 200, "application/json", JSON.stringify({ origin: `http://${label}.localhost:${sandboxPort}` }))
      })
      return
    }
    if (path === "/settle" && req.method === "POST") {
      if (req.headers.origin !== pageOrigin) return send(res, 403, "text/plain", "forbidden")
      if (!(req.headers["content-type"] ?? "").startsWith("application/json"))
        return send(res, 415, "text/plain", "expected application/json")
      void readBody(req).then((body) => {
        let id: unknown
        try {
          id = (JSON.parse(body ?? "") as { id?: unknown }).id
        } catch {
          return send(res, 400, "text/plain", "expected a JSON object {id}")
        }
        if (typeof id === "string") holds.release(id)
        send(res, 204, "text/plain", "")
      })
      return
    }
    if (req.method !== "GET") return send(res, 405, "text/plain", "method not allowed")
    if (path === "/settle.js") return holds.hold(new URL(req.url ?? "/", "http://x").searchParams.get("id") ?? "", res)
    if (path === "/") return send(res, 200, "text/html; charset=utf-8", pageHtml, { "content-security-policy": policy })
    if (path === "/host.js") return send(res, 200, "text/javascript; charset=utf-8", hostJs)
    if (path === "/config.json") {
      if (url === undefined) return send(res, 503, "text/plain", "the app-server is not listening yet")
      return send(res, 200, "application/json", JSON.stringify({ appServerUrl: url }))
    }
    return send(res, 404, "text/plain", "not found")
  })
  const sandbox = createServer((req: IncomingMessage, res: ServerResponse) => {
    const label = sandboxLabel(req.headers.host)
    if (label === undefined) return send(res, 421, "text/plain", "unknown host")
    const path = new URL(req.url ?? "/", "http://x").pathname
    if (req.method !== "GET") return send(res, 405, "text/plain", "method not allowed")
    if (path === "/sandbox.html") {
      const policy = origins.takePolicy(label)
      if (policy === undefined) return send(res, 404, "text/plain", "not found")
      return send(res, 200, "text/html; charset=utf-8", sandboxHtml(pageOrigin), {
        "content-security-policy": policy,
        // its own agent cluster: `document.domain` cannot join two widget origins
        "origin-agent-cluster": "?1",
        "referrer-policy": "no-referrer"
      })
    }
    if (path === "/sandbox.js") return send(res, 200, "text/javascript; charset=utf-8", sandboxJs)
    return send(res, 404, "text/plain", "not found")
  })
  pagePort = await listen(page, host, options.pagePort ?? 0)
  try {
    sandboxPort = await listen(sandbox, host, options.sandboxPort ?? 0)
  } catch (e) {
    await closeServer(page)
    throw e
  }
  pageOrigin = `http://${hostText}:${pagePort}`
  return {
    pageOrigin,
    sandboxPort,
    pageUrl: (token, threadId) =>
      `${pageOrigin}/${threadId === undefined ? "" : `?thread=${encodeURIComponent(threadId)}`}${
        token === undefined ? "" : `#token=${encodeURIComponent(token)}`
      }`,
    close: async () => {
      holds.releaseAll()
      await Promise.all([closeServer(page), closeServer(sandbox)])
    }
  }
}
