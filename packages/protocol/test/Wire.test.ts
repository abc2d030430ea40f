import { assert, describe, it } from "@effect/vitest"
import { Effect, Either } from "effect"
import fc from "fast-check"
import * as AppServer from "../src/AppServer.js"
import * as Wire from "../src/Wire.js"
import { LineSplitter, WriteBatcher } from "../src/Wire.js"

describe("LineSplitter", () => {
  it("splits chunks into lines across chunk boundaries and drops a trailing \\r", () => {
    const s = new LineSplitter(100)
    assert.deepStrictEqual(s.push(Buffer.from('{"a":')), [])
    assert.deepStrictEqual(s.push(Buffer.from('1}\r\n{"b":2}\n{"c"')), [
      { _tag: "line", text: '{"a":1}' },
      { _tag: "line", text: '{"b":2}' }
    ])
    assert.deepStrictEqual(s.end(), [{ _tag: "line", text: '{"c"' }])
  })

  it("reports a line over the cap once, without keeping its bytes, then continues", () => {
    const s = new LineSplitter(8)
    assert.deepStrictEqual(s.push(Buffer.from("123456789")), [])
    assert.deepStrictEqual(s.push(Buffer.from("x".repeat(1000))), [])
    assert.deepStrictEqual(s.push(Buffer.from("y\nok\n")), [{ _tag: "oversize" }, { _tag: "line", text: "ok" }])
    assert.deepStrictEqual(s.push(Buffer.from("12345678\n")), [{ _tag: "line", text: "12345678" }])
  })

  it("chunking never changes the frames", () => {
    fc.assert(
      fc.property(
        fc.array(fc.string({ maxLength: 20 }), { maxLength: 10 }),
        fc.array(fc.nat({ max: 30 })),
        (lines, cuts) => {
          const text = lines.map((l) => l.replaceAll("\n", "")).join("\n")
          const whole = new LineSplitter(12)
          const expected = [...whole.push(Buffer.from(text)), ...whole.end()]
          const buf = Buffer.from(text)
          const split = new LineSplitter(12)
          const got = []
          let at = 0
          for (const cut of cuts) {
            got.push(...split.push(buf.subarray(at, Math.min(buf.length, at + cut))))
            at = Math.min(buf.length, at + cut)
          }
          got.push(...split.push(buf.subarray(at)), ...split.end())
          assert.deepStrictEqual(got, expected)
        }
      )
    )
  })
})

describe("WriteBatcher", () => {
  it.live("writes every message of one event-loop turn with one write, one line each, in order", () =>
    Effect.gen(function* () {
      const writes: Array<string> = []
      const batcher = new WriteBatcher((text) => writes.push(text))
      batcher.push('{"id":1}')
      batcher.push('{"id":2}')
      assert.strictEqual(batcher.queuedLength, 16)
      assert.deepStrictEqual(writes, [])
      yield* Effect.async<void>((resume) => void setImmediate(() => resume(Effect.void)))
      assert.deepStrictEqual(writes, ['{"id":1}\n{"id":2}\n'])
      batcher.push('{"id":3}')
      batcher.flush()
      batcher.push('{"id":4}')
      batcher.clear()
      yield* Effect.async<void>((resume) => void setImmediate(() => resume(Effect.void)))
      assert.deepStrictEqual(writes, ['{"id":1}\n{"id":2}\n', '{"id":3}\n'])
    })
  )
})

describe("Wire codecs", () => {
  it("a codec set compiles each schema once per direction; another set compiles its own", () => {
    const schema = AppServer.results["thread/list"]
    const strict = Wire.makeCodecs()
    const preserve = Wire.makeCodecs("preserve")
    assert.strictEqual(strict.decoder(schema), strict.decoder(schema))
    assert.strictEqual(preserve.encoder(schema), preserve.encoder(schema))
    assert.notStrictEqual(strict.decoder(schema), preserve.decoder(schema))
    assert.notStrictEqual(strict.decoder(schema), strict.encoder(schema))
    assert.notStrictEqual(strict.decoder(schema), Wire.makeCodecs().decoder(schema))
  })

  it("strict drops the fields a schema does not name; preserve keeps them", () => {
    const value = { threads: [], extra: 1 }
    const schema = AppServer.results["thread/list"]
    assert.deepStrictEqual(Either.getOrThrow(Wire.makeCodecs().encoder(schema)(value)), { threads: [] })
    assert.deepStrictEqual(Either.getOrThrow(Wire.makeCodecs("preserve").decoder(schema)(value)), value)
    assert.deepStrictEqual(Either.getOrThrow(Wire.compileEncoder(schema)(value)), { threads: [] })
    assert.deepStrictEqual(Either.getOrThrow(Wire.compileDecoder(schema, "preserve")(value)), value)
  })

  it("encodeResult encodes through the result schema, in the schema's order", () => {
    const encoded = Wire.makeCodecs().encodeResult("thread/start", AppServer.results["thread/start"], {
      thread: { ephemeral: false, id: "t1" },
      extra: true
    })
    assert.strictEqual(JSON.stringify(Either.getOrThrow(encoded)), '{"thread":{"id":"t1","ephemeral":false}}')
  })

  it("encodeResult names the method and the first offending field of a result of another shape", () => {
    const encoded = Wire.makeCodecs().encodeResult("thread/start", AppServer.results["thread/start"], {
      thread: { id: 5 }
    })
    assert.deepStrictEqual(
      encoded,
      Either.left(
        "internal error: the result of thread/start does not match its schema: thread.id: expected string, got 5"
      )
    )
  })

  it("encodeResult answers a read result through its fast encoder exactly as the schema encodes it", () => {
    const schema = AppServer.results["mcp/resource/read"]
    const value = { originCallId: null, contents: [{ text: "hi", uri: "file:///a", mimeType: "text/plain" }] }
    const fast = Either.getOrThrow(Wire.makeCodecs().encodeResult("mcp/resource/read", schema, value))
    assert.strictEqual(JSON.stringify(fast), JSON.stringify(Either.getOrThrow(Wire.compileEncoder(schema)(value))))
  })

  it("decodeWith refuses params nested deeper than the guard before decoding", () => {
    let deep: unknown = 1
    for (let i = 0; i < Wire.maxParamsDepth + 1; i++) deep = { a: deep }
    const refused = Either.left(`a.a.a: nested deeper than ${Wire.maxParamsDepth} levels`)
    assert.deepStrictEqual(Wire.decodeWith(AppServer.methods["thread/list"], deep), refused)
    assert.deepStrictEqual(Wire.makeCodecs().decodeWith(AppServer.methods["thread/list"], deep), refused)
  })
})
