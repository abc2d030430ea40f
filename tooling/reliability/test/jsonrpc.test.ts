/**
 * Bad input on the app-server's JSON-RPC lines (stdio): random bytes, deep nesting, huge numbers,
 * non-requests, unknown methods and a wrong type in every param of every method are each answered
 * with an error response (or, for notifications, ignored); 16 MiB lines are refused with
 * `-32600 Request too large` without being buffered whole; the server keeps answering and its
 * resident memory stays bounded.
 */
import { stdioCommand } from "@mcp-resources/fixtures"
import fc from "fast-check"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { AppServerProcess, Figures } from "../src/index.js"
import { deepNesting, hugeNumber } from "./utils/arbitraries.js"
import { tempDir, writeConfig } from "./utils/app.js"

const numRuns = 3000
const temp = tempDir("jsonrpc")
let server: AppServerProcess.AppServer
let threadId = ""
let baselineKiB = 0

beforeAll(async () => {
  const config = writeConfig(temp.dir, {
    srv: stdioCommand({
      name: "srv",
      resourcePages: [{ result: { resources: [{ uri: "test://x", name: "x" }] } }],
      tools: [{ name: "echo" }]
    })
  })
  server = await AppServerProcess.startInitialized({ config, dataDir: temp.dir })
  const thread = await server.request("thread/start", {})
  threadId = thread.result!.thread ? (thread.result!.thread as { id: string }).id : ""
  await server.request("turn/start", { threadId, turnId: "t1" })
  const call = await server.request("tool/call", {
    threadId,
    turnId: "t1",
    callId: "warm",
    name: "mcp__srv__echo",
    arguments: "{}"
  })
  expect(call.result?.success).toBe(true)
  baselineKiB = server.rssKiB() ?? 0
})

afterAll(async () => {
  await server?.close()
  temp.remove()
})

type Expectation =
  | {
      readonly kind: "error"
      readonly id: string | number | null
      readonly codes: ReadonlyArray<number>
      readonly message?: RegExp
    }
  | { readonly kind: "none" }

interface Case {
  readonly label: string
  readonly line: string
  readonly expect: Expectation
}

/** Methods and their params: field → the JSON kinds it accepts (everything else is a wrong type). */
const methods = (): Record<string, Record<string, ReadonlyArray<string>>> => ({
  "thread/start": { ephemeral: ["boolean"], config: ["object"] },
  "thread/resume": { threadId: ["string"] },
  "turn/start": { threadId: ["string"], turnId: ["string"] },
  "thread/delete": { threadId: ["string"] },
  "tool/list": { threadId: ["string"] },
  "tool/call": {
    threadId: ["string"],
    turnId: ["string"],
    callId: ["string"],
    name: ["string"],
    arguments: ["string"]
  },
  "mcp/resource/read": {
    threadId: ["string", "null"],
    originCallId: ["string", "null"],
    server: ["string"],
    uri: ["string"],
    connectorId: ["string", "null"]
  },
  "thread/rollback": { threadId: ["string"], numTurns: ["integer"] },
  "thread/compact": { threadId: ["string"] },
  "skills/list": { threadId: ["string"] },
  "skills/read": { threadId: ["string"], package: ["string"], resource: ["string"] }
})

const validValue = (field: string): unknown =>
  field === "threadId"
    ? threadId
    : field === "turnId"
      ? "t1"
      : field === "numTurns"
        ? 0
        : field === "ephemeral"
          ? true
          : field === "config"
            ? {}
            : field === "arguments"
              ? "{}"
              : field === "name"
                ? "mcp__srv__echo"
                : field === "server"
                  ? "srv"
                  : field === "uri"
                    ? "test://x"
                    : field === "package"
                      ? "skill://p/d"
                      : field === "resource"
                        ? "skill://p/d/x"
                        : "x"

const kindValues: Record<string, ReadonlyArray<unknown>> = {
  string: ["s", ""],
  boolean: [true, false],
  number: [1.5, -1, 2.5],
  integer: [7],
  null: [null],
  object: [{}, { a: 1 }],
  array: [[], ["s"]]
}

const wrongType: fc.Arbitrary<Case> = fc.tuple(fc.nat(), fc.nat(), fc.nat(), fc.nat()).map(([m, f, k, v]) => {
  const table = methods()
  const names = Object.keys(table)
  const method = names[m % names.length]!
  const fields = table[method]!
  const fieldNames = Object.keys(fields)
  const field = fieldNames[f % fieldNames.length]!
  const allowed = fields[field]!
  const wrongKinds = Object.keys(kindValues).filter(
    (kind) => !allowed.includes(kind) && !(allowed.includes("number") && kind === "integer")
  )
  const kind = wrongKinds[k % wrongKinds.length]!
  const values = kindValues[kind]!
  const value = values[v % values.length]
  const params = Object.fromEntries(fieldNames.map((name) => [name, name === field ? value : validValue(name)]))
  const id = `w-${m}-${f}-${k}-${v}`
  return {
    label: "wrong param type",
    line: JSON.stringify({ id, method, params }),
    expect: { kind: "error", id, codes: [-32600], message: /^Invalid request: / }
  }
})

const randomBytes: fc.Arbitrary<Case> = fc
  .uint8Array({ minLength: 1, maxLength: 300 })
  .map((bytes) => Buffer.from(bytes.filter((b) => b !== 0x0a)).toString("latin1"))
  .filter((s) => s.trim() !== "")
  .map((line) => {
    let parsed: unknown
    let ok = true
    try {
      parsed = JSON.parse(Buffer.from(line, "latin1").toString("utf8"))
    } catch {
      ok = false
    }
    return {
      label: "random bytes",
      line,
      expect: ok ? expectationOf(parsed) : { kind: "error", id: null, codes: [-32700], message: /^Parse error$/ }
    } as Case
  })

/** What a parsed JSON line must produce (spec section 2). */
const expectationOf = (value: unknown): Expectation => {
  if (typeof value !== "object" || value === null || Array.isArray(value))
    return { kind: "error", id: null, codes: [-32600] }
  const o = value as Record<string, unknown>
  const validId = typeof o.id === "string" || (typeof o.id === "number" && Number.isFinite(o.id))
  // an answer whose id has the form of the server's own requests (`s-N`) is taken as a late answer to
  // one of them and dropped without a reply (app-server-protocol.md, "Requests from the server")
  const isAnswer = o.method === undefined && ("result" in o || "error" in o)
  if (isAnswer && typeof o.id === "string" && o.id.startsWith("s-")) return { kind: "none" }
  if (typeof o.method !== "string")
    return { kind: "error", id: validId ? (o.id as string | number) : null, codes: [-32600] }
  if (!("id" in o)) return { kind: "none" }
  if (!validId) return { kind: "error", id: null, codes: [-32600] }
  return { kind: "error", id: o.id as string | number, codes: [-32600, -32601, -32603] }
}

const nonRequest: fc.Arbitrary<Case> = fc
  .oneof(
    fc.jsonValue({ maxDepth: 3 }),
    fc.record(
      { id: fc.oneof(fc.string(), fc.integer(), fc.constant(null), fc.boolean()), result: fc.jsonValue() },
      { requiredKeys: [] }
    ),
    fc.record({ id: fc.oneof(fc.string(), fc.integer()), method: fc.jsonValue().filter((m) => typeof m !== "string") })
  )
  .filter(
    (v) =>
      !(
        typeof v === "object" &&
        v !== null &&
        !Array.isArray(v) &&
        typeof (v as { method?: unknown }).method === "string"
      )
  )
  .map((value) => ({ label: "not a request", line: JSON.stringify(value), expect: expectationOf(value) }))

const unknownMethod: fc.Arbitrary<Case> = fc
  .tuple(fc.string({ maxLength: 30 }), fc.nat())
  .filter(
    ([m]) =>
      !(m in methods()) &&
      ![
        "initialize",
        "thread/list",
        "config/mcpServer/reload",
        "mcpServer/list",
        "mcpServer/resource/read",
        "tool/list"
      ].includes(m)
  )
  .map(([method, n]) => {
    const id = `u-${n}`
    return {
      label: "unknown method",
      line: JSON.stringify({ id, method, params: {} }),
      expect: { kind: "error", id, codes: [-32601], message: /^Method not found: / }
    }
  })

/** Nesting inside params (up to 20,000 levels) and at the top level of a line (up to 200,000 levels). */
const deep: fc.Arbitrary<Case> = fc
  .tuple(
    deepNesting(20_000),
    fc.integer({ min: 10_000, max: 200_000 }).map((n) => `${"[".repeat(n)}${"]".repeat(n)}`),
    fc.nat(),
    fc.nat(3)
  )
  .map(([nested, topLevel, n, shape]): Case => {
    if (shape === 0)
      return { label: "deep nesting", line: topLevel, expect: { kind: "error", id: null, codes: [-32600, -32700] } }
    if (shape === 1)
      return { label: "deep nesting", line: nested, expect: { kind: "error", id: null, codes: [-32600, -32700] } }
    const id = `d-${n}`
    return {
      label: "deep nesting",
      line: `{"id":"${id}","method":"thread/start","params":{"config":{"truncation":${nested}}}}`,
      expect: { kind: "error", id, codes: [-32600, -32700] }
    }
  })

const huge: fc.Arbitrary<Case> = fc.tuple(hugeNumber, fc.nat(), fc.boolean()).map(([num, n, asId]) => {
  if (asId) {
    const value = JSON.parse(num) as number
    const validId = Number.isFinite(value)
    return {
      label: "huge numbers",
      line: `{"id":${num},"method":"no/such"}`,
      expect: validId ? { kind: "error", id: value, codes: [-32601] } : { kind: "error", id: null, codes: [-32600] }
    } as Case
  }
  const id = `h-${n}`
  const value = JSON.parse(num) as number
  if (Number.isInteger(value) && value >= 0) {
    // A valid rollback of a huge number of turns is not an error: send it to a thread that does not exist.
    return {
      label: "huge numbers",
      line: `{"id":"${id}","method":"thread/rollback","params":{"threadId":"no-such-thread","numTurns":${num}}}`,
      expect: {
        kind: "error",
        id,
        codes: [-32600],
        message: /^(thread not found: no-such-thread|Invalid request: numTurns: .*)$/
      }
    }
  }
  return {
    label: "huge numbers",
    line: `{"id":"${id}","method":"thread/rollback","params":{"threadId":"${threadId}","numTurns":${num}}}`,
    expect: { kind: "error", id, codes: [-32600], message: /^Invalid request: / }
  }
})

const cases: fc.Arbitrary<Case> = fc.oneof(
  { weight: 4, arbitrary: wrongType },
  { weight: 3, arbitrary: randomBytes },
  { weight: 2, arbitrary: nonRequest },
  { weight: 1, arbitrary: unknownMethod },
  { weight: 1, arbitrary: deep },
  { weight: 1, arbitrary: huge }
)

let probe = 0

/** Sends one line, then a probe; checks the line's answer. */
const sendCase = async (c: Case): Promise<void> => {
  const nullErrorsBefore = server.messages.filter((m) => m.id === null && m.error !== undefined).length
  const before = server.messages.length
  await server.write(`${c.line}\n`)
  const probeId = `probe-${++probe}`
  await server.write(`${JSON.stringify({ id: probeId, method: "thread/list", params: {} })}\n`)
  const answer = await server.response(probeId, 15_000)
  expect(answer.result, `probe after ${c.label} ${c.line.slice(0, 120)}`).toBeDefined()
  const where = `${c.label}: ${JSON.stringify(c.line.slice(0, 160))}`
  if (c.expect.kind === "none") {
    const extra = server.messages.slice(before).filter((m) => m.id !== probeId && m.method === undefined)
    expect(extra, where).toEqual([])
    return
  }
  const expectation = c.expect
  const response =
    expectation.id === null
      ? await server.waitFor(
          (m) =>
            m.id === null &&
            m.error !== undefined &&
            server.messages.filter((x) => x.id === null && x.error !== undefined).indexOf(m) >= nullErrorsBefore,
          5_000
        )
      : await server.waitFor(
          (m) => m.id === expectation.id && m.method === undefined && server.messages.indexOf(m) >= before,
          5_000
        )
  expect(response.error, where).toBeDefined()
  expect(expectation.codes, `${where} → ${JSON.stringify(response.error)}`).toContain(response.error!.code)
  if (expectation.message !== undefined) expect(response.error!.message, where).toMatch(expectation.message)
  expect(response.jsonrpc).toBe("2.0")
}

describe("JSON-RPC lines to the app-server", () => {
  it(`${numRuns} hostile lines are each answered with an error (notifications ignored) and the server stays up`, async () => {
    const tally: Record<string, number> = {}
    let peakKiB = baselineKiB
    const started = Date.now()
    const printable = cases.map((c) =>
      Object.assign(c, { [fc.toStringMethod]: () => `${c.label}: ${JSON.stringify(c.line.slice(0, 200))}` })
    )
    await fc.assert(
      fc.asyncProperty(printable, async (c) => {
        await sendCase(c)
        tally[c.label] = (tally[c.label] ?? 0) + 1
        peakKiB = Math.max(peakKiB, server.rssKiB() ?? 0)
      }),
      { numRuns, endOnFailure: true }
    )
    expect(server.strayLines).toEqual([])
    const after = await server.request("tool/call", {
      threadId,
      turnId: "t1",
      callId: "after-fuzz",
      name: "mcp__srv__echo",
      arguments: "{}"
    })
    expect(after.result?.success).toBe(true)
    Figures.add(
      "jsonrpc",
      Object.fromEntries([
        ["cases JSON-RPC lines", numRuns],
        ...Object.entries(tally).map(([k, v]) => [`lines: ${k}`, v])
      ])
    )
    Figures.note(
      "jsonrpc",
      `${numRuns} lines in ${((Date.now() - started) / 1000).toFixed(1)} s; RSS baseline ${Math.round(baselineKiB / 1024)} MiB, peak ${Math.round(peakKiB / 1024)} MiB`
    )
    expect(peakKiB - baselineKiB).toBeLessThan(256 * 1024)
  }, 150_000)

  it("16 MiB lines are refused with -32600 Request too large, the server keeps answering and RSS stays bounded", async () => {
    const before = server.rssKiB() ?? 0
    let peak = before
    const sampler = setInterval(() => {
      peak = Math.max(peak, server.rssKiB() ?? 0)
    }, 20)
    const mib = 1024 * 1024
    const chunk = "a".repeat(mib)
    const lines = [
      () => chunk.repeat(16), // 16 MiB of junk
      () =>
        `{"id":"big","method":"tool/call","params":{"threadId":"${threadId}","turnId":"t1","callId":"big","name":"mcp__srv__echo","arguments":"${chunk.repeat(16)}"}}`,
      () => chunk.repeat(9) // just over the 8 MiB cap
    ]
    try {
      for (const [i, make] of lines.entries()) {
        const nullErrors = server.messages.filter((m) => m.id === null && m.error !== undefined).length
        const line = make()
        for (let offset = 0; offset < line.length; offset += mib) await server.write(line.slice(offset, offset + mib))
        await server.write("\n")
        const refused = await server.waitFor(
          (m) =>
            m.id === null &&
            m.error !== undefined &&
            server.messages.filter((x) => x.id === null && x.error !== undefined).indexOf(m) >= nullErrors,
          20_000
        )
        expect(refused.error, `line ${i}`).toEqual({ code: -32600, message: "Request too large" })
        const alive = await server.request("thread/list", {}, 10_000)
        expect(alive.result).toBeDefined()
      }
      // The refused tool/call never ran.
      expect(server.messages.some((m) => m.id === "big")).toBe(false)
      const call = await server.request("tool/call", {
        threadId,
        turnId: "t1",
        callId: "after-big",
        name: "mcp__srv__echo",
        arguments: "{}"
      })
      expect(call.result?.success).toBe(true)
    } finally {
      clearInterval(sampler)
    }
    const growthMiB = Math.round((peak - before) / 1024)
    Figures.add("jsonrpc", {
      "cases oversized lines (16 MiB, 16 MiB request, 9 MiB)": 3,
      "faults injected: oversized lines": 3
    })
    Figures.note(
      "jsonrpc",
      `oversized lines: RSS before ${Math.round(before / 1024)} MiB, peak ${Math.round(peak / 1024)} MiB (growth ${growthMiB} MiB for 41 MiB sent)`
    )
    // A line is discarded without being buffered whole: growth stays well under the bytes sent.
    expect(growthMiB).toBeLessThan(40)
  }, 120_000)
})

describe("deeply nested params", () => {
  it("a params value nested 5,000 deep is refused and the server keeps answering", async () => {
    const dir = tempDir("deep")
    const app = await AppServerProcess.startInitialized({ dataDir: dir.dir })
    try {
      const n = 5000
      await app.write(
        `{"id":"deep","method":"thread/start","params":{"config":{"truncation":${"[".repeat(n)}${"]".repeat(n)}}}}\n`
      )
      const answer = await app.response("deep", 5_000)
      expect(answer.error).toEqual({
        code: -32600,
        message: "Invalid request: config.truncation.0: nested deeper than 64 levels"
      })
      expect((await app.request("thread/list", {}, 5_000)).result).toBeDefined()
    } finally {
      await app.close()
      dir.remove()
    }
  }, 30_000)
})
