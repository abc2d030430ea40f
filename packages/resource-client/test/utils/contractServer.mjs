#!/usr/bin/env node
/**
 * The server of the transport contract suite (test/TransportSuite.ts): one v2 SDK server that serves
 * the same catalog on both protocol eras, in this process (in-memory, streamable HTTP) or as a stdio
 * child (`node contractServer.mjs [--modern]`). The suite sees it only through the client, so that
 * every transport is tested the same way:
 *
 * - `resources/list` and `resources/templates/list` in two pages (`catalog`);
 * - reads: a text, a blob, `contract://missing` (a JSON-RPC error, `catalog.error`), `contract://hang`
 *   (never answers until cancelled), `contract://exit` (the server goes away without answering);
 * - `resources/subscribe` (initialize era; 2026-07-28 subscribes on the listen stream the SDK serves);
 * - tools: `touch {uri}` announces `notifications/resources/updated` for the uri; `await {event, uri}`
 *   answers once the server saw that event (`started`: a request for the uri is running; `cancelled`:
 *   it was cancelled), so that a test waits for the server instead of polling it.
 */
import { createServer } from "node:http"
import { fileURLToPath } from "node:url"
import {
  createMcpHandler,
  InMemoryServerEventBus,
  InMemoryTransport,
  Server,
  WebStandardStreamableHTTPServerTransport
} from "@modelcontextprotocol/server"
import { serveStdio } from "@modelcontextprotocol/server/stdio"

/** What every contract server serves. */
export const catalog = {
  resourcePages: {
    first: { resources: [{ uri: "contract://text", name: "text", mimeType: "text/plain" }], nextCursor: "p2" },
    p2: { resources: [{ uri: "contract://blob", name: "blob", mimeType: "application/octet-stream" }] }
  },
  templatePages: {
    first: { resourceTemplates: [{ uriTemplate: "contract://text/{id}", name: "texts" }], nextCursor: "t2" },
    t2: { resourceTemplates: [{ uriTemplate: "contract://blob/{id}", name: "blobs" }] }
  },
  reads: {
    "contract://text": { contents: [{ uri: "contract://text", mimeType: "text/plain", text: "hello, contract" }] },
    "contract://blob": {
      contents: [{ uri: "contract://blob", mimeType: "application/octet-stream", blob: "AAECAw==" }]
    }
  },
  /** The error `contract://missing` is answered with. */
  error: { code: -32050, message: "the contract server refuses contract://missing" }
}

const fail = (code, message) => Object.assign(new Error(message), { code })

/** What one fixture (every connection of it) saw: uris of requests running and cancelled. */
const makeState = () => {
  const state = { started: new Set(), cancelled: new Set(), waiters: new Set() }
  state.changed = () => {
    for (const waiter of [...state.waiters]) waiter()
  }
  state.until = (done) =>
    new Promise((resolve) => {
      const check = () => {
        if (!done()) return
        state.waiters.delete(check)
        resolve()
      }
      state.waiters.add(check)
      check()
    })
  return state
}

const text = (value) => ({ content: [{ type: "text", text: value }] })

/**
 * A server of the catalog. `host.updated(server, uri)` announces a change (each transport and era
 * delivers it its own way); `host.exit()` makes the server go away.
 */
const makeServer = (state, host) => {
  const server = new Server(
    { name: "contract", version: "1.0.0" },
    { capabilities: { resources: { subscribe: true, listChanged: true }, tools: {} } }
  )
  const page = (pages, cursor) => {
    const found = cursor === undefined ? pages.first : pages[cursor]
    if (found === undefined) throw fail(-32602, `unknown cursor ${JSON.stringify(cursor)}`)
    return structuredClone(found)
  }
  server.setRequestHandler("resources/list", (request) => page(catalog.resourcePages, request.params?.cursor))
  server.setRequestHandler("resources/templates/list", (request) => page(catalog.templatePages, request.params?.cursor))
  server.setRequestHandler("resources/read", async (request, ctx) => {
    const uri = request.params.uri
    if (uri === "contract://missing") throw fail(catalog.error.code, catalog.error.message)
    if (uri === "contract://exit") {
      host.exit()
      return new Promise(() => {})
    }
    if (uri === "contract://hang") {
      const signal = ctx.mcpReq.signal
      state.started.add(uri)
      state.changed()
      await new Promise((resolve) => {
        if (signal.aborted) return resolve()
        signal.addEventListener("abort", () => resolve(), { once: true })
      })
      state.cancelled.add(uri)
      state.changed()
      throw fail(-32800, "Request cancelled")
    }
    const read = catalog.reads[uri]
    if (read === undefined) throw fail(-32602, `unknown uri ${uri}`)
    return structuredClone(read)
  })
  server.setRequestHandler("resources/subscribe", () => ({}))
  server.setRequestHandler("resources/unsubscribe", () => ({}))
  server.setRequestHandler("tools/list", () => ({
    tools: [
      { name: "touch", inputSchema: { type: "object", properties: { uri: { type: "string" } } } },
      {
        name: "await",
        inputSchema: { type: "object", properties: { event: { type: "string" }, uri: { type: "string" } } }
      }
    ]
  }))
  server.setRequestHandler("tools/call", async (request) => {
    const args = request.params.arguments ?? {}
    if (request.params.name === "touch") {
      await host.updated(server, String(args.uri))
      return text(`touched ${args.uri}`)
    }
    const seen = args.event === "cancelled" ? state.cancelled : state.started
    await state.until(() => seen.has(String(args.uri)))
    return text(`${args.event} ${args.uri}`)
  })
  return server
}

const sendUpdated = (server, uri) => server.sendResourceUpdated({ uri })

/** `legacy` serves the `initialize` era only, `modern` 2026-07-28 only. */
const legacyOption = (era) => (era === "modern" ? "reject" : "serve")

/** An in-memory fixture: each `connect()` is a new linked pair served by the SDK's era entry. */
export const connectContractInMemory = (era) => {
  const state = makeState()
  const handles = []
  return {
    connect: async () => {
      const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
      const host = { updated: sendUpdated, exit: () => void serverSide.close() }
      handles.push(serveStdio(() => makeServer(state, host), { transport: serverSide, legacy: legacyOption(era) }))
      return clientSide
    },
    close: async () => {
      await Promise.all(handles.splice(0).map((handle) => handle.close().catch(() => undefined)))
    }
  }
}

/** The command that serves the catalog over stdio on one era. */
export const contractStdioCommand = (era) => ({
  command: process.execPath,
  args: [fileURLToPath(import.meta.url), ...(era === "modern" ? ["--modern"] : [])]
})

/** A Node request as a web-standard one (its body read whole), aborted when the client goes away. */
const toRequest = async (req, res) => {
  const chunks = []
  for await (const chunk of req) chunks.push(chunk)
  const headers = new Headers()
  for (const [key, value] of Object.entries(req.headers)) {
    if (value !== undefined) headers.set(key, Array.isArray(value) ? value.join(", ") : value)
  }
  const aborted = new AbortController()
  res.on("close", () => aborted.abort())
  const hasBody = req.method !== "GET" && req.method !== "HEAD" && req.method !== "DELETE"
  return new Request(`http://127.0.0.1${req.url}`, {
    method: req.method,
    headers,
    ...(hasBody ? { body: Buffer.concat(chunks) } : {}),
    signal: aborted.signal
  })
}

/** Writes a web-standard response (streamed: SSE stays open) to a Node response. */
const writeResponse = async (response, res) => {
  res.writeHead(response.status, Object.fromEntries(response.headers))
  if (response.body === null) return void res.end()
  const reader = response.body.getReader()
  res.on("close", () => void reader.cancel().catch(() => undefined))
  for (;;) {
    const { done, value } = await reader.read().catch(() => ({ done: true }))
    if (done) return void res.end()
    res.write(value)
  }
}

/**
 * Serves the catalog over streamable HTTP on 127.0.0.1 (a random port) in this process: the
 * `initialize` era with sessions (notifications on the session's GET stream), 2026-07-28 through the
 * SDK's `createMcpHandler` (updates published on its listen bus).
 */
export const startContractHttp = async (era) => {
  const state = makeState()
  const sessions = new Map()
  let http
  const exit = () => {
    http.close()
    http.closeAllConnections()
  }
  const bus = new InMemoryServerEventBus()
  const modern = createMcpHandler(
    () =>
      makeServer(state, {
        updated: async (_server, uri) => bus.publish({ kind: "resource_updated", uri }),
        exit
      }),
    { legacy: "reject", bus }
  )
  const legacy = async (request) => {
    const id = request.headers.get("mcp-session-id")
    if (id !== null) {
      const transport = sessions.get(id)
      if (transport === undefined)
        return Response.json(
          { jsonrpc: "2.0", error: { code: -32001, message: "Session not found" }, id: null },
          { status: 404 }
        )
      return transport.handleRequest(request)
    }
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => crypto.randomUUID(),
      onsessioninitialized: (sessionId) => void sessions.set(sessionId, transport)
    })
    transport.onclose = () => {
      if (transport.sessionId !== undefined) sessions.delete(transport.sessionId)
    }
    await makeServer(state, { updated: sendUpdated, exit }).connect(transport)
    return transport.handleRequest(request)
  }
  http = createServer((req, res) => {
    toRequest(req, res)
      .then((request) => (era === "modern" ? modern.fetch(request) : legacy(request)))
      .then((response) => writeResponse(response, res))
      .catch((error) => {
        if (!res.headersSent) res.writeHead(500, { "content-type": "text/plain" })
        res.end(String(error))
      })
  })
  await new Promise((resolve, reject) => {
    http.once("error", reject)
    http.listen(0, "127.0.0.1", () => resolve())
  })
  return {
    url: `http://127.0.0.1:${http.address().port}/mcp`,
    close: async () => {
      await Promise.all([...sessions.values()].map((transport) => transport.close().catch(() => undefined)))
      sessions.clear()
      await modern.close().catch(() => undefined)
      await new Promise((resolve) => {
        http.close(() => resolve())
        http.closeAllConnections()
      })
    }
  }
}

/**
 * Serves the catalog over the legacy HTTP+SSE transport (the `initialize` era only) on 127.0.0.1, as
 * deployed servers lay it out: `GET /sse` opens the event stream, `POST /messages?sessionId=…` carries
 * the client's messages (the v1 SDK's `SSEServerTransport` under the same v2 server).
 */
export const startContractSse = async () => {
  // imported here: the stdio child does not load the v1 SDK
  const { SSEServerTransport } = await import("@modelcontextprotocol/sdk/server/sse.js")
  const state = makeState()
  const sessions = new Map()
  let http
  const exit = () => {
    http.close()
    http.closeAllConnections()
  }
  http = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1")
    if (req.method === "GET" && url.pathname === "/sse") {
      const transport = new SSEServerTransport("/messages", res)
      const server = makeServer(state, { updated: sendUpdated, exit })
      sessions.set(transport.sessionId, { transport, server })
      res.on("close", () => {
        sessions.delete(transport.sessionId)
        void server.close().catch(() => undefined)
      })
      void server.connect(transport)
      return
    }
    const session = sessions.get(url.searchParams.get("sessionId") ?? "")
    if (req.method === "POST" && url.pathname === "/messages" && session !== undefined) {
      void session.transport.handlePostMessage(req, res)
      return
    }
    res.writeHead(404, { "content-type": "text/plain" })
    res.end(`Cannot ${req.method} ${url.pathname}`)
  })
  await new Promise((resolve, reject) => {
    http.once("error", reject)
    http.listen(0, "127.0.0.1", () => resolve())
  })
  return {
    url: `http://127.0.0.1:${http.address().port}/sse`,
    close: async () => {
      await Promise.all([...sessions.values()].map(({ server }) => server.close().catch(() => undefined)))
      sessions.clear()
      await new Promise((resolve) => {
        http.close(() => resolve())
        http.closeAllConnections()
      })
    }
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const era = process.argv.includes("--modern") ? "modern" : "legacy"
  const state = makeState()
  serveStdio(() => makeServer(state, { updated: sendUpdated, exit: () => process.exit(3) }), {
    legacy: legacyOption(era)
  })
  process.stdin.on("end", () => process.exit(0))
}
