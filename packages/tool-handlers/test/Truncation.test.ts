import { assert, describe, it } from "@effect/vitest"
import fc from "fast-check"
import { Truncation as Policy } from "@mcp-resources/protocol"
import { Truncation } from "../src/index.js"

const emoji = "😀"
const r1 = `${emoji.repeat(10)}\nsecond line with text\n`
const r6 = "this is an example of a long output that should be truncated"
const bytes = (limit: number): Policy.TruncationPolicy => ({ mode: "bytes", limit })
const tokens = (limit: number): Policy.TruncationPolicy => ({ mode: "tokens", limit })

const readPayload = (extra = "") =>
  `{"server":"hosted","uri":"skill://large/SKILL.md",${extra}"contents":[{"uri":"skill://large/SKILL.md","mimeType":"text/markdown","text":"${"x".repeat(16000)}"}]}`

const firstBytes = (s: string, n: number) => Buffer.from(s).subarray(0, n).toString("utf8")
const lastBytes = (s: string, n: number) => Buffer.from(s).subarray(-n).toString("utf8")

describe("truncateText vectors (resource-tools.md 10.3)", () => {
  const vectors: ReadonlyArray<readonly [string, string, Policy.TruncationPolicy, string]> = [
    ["R-1", r1, bytes(20), `${emoji}${emoji}…21 chars truncated…with text\n`],
    ["R-2", r1, tokens(8), `${emoji.repeat(4)}…8 tokens truncated… line with text\n`],
    ["R-3", "abcdef", tokens(0), "…2 tokens truncated…"],
    ["R-4", "example output", bytes(1), "…13 chars truncated…t"],
    ["R-5", "example output", tokens(1), "ex…3 tokens truncated…ut"],
    ["R-6", r6, bytes(30), "this is an exam…30 chars truncated…ld be truncated"],
    ["R-7", r6, tokens(5), "this is an…10 tokens truncated… truncated"],
    ["R-8", "hello world", bytes(5), "he…6 chars truncated…rld"],
    ["R-9", "hello world", bytes(10), "hello…1 chars truncated…world"],
    ["R-10", "abcdef", bytes(0), "…6 chars truncated…"],
    ["R-11", `${emoji}${emoji}`, bytes(1), "…2 chars truncated…"],
    ["R-12", "hello world", tokens(1), "he…2 tokens truncated…ld"],
    ["R-13", "a".repeat(100000), tokens(12000), `${"a".repeat(24000)}…13000 tokens truncated…${"a".repeat(24000)}`],
    ["R-14", "a".repeat(100000), bytes(12000), `${"a".repeat(6000)}…88000 chars truncated…${"a".repeat(6000)}`],
    ["R-18", `{"server":"hosted","resources":[]}`, bytes(1024), `{"server":"hosted","resources":[]}`]
  ]
  for (const [id, input, policy, output] of vectors) {
    it(`${id}: ${policy.mode} ${policy.limit} gives the specified output`, () => {
      assert.strictEqual(Truncation.truncateText(input, policy), output)
    })
  }

  it("R-15: a 16133-byte read payload under bytes 9600 keeps 4800 bytes each side of the marker", () => {
    const payload = readPayload()
    assert.strictEqual(Buffer.byteLength(payload), 16133)
    const out = Truncation.truncateText(payload, bytes(9600))
    assert.strictEqual(out, `${firstBytes(payload, 4800)}…6533 chars truncated…${lastBytes(payload, 4800)}`)
    const withResultType = readPayload(`"resultType":"complete",`)
    assert.strictEqual(Buffer.byteLength(withResultType), 16157)
    assert.include(Truncation.truncateText(withResultType, bytes(9600)), "…6557 chars truncated…")
  })

  it("R-16: truncating R-15's output again keeps its prefix and suffix around a smaller marker", () => {
    const payload = readPayload()
    const once = Truncation.truncateText(payload, bytes(9600))
    assert.strictEqual(Buffer.byteLength(once), 9626)
    assert.strictEqual(
      Truncation.truncateText(once, bytes(9600)),
      `${firstBytes(payload, 4800)}…22 chars truncated…${lastBytes(payload, 4800)}`
    )
  })

  it("R-17: the empty string stays empty under every policy", () => {
    for (const policy of [bytes(0), tokens(0), bytes(10), tokens(10)]) {
      assert.strictEqual(Truncation.truncateText("", policy), "")
    }
  })

  it("R-19: the effective policy multiplies the limit by 1.2, rounding up", () => {
    assert.deepStrictEqual(Policy.effective(bytes(8000)), bytes(9600))
    assert.deepStrictEqual(Policy.effective(bytes(10000)), bytes(12000))
    assert.deepStrictEqual(Policy.effective(bytes(1024)), bytes(1229))
    assert.deepStrictEqual(Policy.effective(tokens(10000)), tokens(12000))
  })

  it("truncateOutput applies the effective policy: configured bytes 8000 truncates R-15 like bytes 9600", () => {
    const payload = readPayload()
    assert.strictEqual(Truncation.truncateOutput(payload, bytes(8000)), Truncation.truncateText(payload, bytes(9600)))
  })

  it("approxTokens estimates one token per 4 bytes, rounding up", () => {
    assert.strictEqual(Truncation.approxTokens(""), 0)
    assert.strictEqual(Truncation.approxTokens("abcde"), 2)
    assert.strictEqual(Truncation.approxTokens(emoji), 1)
  })
})

describe("splitMiddle vectors", () => {
  const vectors: ReadonlyArray<readonly [string, number, number, number, string, string]> = [
    ["hello world", 5, 5, 1, "hello", "world"],
    ["abc", 0, 0, 3, "", ""],
    ["", 4, 4, 0, "", ""],
    ["abcdef", 3, 0, 3, "abc", ""],
    ["abcdef", 0, 3, 3, "", "def"],
    ["abcdef", 4, 4, 0, "abcd", "ef"],
    [`${emoji}abc${emoji}`, 5, 5, 1, `${emoji}a`, `c${emoji}`],
    [emoji.repeat(5), 1, 1, 5, "", ""],
    [emoji.repeat(5), 7, 7, 3, emoji, emoji],
    [emoji.repeat(5), 8, 8, 1, emoji.repeat(2), emoji.repeat(2)]
  ]
  for (const [s, head, tail, removed, prefix, suffix] of vectors) {
    it(`splitMiddle(${JSON.stringify(s)}, ${head}, ${tail}) removes ${removed}`, () => {
      assert.deepStrictEqual(Truncation.splitMiddle(s, head, tail), { removed, prefix, suffix })
    })
  }
})

/** A direct, per-character reading of section 10.2 to compare the byte-offset implementation against. */
const reference = (s: string, policy: Policy.TruncationPolicy): string => {
  const chars = Array.from(s)
  const length = Buffer.byteLength(s)
  const unit = policy.mode === "bytes" ? "chars" : "tokens"
  const maxBytes = policy.mode === "bytes" ? policy.limit : policy.limit * 4
  if (policy.mode === "tokens" && policy.limit > 0 && length <= maxBytes) return s
  if (s === "") return ""
  if (maxBytes === 0) return `…${unit === "chars" ? chars.length : Math.ceil(length / 4)} ${unit} truncated…`
  if (length <= maxBytes) return s
  const head = Math.floor(maxBytes / 2)
  const tail = maxBytes - head
  let offset = 0
  let prefixCount = 0
  const starts: Array<number> = []
  for (const c of chars) {
    starts.push(offset)
    offset += Buffer.byteLength(c)
    if (offset <= head && prefixCount === starts.length - 1) prefixCount++
  }
  let suffixIndex = starts.findIndex((start) => start >= length - tail)
  if (suffixIndex === -1) suffixIndex = chars.length
  suffixIndex = Math.max(suffixIndex, prefixCount)
  const removed = suffixIndex - prefixCount
  const count = unit === "chars" ? removed : Math.ceil((length - maxBytes) / 4)
  return `${chars.slice(0, prefixCount).join("")}…${count} ${unit} truncated…${chars.slice(suffixIndex).join("")}`
}

const text = fc.string({
  unit: fc.oneof(
    fc.constantFrom("a", "é", "€", emoji, "\n"),
    fc.string({ unit: "binary", minLength: 1, maxLength: 1 })
  ),
  maxLength: 200
})
const policy = fc.record({ mode: fc.constantFrom("bytes" as const, "tokens" as const), limit: fc.nat({ max: 300 }) })
const markerPattern = /…(\d+) (chars|tokens) truncated…/u

describe("truncation properties", () => {
  it("output is well-formed UTF-8 and agrees with a per-character reading of the algorithm", () => {
    fc.assert(
      fc.property(text, policy, (s, p) => {
        const out = Truncation.truncateText(s, p)
        assert.strictEqual(Buffer.from(out, "utf8").toString("utf8"), out)
        assert.strictEqual(out, reference(s, p))
      }),
      { numRuns: 500 }
    )
  })

  it("output keeps a prefix and a suffix of the input within the budget and reports the removed count", () => {
    fc.assert(
      fc.property(text, fc.integer({ min: 1, max: 300 }), (s, limit) => {
        const out = Truncation.truncateText(s, { mode: "bytes", limit })
        if (out === s) return
        const match = markerPattern.exec(out)
        assert.isNotNull(match)
        const prefix = out.slice(0, match!.index)
        const suffix = out.slice(match!.index + match![0].length)
        assert.isTrue(s.startsWith(prefix) && s.endsWith(suffix))
        assert.isAtMost(Buffer.byteLength(prefix), Math.floor(limit / 2))
        assert.isAtMost(Buffer.byteLength(suffix), limit - Math.floor(limit / 2))
        assert.strictEqual(
          Number(match![1]),
          Array.from(s).length - Array.from(prefix).length - Array.from(suffix).length
        )
      }),
      { numRuns: 500 }
    )
  })

  it("a tokens policy reports the byte excess in tokens", () => {
    fc.assert(
      fc.property(text, fc.integer({ min: 1, max: 60 }), (s, limit) => {
        const out = Truncation.truncateText(s, { mode: "tokens", limit })
        if (Buffer.byteLength(s) <= limit * 4) return assert.strictEqual(out, s)
        const match = markerPattern.exec(out)
        assert.strictEqual(Number(match![1]), Math.ceil((Buffer.byteLength(s) - limit * 4) / 4))
      }),
      { numRuns: 300 }
    )
  })

  it("truncates a 64 MiB multi-byte string quickly", () => {
    const big = `${"é".repeat(16 * 1024 * 1024)}${emoji.repeat(8 * 1024 * 1024)}`
    assert.strictEqual(Buffer.byteLength(big), 64 * 1024 * 1024)
    const started = performance.now()
    const out = Truncation.truncateOutput(big, { mode: "tokens", limit: 10000 })
    const elapsed = performance.now() - started
    assert.strictEqual(
      out,
      `${"é".repeat(12000)}…${(64 * 1024 * 1024 - 48000) / 4} tokens truncated…${emoji.repeat(6000)}`
    )
    const chars = Truncation.truncateText(big, { mode: "bytes", limit: 8 })
    assert.strictEqual(chars, `éé…${16 * 1024 * 1024 + 8 * 1024 * 1024 - 3} chars truncated…${emoji}`)
    assert.isBelow(elapsed, 5000)
  })
})
