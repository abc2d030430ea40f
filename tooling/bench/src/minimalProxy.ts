/**
 * The reference of scenario 4: the least an app-server can do for `mcp/resource/read` over stdio.
 * It forwards each read to one stdio MCP server as `resources/read` and answers with its contents:
 * the same two extra pipe hops, JSON parsing and writing, and per-event-loop-turn batching as the
 * app-server (its line framer and write batcher), and nothing else (no validation, no threads, no
 * Effect, no SDK). Answers `initialize`
 * and `thread/start` so the bench drives it exactly like the app-server. The server to spawn comes
 * from `MINIMAL_PROXY_SERVER` (JSON `{command, args}`); end of input ends it and its server.
 *
 * Run: `MINIMAL_PROXY_SERVER='{"command":"node","args":[...]}' node dist/minimalProxy.js`
 */
import { spawn } from "node:child_process"
import { LineSplitter, WriteBatcher } from "@mcp-resources/protocol/LineFramer"

interface Message {
  readonly id?: number | string
  readonly method?: string
  readonly params?: { readonly uri?: string }
  readonly result?: { readonly contents?: unknown }
  readonly error?: { readonly code: number; readonly message: string }
}

/** A protocol version the SDK's servers accept (a constant: importing the SDK's types is what we avoid). */
const protocolVersion = "2025-06-18"

const server = JSON.parse(process.env.MINIMAL_PROXY_SERVER ?? "null") as { command: string; args: Array<string> } | null
if (server === null) {
  process.stderr.write("minimalProxy: MINIMAL_PROXY_SERVER is not set\n")
  process.exit(2)
}
const child = spawn(server.command, server.args, { stdio: ["pipe", "pipe", "ignore"] })
child.once("error", (error) => {
  process.stderr.write(`minimalProxy: ${error.message}\n`)
  process.exit(1)
})

/** Messages written once per event-loop turn, one line each (the repository's one write batcher). */
const batched = (write: (text: string) => void) => {
  const batcher = new WriteBatcher(write)
  return (message: unknown) => batcher.push(JSON.stringify(message))
}
const toServer = batched((text) => child.stdin.write(text))
const toClient = batched((text) => process.stdout.write(text))

/** Calls `onMessage` with every `\n`-terminated JSON line of `stream` (the repository's one line framer). */
const readLines = (stream: NodeJS.ReadableStream, onMessage: (message: Message) => void) => {
  const splitter = new LineSplitter(64 * 1024 * 1024)
  stream.on("data", (chunk: Buffer) => {
    for (const frame of splitter.push(chunk)) {
      if (frame._tag === "line" && frame.text !== "") onMessage(JSON.parse(frame.text) as Message)
    }
  })
}

let nextId = 1
const pending = new Map<number, (message: Message) => void>()
const request = (method: string, params: unknown, onAnswer: (message: Message) => void) => {
  const id = nextId++
  pending.set(id, onAnswer)
  toServer({ jsonrpc: "2.0", id, method, params })
}
readLines(child.stdout, (message) => {
  if (typeof message.id !== "number") return
  const onAnswer = pending.get(message.id)
  pending.delete(message.id)
  onAnswer?.(message)
})

const serve = () => {
  let threads = 0
  readLines(process.stdin, (message) => {
    const id = message.id
    if (id === undefined) return
    switch (message.method) {
      case "initialize":
        return toClient({ jsonrpc: "2.0", id, result: { serverInfo: { name: "minimal-proxy" } } })
      case "thread/start":
        return toClient({ jsonrpc: "2.0", id, result: { thread: { id: `thread-${++threads}` } } })
      case "mcp/resource/read":
        return request("resources/read", { uri: message.params?.uri }, (answer) =>
          toClient(
            answer.error === undefined
              ? { jsonrpc: "2.0", id, result: { contents: answer.result?.contents, originCallId: null } }
              : { jsonrpc: "2.0", id, error: answer.error }
          )
        )
      default:
        return toClient({ jsonrpc: "2.0", id, error: { code: -32601, message: "Method not found" } })
    }
  })
  process.stdin.once("end", () => {
    child.stdin.end()
    child.once("exit", () => process.exit(0))
    setTimeout(() => child.kill("SIGKILL"), 2000).unref()
  })
}

// The MCP handshake first; requests from the bench wait until it is done.
process.stdin.pause()
request(
  "initialize",
  { protocolVersion, capabilities: {}, clientInfo: { name: "minimal-proxy", version: "1.0.0" } },
  (answer) => {
    if (answer.error !== undefined) {
      process.stderr.write(`minimalProxy: initialize failed: ${answer.error.message}\n`)
      process.exit(1)
    }
    toServer({ jsonrpc: "2.0", method: "notifications/initialized" })
    serve()
    process.stdin.resume()
  }
)
