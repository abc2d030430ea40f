/**
 * A raw stdio MCP server for the limits tests (no SDK): it counts how many of its kind are alive and
 * how many are initializing at once, through marker files in a shared directory, and can flood
 * `notifications/resources/updated`.
 *
 * `node dist/limitsServer.js --dir DIR [--init-delay MS] [--ttl MS] [--flood N] [--log FILE]`
 *
 * - `--dir DIR`: at start the process creates `DIR/alive-<pid>`, and while it answers `initialize`
 *   `DIR/init-<pid>`; it appends the number of `alive-*` and `init-*` files it saw then to
 *   `DIR/counts` (`alive N` / `init N` lines), and removes its markers as it ends;
 * - `--init-delay MS`: `initialize` is answered after MS milliseconds;
 * - `--ttl MS`: read results carry `ttlMs: MS`;
 * - `--flood N`: a read of `flood://go` first sends N `notifications/resources/updated` for the uris
 *   `flood://0` … `flood://9` in turn;
 * - `--log FILE`: every request is appended to FILE as `method uri` (uri only for reads).
 */
import { appendFileSync, readdirSync, rmSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { createInterface } from "node:readline"

const args = process.argv.slice(2)
const option = (name: string): string | undefined => {
  const i = args.indexOf(name)
  return i >= 0 ? args[i + 1] : undefined
}
const dir = option("--dir")
const initDelay = Number(option("--init-delay") ?? 0)
const ttl = option("--ttl")
const flood = Number(option("--flood") ?? 0)
const logFile = option("--log")

type Id = string | number

const send = (message: Record<string, unknown>): void => {
  process.stdout.write(`${JSON.stringify({ jsonrpc: "2.0", ...message })}\n`)
}

const marker = (kind: string) => (dir === undefined ? undefined : join(dir, `${kind}-${process.pid}`))
const countOf = (kind: string): number =>
  dir === undefined ? 0 : readdirSync(dir).filter((name) => name.startsWith(`${kind}-`)).length
const mark = (kind: string): void => {
  const file = marker(kind)
  if (file === undefined || dir === undefined) return
  writeFileSync(file, "")
  appendFileSync(join(dir, "counts"), `${kind} ${countOf(kind)}\n`)
}
const unmark = (kind: string): void => {
  const file = marker(kind)
  if (file !== undefined) rmSync(file, { force: true })
}

mark("alive")
const end = () => {
  unmark("init")
  unmark("alive")
  process.exit(0)
}
process.on("SIGTERM", end)

const read = (id: Id, uri: string): void => {
  if (uri === "flood://go") {
    for (let i = 0; i < flood; i++) {
      send({ method: "notifications/resources/updated", params: { uri: `flood://${i % 10}` } })
    }
  }
  send({
    id,
    result: { ...(ttl === undefined ? {} : { ttlMs: Number(ttl) }), contents: [{ uri, text: `body of ${uri}` }] }
  })
}

const lines = createInterface({ input: process.stdin })
lines.on("line", (line) => {
  let message: { id?: Id; method?: string; params?: { protocolVersion?: string; uri?: string } }
  try {
    message = JSON.parse(line)
  } catch {
    return
  }
  if (typeof message.method !== "string") return
  const uri = message.params?.uri
  if (logFile !== undefined) appendFileSync(logFile, `${message.method}${uri === undefined ? "" : ` ${uri}`}\n`)
  const id = message.id
  if (id === undefined) return
  switch (message.method) {
    case "initialize": {
      mark("init")
      const answer = () => {
        unmark("init")
        send({
          id,
          result: {
            protocolVersion: message.params?.protocolVersion ?? "2025-06-18",
            capabilities: { resources: { subscribe: false, listChanged: true } },
            serverInfo: { name: "limits", version: "1.0.0" }
          }
        })
      }
      if (initDelay > 0) setTimeout(answer, initDelay)
      else answer()
      return
    }
    case "ping":
      send({ id, result: {} })
      return
    case "resources/list":
      send({ id, result: { resources: [{ uri: "flood://0", name: "zero" }] } })
      return
    case "resources/read":
      read(id, String(uri))
      return
    default:
      send({ id, error: { code: -32601, message: `Method not found: ${message.method}` } })
  }
})
lines.on("close", end)
