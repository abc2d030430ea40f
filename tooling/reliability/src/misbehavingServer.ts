/**
 * A raw stdio MCP server that misbehaves on purpose (no SDK: every byte it writes is chosen here).
 * `node dist/misbehavingServer.js MODE [--log FILE]`. It answers `initialize`, `ping` and `tools/list` correctly
 * (so it becomes ready), then misbehaves on `resources/list`, `resources/templates/list`,
 * `resources/read` and `tools/call` according to MODE:
 *
 * - `crash`: writes half a response line and exits with status 1 (a crash in the middle of a request);
 * - `hang`: never answers;
 * - `malformed`: writes a line that is not JSON, one that is JSON but not JSON-RPC, and one response
 *   with neither `result` nor `error`, then nothing more;
 * - `oversized`: answers with a valid result of `--bytes N` bytes (default 2 MiB);
 * - `invalid`: answers with a result of the wrong shape (`resources: "nope"`, contents of numbers, …);
 * - `flood`: sends `--flood N` notifications (default 20000, mixed kinds, list_changed among them)
 *   before a correct answer.
 *
 * With `--log FILE` every request method is appended to FILE as one line.
 */
import { appendFileSync } from "node:fs"
import { createInterface } from "node:readline"

const [mode = "hang", ...rest] = process.argv.slice(2)
const option = (name: string): string | undefined => {
  const i = rest.indexOf(name)
  return i >= 0 ? rest[i + 1] : undefined
}
const logFile = option("--log")
const bytes = Number(option("--bytes") ?? 2 * 1024 * 1024)
const flood = Number(option("--flood") ?? 20000)

type Id = string | number

const send = (message: Record<string, unknown>): void => {
  process.stdout.write(`${JSON.stringify({ jsonrpc: "2.0", ...message })}\n`)
}

const good = (method: string): Record<string, unknown> => {
  switch (method) {
    case "resources/list":
      return { resources: [{ uri: "bad://one", name: "one" }] }
    case "resources/templates/list":
      return { resourceTemplates: [{ uriTemplate: "bad://{id}", name: "bad" }] }
    case "resources/read":
      return { contents: [{ uri: "bad://one", text: "one" }] }
    default:
      return { content: [{ type: "text", text: "work ok" }] }
  }
}

const invalid = (method: string): Record<string, unknown> => {
  switch (method) {
    case "resources/list":
      return { resources: "nope" }
    case "resources/templates/list":
      return { resourceTemplates: [{ uriTemplate: 5 }] }
    case "resources/read":
      return { contents: [1, 2, 3] }
    default:
      return { content: "not an array", isError: "maybe" }
  }
}

const oversized = (method: string): Record<string, unknown> => {
  const text = "x".repeat(bytes)
  switch (method) {
    case "resources/list":
      return { resources: [{ uri: "bad://big", name: text }] }
    case "resources/templates/list":
      return { resourceTemplates: [{ uriTemplate: "bad://{id}", name: text }] }
    case "resources/read":
      return { contents: [{ uri: "bad://big", text }] }
    default:
      return { content: [{ type: "text", text }] }
  }
}

const misbehave = (id: Id, method: string): void => {
  switch (mode) {
    case "crash":
      process.stdout.write(`{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":{"resou`)
      process.exit(1)
      break
    case "hang":
      break
    case "malformed":
      process.stdout.write("this is not json at all\n")
      process.stdout.write(`[1,2,3]\n`)
      process.stdout.write(`${JSON.stringify({ jsonrpc: "2.0", id })}\n`)
      break
    case "oversized":
      send({ id, result: oversized(method) })
      break
    case "invalid":
      send({ id, result: invalid(method) })
      break
    case "flood": {
      for (let i = 0; i < flood; i++) {
        if (i % 10 === 0) send({ method: "notifications/tools/list_changed" })
        else if (i % 10 === 1) send({ method: "notifications/resources/list_changed" })
        else if (i % 10 === 2) send({ method: "notifications/progress", params: { progressToken: i, progress: i } })
        else send({ method: "notifications/message", params: { level: "info", data: `flood ${i}` } })
      }
      send({ id, result: good(method) })
      break
    }
    default:
      send({ id, error: { code: -32603, message: `unknown mode ${mode}` } })
  }
}

const lines = createInterface({ input: process.stdin })
lines.on("line", (line) => {
  let message: { id?: Id; method?: string; params?: { protocolVersion?: string } }
  try {
    message = JSON.parse(line)
  } catch {
    return
  }
  if (typeof message.method !== "string") return
  if (logFile !== undefined) appendFileSync(logFile, `${message.method}\n`)
  const id = message.id
  if (id === undefined) return
  switch (message.method) {
    case "initialize":
      send({
        id,
        result: {
          protocolVersion: message.params?.protocolVersion ?? "2025-06-18",
          capabilities: { resources: { listChanged: true }, tools: { listChanged: true }, logging: {} },
          serverInfo: { name: `misbehave-${mode}`, version: "1.0.0" }
        }
      })
      return
    case "ping":
      send({ id, result: {} })
      return
    case "tools/list":
      send({ id, result: { tools: [{ name: "work", inputSchema: { type: "object" } }] } })
      return
    case "resources/list":
    case "resources/templates/list":
    case "resources/read":
    case "tools/call":
      misbehave(id, message.method)
      return
    default:
      send({ id, error: { code: -32601, message: `Method not found: ${message.method}` } })
  }
})
lines.on("close", () => process.exit(0))
