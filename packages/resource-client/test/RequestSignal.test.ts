import { assert, describe, it } from "@effect/vitest"
import { connectInMemory } from "@mcp-resources/fixtures"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { RequestSignal } from "../src/internal/requestSignal.js"
import { outcome } from "./utils/wait.js"

describe("RequestSignal", () => {
  it("abort sets aborted and an AbortError reason, runs each listener once, and only the first time", () => {
    const signal = new RequestSignal()
    const seen: Array<string> = []
    signal.onabort = (event) => seen.push(`onabort ${event.type}`)
    signal.addEventListener("abort", (event) => seen.push(`listener ${event.type}`))
    signal.addEventListener("abort", { handleEvent: (event) => seen.push(`object ${event.type}`) })
    assert.isFalse(signal.aborted)
    signal.throwIfAborted()
    signal.abort()
    signal.abort(new Error("again"))
    assert.isTrue(signal.aborted)
    assert.deepStrictEqual(seen, ["onabort abort", "listener abort", "object abort"])
    assert.instanceOf(signal.reason, DOMException)
    assert.strictEqual((signal.reason as DOMException).name, "AbortError")
    assert.throws(() => signal.throwIfAborted(), "This operation was aborted")
  })

  it("keeps the given reason; a removed, a duplicate or a non-abort listener does not run twice or at all", () => {
    const signal = new RequestSignal()
    let calls = 0
    const counted = () => {
      calls += 1
    }
    const removed = () => {
      calls += 100
    }
    signal.addEventListener("abort", counted)
    signal.addEventListener("abort", counted)
    signal.addEventListener("abort", removed)
    signal.removeEventListener("abort", removed)
    signal.addEventListener("other", removed)
    const reason = new Error("stop")
    signal.abort(reason)
    assert.strictEqual(calls, 1)
    assert.strictEqual(signal.reason, reason)
    // a listener added after the abort never runs, as with Node's AbortSignal
    signal.addEventListener("abort", removed)
    assert.strictEqual(calls, 1)
  })

  it("the SDK honours it: aborting a request rejects it and the server gets notifications/cancelled", async () => {
    const fixture = connectInMemory({ name: "srv", reads: [{ uri: "memo://hang", hang: true }] })
    const client = new Client({ name: "test", version: "1.0.0" })
    await client.connect(await fixture.connect())
    try {
      const signal = new RequestSignal()
      const read = outcome(client.readResource({ uri: "memo://hang" }, { signal, timeout: 60000 }))
      await fixture.awaitRequest("resources/read")
      signal.abort()
      assert.match(await read, /AbortError: This operation was aborted/)
      await fixture.awaitCancelled("resources/read")
      // a signal aborted before the request is refused at once, and nothing is sent
      const before = fixture.requests.length
      const aborted = new RequestSignal()
      aborted.abort()
      assert.match(await outcome(client.readResource({ uri: "memo://hang" }, { signal: aborted })), /AbortError/)
      assert.strictEqual(fixture.requests.length, before)
    } finally {
      await client.close()
      await fixture.closeAll()
    }
  })
})
