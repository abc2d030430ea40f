import { Socket } from "node:net"
import { assert, describe, it, vi } from "@effect/vitest"
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js"
import { MessageTooLargeError, StdioTransport } from "../src/internal/stdioTransport.js"
import { outcome, within } from "./utils/wait.js"

/** A transport over `node -e script`, recording what it receives; `seen.until` awaits a change that makes `ready` hold. */
const open = (script: string, maxMessageBytes = 1000) => {
  const listeners = new Set<() => void>()
  const changed = () => {
    for (const listener of [...listeners]) listener()
  }
  const until = (ready: () => boolean, what = "the transport's callbacks"): Promise<void> =>
    within(
      new Promise<void>((resolve) => {
        const check = () => {
          if (!ready()) return
          listeners.delete(check)
          resolve()
        }
        listeners.add(check)
        check()
      }),
      what
    )
  const seen = {
    messages: [] as Array<JSONRPCMessage>,
    errors: [] as Array<Error>,
    stderr: "",
    closed: false,
    until
  }
  const transport = new StdioTransport({
    command: process.execPath,
    args: ["-e", script],
    env: { PATH: process.env.PATH ?? "" },
    maxMessageBytes,
    stderr: (text) => {
      seen.stderr += text
      changed()
    }
  })
  transport.onmessage = (message) => {
    seen.messages.push(message)
    changed()
  }
  transport.onerror = (error) => {
    seen.errors.push(error)
    changed()
  }
  let closed!: () => void
  const whenClosed = new Promise<void>((resolve) => {
    closed = resolve
  })
  transport.onclose = () => {
    seen.closed = true
    changed()
    closed()
  }
  return { transport, seen, whenClosed }
}

/** Keeps a child script alive until its stdin ends (the transport's close). */
const exitOnEnd = 'process.stdin.resume(); process.stdin.on("end", () => process.exit(0))'

const notification = (n: number): JSONRPCMessage => ({ jsonrpc: "2.0", method: "notifications/message", params: { n } })

/** A child that answers every stdin read with one notification saying how many lines that read held. */
const countLinesPerRead = `
process.stdin.on("data", (chunk) => {
  const lines = chunk.toString().split("\\n").filter((l) => l.length > 0).map((l) => JSON.parse(l).params.n)
  process.stdout.write(JSON.stringify({ jsonrpc: "2.0", method: "reads", params: { lines } }) + "\\n")
})`

describe("StdioTransport", () => {
  it("writes every message sent in one turn with one write, in order, one line each", async () => {
    const { transport, seen } = open(countLinesPerRead)
    await transport.start()
    const write = vi.spyOn(Socket.prototype, "write")
    const writesOfNotifications = () =>
      write.mock.calls.filter(([chunk]) => typeof chunk === "string" && chunk.includes("notifications/message")).length
    try {
      // 20 small messages: one write under PIPE_BUF bytes arrives in one read
      const sent = Array.from({ length: 20 }, (_, n) => transport.send(notification(n)))
      await Promise.all(sent)
      assert.strictEqual(writesOfNotifications(), 1)
      await seen.until(() => seen.messages.length === 1, "message 1")
      assert.deepStrictEqual(seen.messages[0], {
        jsonrpc: "2.0",
        method: "reads",
        params: { lines: Array.from({ length: 20 }, (_, n) => n) }
      })
      // a later turn is a later write
      await transport.send(notification(20))
      assert.strictEqual(writesOfNotifications(), 2)
      await seen.until(() => seen.messages.length === 2, "message 2")
      assert.deepStrictEqual(seen.messages[1], { jsonrpc: "2.0", method: "reads", params: { lines: [20] } })
    } finally {
      write.mockRestore()
      await transport.close()
    }
  })

  it("joins a message written in pieces, accepts CRLF, and two messages of one chunk under the limit each", async () => {
    const message = (n: number) => JSON.stringify({ jsonrpc: "2.0", method: "m", params: { n, pad: "p".repeat(600) } })
    const script = `
const a = ${JSON.stringify(message(1))}
const b = ${JSON.stringify(message(2))}
const c = ${JSON.stringify(message(3))}
process.stdout.write(a.slice(0, 100))
setTimeout(() => process.stdout.write(a.slice(100, 300)), 30)
setTimeout(() => process.stdout.write(a.slice(300) + "\\r\\n" + b + "\\n" + c.slice(0, 10)), 60)
setTimeout(() => process.stdout.write(c.slice(10) + "\\n"), 90)
${exitOnEnd}`
    // each message is about 650 bytes: together they are over the limit, each alone is under it
    const { transport, seen } = open(script, 700)
    await transport.start()
    try {
      await seen.until(() => seen.messages.length === 3, "message 3")
      assert.deepStrictEqual(
        seen.messages.map((m) => ("params" in m ? m.params?.n : undefined)),
        [1, 2, 3]
      )
      assert.deepStrictEqual(seen.errors, [])
    } finally {
      await transport.close()
    }
  })

  it("a message of exactly the limit is accepted; one byte more fails with the limit and closes", async () => {
    const fits = JSON.stringify({ jsonrpc: "2.0", method: "m", params: { pad: "" } })
    const max = 500
    const exact = fits.replace('"pad":""', `"pad":"${"x".repeat(max - fits.length)}"`)
    const over = exact.replace('"pad":"', '"pad":"y')
    const script = `
process.stdout.write(${JSON.stringify(`${exact}\r\n`)})
setTimeout(() => process.stdout.write(${JSON.stringify(`${over}\n`)}), 30)
${exitOnEnd}`
    const { transport, seen, whenClosed } = open(script, max)
    await transport.start()
    await whenClosed
    assert.strictEqual(exact.length, max)
    assert.strictEqual(seen.messages.length, 1)
    assert.strictEqual(seen.errors.length, 1)
    const error = seen.errors[0]
    assert.instanceOf(error, MessageTooLargeError)
    assert.strictEqual(error?.message, "message exceeds 500 bytes")
    assert.strictEqual(transport.pid, undefined)
  })

  it("a partial line over the limit is refused before its end arrives", async () => {
    const script = `process.stdout.write("{" + "x".repeat(5000)); ${exitOnEnd}`
    const { transport, seen, whenClosed } = open(script, 1000)
    await transport.start()
    await whenClosed
    assert.instanceOf(seen.errors[0], MessageTooLargeError)
    assert.deepStrictEqual(seen.messages, [])
  })

  it("a line that is not JSON-RPC is reported and the next message still arrives", async () => {
    const script = `process.stdout.write("not json\\n[1]\\n{\\"jsonrpc\\":\\"1.0\\"}\\n" + JSON.stringify({ jsonrpc: "2.0", method: "ok" }) + "\\n"); ${exitOnEnd}`
    const { transport, seen } = open(script)
    await transport.start()
    try {
      await seen.until(() => seen.messages.length === 1, "message 1")
      assert.strictEqual(seen.errors.length, 3)
      assert.strictEqual(seen.errors[1]?.message, "not a JSON-RPC 2.0 message: [1]")
      assert.deepStrictEqual(seen.messages[0], { jsonrpc: "2.0", method: "ok" })
    } finally {
      await transport.close()
    }
  })

  it("standard error goes to the callback, never to the messages", async () => {
    const script = `process.stderr.write("warming up\\n"); ${exitOnEnd}`
    const { transport, seen } = open(script)
    await transport.start()
    try {
      await seen.until(() => seen.stderr.includes("warming up"), "the stderr line")
      assert.deepStrictEqual(seen.messages, [])
    } finally {
      await transport.close()
    }
  })

  it("close ends stdin and a server that exits on it is closed at once; queued messages are written first", async () => {
    const script = `
let text = ""
process.stdin.on("data", (c) => { text += c })
process.stdin.on("end", () => { process.stderr.write("got " + text.trim().split("\\n").length); process.exit(0) })`
    const { transport, seen } = open(script)
    await transport.start()
    void transport.send(notification(1))
    void transport.send(notification(2))
    const started = Date.now()
    await transport.close()
    assert.isBelow(Date.now() - started, 2000)
    await seen.until(() => seen.closed, "the close")
    assert.include(seen.stderr, "got 2")
    await assertRejects(transport.send(notification(3)), "Not connected")
  })

  it("close escalates to SIGTERM after the grace when the server ignores the end of stdin", async () => {
    const script = `process.stdin.resume(); process.stdin.on("end", () => {}); setInterval(() => {}, 1000)`
    const { transport, seen } = open(script)
    await transport.start()
    const pid = transport.pid
    await transport.close()
    await seen.until(() => seen.closed, "the close")
    assert.isDefined(pid)
    assert.throws(() => process.kill(pid!, 0))
  }, 10000)

  it("close escalates to SIGKILL when the server also ignores SIGTERM", async () => {
    const script = `process.on("SIGTERM", () => {}); process.stdin.resume(); process.stdin.on("end", () => {}); setInterval(() => {}, 1000)`
    const { transport, seen } = open(script)
    await transport.start()
    const pid = transport.pid
    await transport.close()
    await seen.until(() => seen.closed, "the close")
    assert.throws(() => process.kill(pid!, 0))
  }, 10000)

  it("start fails with the spawn error of a missing command; send before start is refused", async () => {
    const transport = new StdioTransport({
      command: "/nonexistent/mcp-server",
      args: [],
      env: {},
      maxMessageBytes: 1000,
      stderr: () => {}
    })
    await assertRejects(transport.send(notification(1)), "Not connected")
    await assertRejects(transport.start(), "spawn /nonexistent/mcp-server ENOENT")
  })
})

const assertRejects = async (promise: Promise<unknown>, message: string): Promise<void> => {
  assert.strictEqual(await outcome(promise), `Error: ${message}`)
}
