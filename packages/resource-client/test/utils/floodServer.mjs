#!/usr/bin/env node
/**
 * A v2 SDK server over stdio for the flood isolation test: `node floodServer.mjs`. Reading
 * `flood://start` starts a flood, sent as fast as the pipe takes it until `flood://stop` is read:
 * `notifications/resources/updated` for a new uri each time (`flood://0`, `flood://1`, …, with
 * `flood://watched` every 1,000th), `notifications/resources/list_changed` and log messages, in turn.
 * `flood://stop` answers `{"sent": N}` after a last `updated` of `flood://watched`. Any other read
 * answers `<uri> read <n> times`, cacheable for a minute.
 */
import { Server } from "@modelcontextprotocol/server"
import { serveStdio } from "@modelcontextprotocol/server/stdio"

let server
let flooding = false
let sent = 0
const reads = new Map()

const flood = async () => {
  while (flooding) {
    const i = sent++
    if (i % 3 === 0) {
      const uri = i % 1000 === 0 ? "flood://watched" : `flood://${i}`
      await server.sendResourceUpdated({ uri })
    } else if (i % 3 === 1) await server.sendResourceListChanged()
    else await server.sendLoggingMessage({ level: "info", data: `flood ${i}` })
  }
}

const text = (uri, value) => ({ contents: [{ uri, mimeType: "text/plain", text: value }], ttlMs: 60_000 })

serveStdio(() => {
  server = new Server(
    { name: "flood", version: "1.0.0" },
    { capabilities: { resources: { subscribe: true, listChanged: true }, logging: {} } }
  )
  server.setRequestHandler("resources/list", () => ({ resources: [] }))
  server.setRequestHandler("resources/subscribe", () => ({}))
  server.setRequestHandler("resources/unsubscribe", () => ({}))
  server.setRequestHandler("resources/read", async (request) => {
    const uri = request.params.uri
    if (uri === "flood://start") {
      flooding = true
      setImmediate(() => void flood())
      return text(uri, "started")
    }
    if (uri === "flood://stop") {
      flooding = false
      await server.sendResourceUpdated({ uri: "flood://watched" })
      return text(uri, JSON.stringify({ sent }))
    }
    const count = (reads.get(uri) ?? 0) + 1
    reads.set(uri, count)
    return text(uri, `${uri} read ${count} times`)
  })
  return server
})
process.stdin.on("end", () => process.exit(0))
