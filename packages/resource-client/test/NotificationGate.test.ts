/**
 * The notification gate in front of the SDK: a flood of change notifications reaches the SDK as one
 * per distinct target, in order with the answers around it; notifications nobody handles are dropped
 * (over stdio before they are even parsed); nothing that is handled is ever dropped.
 */
import { assert, describe, it } from "@effect/vitest"
import type { JSONRPCMessage, Transport } from "@modelcontextprotocol/client"
import { droppableLine, filterEvent, filterEventStream, gateNotifications } from "../src/internal/notificationGate.js"

const fakeTransport = () => {
  const transport = {
    start: () => Promise.resolve(),
    send: () => Promise.resolve(),
    close: () => Promise.resolve()
  } as unknown as Transport
  const seen: Array<unknown> = []
  const stats = gateNotifications(transport)
  transport.onmessage = (message) => {
    seen.push(message)
  }
  const push = (message: Record<string, unknown>) =>
    transport.onmessage?.({ jsonrpc: "2.0", ...message } as JSONRPCMessage)
  return { push, seen, stats }
}

const updated = (uri: string) => ({ method: "notifications/resources/updated", params: { uri } })
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve))

describe("the notification gate", () => {
  it("merges a flood per target and hands it on before the next answer, in order", () => {
    const { push, seen, stats } = fakeTransport()
    for (let i = 0; i < 1000; i++) push(updated(`x://${i % 2}`))
    push({ method: "notifications/resources/list_changed" })
    push({ method: "notifications/resources/list_changed" })
    assert.deepStrictEqual(seen, [])
    push({ id: 1, result: {} })
    assert.deepStrictEqual(
      seen.map((m) => JSON.stringify(m)),
      [
        JSON.stringify({ jsonrpc: "2.0", ...updated("x://0") }),
        JSON.stringify({ jsonrpc: "2.0", ...updated("x://1") }),
        JSON.stringify({ jsonrpc: "2.0", method: "notifications/resources/list_changed" }),
        JSON.stringify({ jsonrpc: "2.0", id: 1, result: {} })
      ]
    )
    assert.deepStrictEqual(stats, { received: 1002, delivered: 3, dropped: 0 })
  })

  it("hands held changes on at the end of the turn, and at once past the bound", async () => {
    const { push, seen } = fakeTransport()
    push({ method: "notifications/tools/list_changed" })
    assert.strictEqual(seen.length, 0)
    await nextTurn()
    assert.strictEqual(seen.length, 1)
    for (let i = 0; i < 1024; i++) push(updated(`y://${i}`))
    assert.strictEqual(seen.length, 1 + 1024)
  })

  it("drops what nobody handles; an unknown notification passes, after the held ones", () => {
    const { push, seen, stats } = fakeTransport()
    push({ method: "notifications/message", params: { level: "info", data: "x" } })
    push({ method: "notifications/progress", params: { progressToken: 1, progress: 1 } })
    push(updated("x://a"))
    push({ method: "notifications/other" })
    assert.deepStrictEqual(
      seen.map((m) => (m as { method: string }).method),
      ["notifications/resources/updated", "notifications/other"]
    )
    assert.deepStrictEqual(stats, { received: 4, delivered: 2, dropped: 2 })
  })

  it("drops a stdio line unparsed only when it certainly is such a notification", () => {
    const message = '{"method":"notifications/message","params":{"level":"info","data":"x"},"jsonrpc":"2.0"}'
    assert.isTrue(droppableLine(message))
    assert.isTrue(droppableLine('{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1}}'))
    // a request of that name, a second method key, an escaped key, no jsonrpc, another method
    assert.isFalse(droppableLine('{"method":"notifications/message","id":1,"jsonrpc":"2.0"}'))
    assert.isFalse(
      droppableLine('{"method":"notifications/message","method":"notifications/resources/updated","jsonrpc":"2.0"}')
    )
    assert.isFalse(droppableLine('{"method":"notifications/message","\\u0069d":1,"jsonrpc":"2.0"}'))
    assert.isFalse(droppableLine('{"method":"notifications/message","params":{}}'))
    assert.isFalse(droppableLine('{"method":"notifications/messages","jsonrpc":"2.0"}'))
    assert.isFalse(droppableLine('{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"x"}}'))
  })

  it("drops such notifications from an event stream before the SDK parses them, keeping ids and every other event", async () => {
    const message = '{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}}'
    const updated = '{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"x://a"}}'
    assert.strictEqual(filterEvent(`event: message\ndata: ${message}`), "")
    assert.strictEqual(filterEvent(`id: 7\nevent: message\ndata: ${message}`), "id: 7")
    assert.strictEqual(filterEvent(`data: ${updated}`), `data: ${updated}`)
    assert.strictEqual(filterEvent(": keep-alive"), ": keep-alive")
    const text = `data: ${message}\n\nid: 1\ndata: ${message}\r\n\r\ndata: ${updated}\n\n: ping\n\ndata: ${message}\n\ndata: tail`
    // split anywhere, even inside an event and inside a multi-byte character
    const bytes = new TextEncoder().encode(text)
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let i = 0; i < bytes.length; i += 7) controller.enqueue(bytes.subarray(i, i + 7))
        controller.close()
      }
    })
    const out = await new Response(filterEventStream(body)).text()
    assert.strictEqual(out, `id: 1\n\ndata: ${updated}\n\n: ping\n\ndata: tail`)
  })
})
