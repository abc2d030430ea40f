/**
 * The loopback server of the widget host (docs/widgets.md): the host page on one port and the sandbox
 * proxy on a second port, so that widgets run on an origin other than the page's. The page connects to
 * the app-server itself (its WebSocket URL comes from `/config.json`; the token from the page URL's
 * fragment, which never reaches a server).
 */
import { readFileSync } from "node:fs"
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"

/** Options of {@link serve}. */
export interface Options {
  /** The app-server's `ws://` URL (a function when it is known only after the page's origin is). */
  readonly appServerUrl: string | (() => string | undefined)
  /** The loopback address to listen on (default `127.0.0.1`). */
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
  /** `http://HOST:PORT2`, the sandbox proxy's origin. */
  readonly sandboxOrigin: string
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
</style></head>
<body>
<h1>mcp-resources widgets</h1>
<p>status: <span id="status">connecting</span> · thread: <code id="thread"></code></p>
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

/** Starts the page and the sandbox proxy on loopback. */
export const serve = async (options: Options): Promise<Running> => {
  const host = options.host ?? "127.0.0.1"
  const hostText = host.includes(":") ? `[${host}]` : host
  const appServerUrl = () => (typeof options.appServerUrl === "string" ? options.appServerUrl : options.appServerUrl())
  const hostJs = bundle("host.js")
  const sandboxJs = bundle("sandbox.js")
  let pageOrigin = ""
  let sandboxOrigin = ""
  const page = createServer((req: IncomingMessage, res: ServerResponse) => {
    const path = new URL(req.url ?? "/", "http://x").pathname
    const url = appServerUrl()
    const policy = `default-src 'none'; script-src 'self'; style-src 'unsafe-inline'; connect-src 'self' ${url ?? ""}; frame-src ${sandboxOrigin}; base-uri 'none'; frame-ancestors 'none'`
    if (req.method !== "GET") return send(res, 405, "text/plain", "method not allowed")
    if (path === "/") return send(res, 200, "text/html; charset=utf-8", pageHtml, { "content-security-policy": policy })
    if (path === "/host.js") return send(res, 200, "text/javascript; charset=utf-8", hostJs)
    if (path === "/config.json") {
      if (url === undefined) return send(res, 503, "text/plain", "the app-server is not listening yet")
      return send(res, 200, "application/json", JSON.stringify({ appServerUrl: url, sandboxOrigin }))
    }
    return send(res, 404, "text/plain", "not found")
  })
  const sandbox = createServer((req: IncomingMessage, res: ServerResponse) => {
    const path = new URL(req.url ?? "/", "http://x").pathname
    if (req.method !== "GET") return send(res, 405, "text/plain", "method not allowed")
    // only the host page may frame the proxy (the widget's own document is the proxy's child)
    const framing = { "content-security-policy": `frame-ancestors ${pageOrigin} ${sandboxOrigin}` }
    if (path === "/sandbox.html") return send(res, 200, "text/html; charset=utf-8", sandboxHtml(pageOrigin), framing)
    if (path === "/sandbox.js") return send(res, 200, "text/javascript; charset=utf-8", sandboxJs)
    return send(res, 404, "text/plain", "not found")
  })
  const pagePort = await listen(page, host, options.pagePort ?? 0)
  let sandboxPort: number
  try {
    sandboxPort = await listen(sandbox, host, options.sandboxPort ?? 0)
  } catch (e) {
    await closeServer(page)
    throw e
  }
  pageOrigin = `http://${hostText}:${pagePort}`
  sandboxOrigin = `http://${hostText}:${sandboxPort}`
  return {
    pageOrigin,
    sandboxOrigin,
    pageUrl: (token, threadId) =>
      `${pageOrigin}/${threadId === undefined ? "" : `?thread=${encodeURIComponent(threadId)}`}${
        token === undefined ? "" : `#token=${encodeURIComponent(token)}`
      }`,
    close: async () => {
      await Promise.all([closeServer(page), closeServer(sandbox)])
    }
  }
}
