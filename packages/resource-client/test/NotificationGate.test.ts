/**
 * The notification gate in front of the SDK: change notifications are applied to the connection's
 * own queue and signal, in order with the answers around them, and never reach the SDK; notifications
 * nobody handles are dropped (over stdio before they are even parsed); everything else passes.
 */
import { assert, describe, it } from "@effect/vitest"
import type { JSONRPCMessage, Transport } from "@modelcontextprotocol/client"
import { droppableLine, filterEvent, filterEventStream, gateNotifications } from "../src/internal/notificationGate.js"
import { ChangeQueue } from "../src/internal/changes.js"
import { Signal } from "../src/internal/onDemand.js"

const fakeTransport = () => {
  const transport = {
    start: () => Promise.resolve(),
    send: () => Promise.resolve(),
    close: () => Promise.resolve()
  } as unknown as Transport
  const seen: Array<unknown> = []
  const resourceChanges = new ChangeQueue()
  const toolsChanged = new Signal()
  let toolsFired = 0
  toolsChanged.listen(() => {
    toolsFired += 1
  })
  const stats = gateNotifications(transport, { resourceChanges, toolsChanged })
  transport.onmessage = (message) => {
    // what reached the SDK, with the changes pending at that moment
    seen.push({ message, pending: resourceChanges.poll() })
  }
  const push = (message: Record<string, unknown>) =>
    transport.onmessage?.({ jsonrpc: "2.0", ...message } as JSONRPCMessage)
  return { push, seen, stats, resourceChanges, toolsFired: () => toolsFired }
}

const updated = (uri: string) => ({ method: "notifications/resources/updated", params: { uri } })

describe("the notification gate", () => {
  it("applies a flood of changes to the connection's queue without the SDK, before the answer that follows", () => {
    const { push, seen, stats, resourceChanges } = fakeTransport()
    for (let i = 0; i < 10_000; i++) push(updated(`x://${i % 3}`))
    push({ method: "notifications/resources/list_changed" })
    push({ method: "notifications/resources/list_changed" })
    assert.deepStrictEqual(seen, [])
    push({ id: 1, result: {} })
    assert.deepStrictEqual(seen, [
      {
        message: { jsonrpc: "2.0", id: 1, result: {} },
        pending: { listChanged: true, uris: ["x://0", "x://1", "x://2"], everything: false, received: 10_002 }
      }
    ])
    assert.deepStrictEqual(stats, { received: 10_002, applied: 10_002, delivered: 0, dropped: 0 })
    assert.strictEqual(resourceChanges.poll(), undefined)
  })

  it("keeps a flood of distinct uris bounded: past the queue's bound it is one 'everything changed'", () => {
    const { push, stats, resourceChanges } = fakeTransport()
    for (let i = 0; i < 50_000; i++) push(updated(`y://${i}`))
    const batch = resourceChanges.poll()
    assert.deepStrictEqual(batch, { listChanged: false, uris: [], everything: true, received: 50_000 })
    assert.strictEqual(stats.delivered, 0)
  })

  it("fires the tools signal for tools/list_changed, at once", () => {
    const { push, seen, toolsFired } = fakeTransport()
    push({ method: "notifications/tools/list_changed" })
    push({ method: "notifications/tools/list_changed" })
    assert.strictEqual(toolsFired(), 2)
    assert.deepStrictEqual(seen, [])
  })

  it("drops what nobody handles; an unknown notification and a change without a uri pass to the SDK", () => {
    const { push, seen, stats } = fakeTransport()
    push({ method: "notifications/message", params: { level: "info", data: "x" } })
    push({ method: "notifications/progress", params: { progressToken: 1, progress: 1 } })
    push({ method: "notifications/prompts/list_changed" })
    push(updated("x://a"))
    push({ method: "notifications/other" })
    push({ method: "notifications/resources/updated", params: { uri: 7 } })
    assert.deepStrictEqual(
      seen.map((m) => (m as { message: { method: string } }).message.method),
      ["notifications/other", "notifications/resources/updated"]
    )
    assert.deepStrictEqual(stats, { received: 6, applied: 1, delivered: 2, dropped: 3 })
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

  it("applies an HTTP stream's change notifications to the connection's queue before the SDK's transport sees them", async () => {
    const resourceChanges = new ChangeQueue()
    const toolsChanged = new Signal()
    let toolsFired = 0
    toolsChanged.listen(() => {
      toolsFired += 1
    })
    const gate = { sink: { resourceChanges, toolsChanged } }
    const updated = (uri: string) =>
      `{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"${uri}"}}`
    const listChanged = '{"jsonrpc":"2.0","method":"notifications/resources/list_changed"}'
    const toolsListChanged = '{"method":"notifications/tools/list_changed","jsonrpc":"2.0"}'
    const answer = '{"jsonrpc":"2.0","id":4,"result":{"contents":[]}}'
    // not applied: a request that names the method, an update without a uri, unparseable data, another version
    const request = '{"jsonrpc":"2.0","id":9,"method":"notifications/resources/updated","params":{"uri":"x://r"}}'
    const noUri = '{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{}}'
    const broken = '{"jsonrpc":"2.0","method":"notifications/resources/updated",'
    const flood = Array.from({ length: 1000 }, (_, i) => `id: ${i}\ndata: ${updated(`x://${i % 10}`)}\n\n`).join("")
    const text = `${flood}data: ${listChanged}\n\ndata: ${answer}\n\ndata: ${toolsListChanged}\n\ndata: ${request}\n\ndata: ${noUri}\n\ndata: ${broken}\n\n`
    const bytes = new TextEncoder().encode(text)
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let i = 0; i < bytes.length; i += 97) controller.enqueue(bytes.subarray(i, i + 97))
        controller.close()
      }
    })
    const out = await new Response(filterEventStream(body, gate)).text()
    // none of the 1,002 change notifications reaches the SDK; their ids still advance the stream
    const ids = Array.from({ length: 1000 }, (_, i) => `id: ${i}\n\n`).join("")
    assert.strictEqual(out, `${ids}data: ${answer}\n\ndata: ${request}\n\ndata: ${noUri}\n\ndata: ${broken}\n\n`)
    const batch = resourceChanges.poll()
    assert.isDefined(batch)
    assert.isTrue(batch?.listChanged)
    assert.deepStrictEqual([...(batch?.uris ?? [])].sort(), Array.from({ length: 10 }, (_, i) => `x://${i}`).sort())
    assert.strictEqual(toolsFired, 1)
  })

  it("hands an HTTP transport's streams the connection's queue when the gate is installed", () => {
    const transport = {
      start: () => Promise.resolve(),
      send: () => Promise.resolve(),
      close: () => Promise.resolve(),
      streamGate: { sink: undefined }
    } as unknown as Transport & { streamGate: { sink: unknown } }
    const sink = { resourceChanges: new ChangeQueue(), toolsChanged: new Signal() }
    gateNotifications(transport, sink)
    assert.strictEqual(transport.streamGate.sink, sink)
  })
})
