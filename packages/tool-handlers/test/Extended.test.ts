/** The extended tool profile over real in-memory fixture servers: windows, the content policy, hygiene. */
import { assert, describe, it } from "@effect/vitest"
import type { FixtureSpec } from "@mcp-resources/fixtures"
import { Config } from "@mcp-resources/protocol"
import { Effect, TestClock } from "effect"
import { Extended, LifecycleSink, ToolHandlers, ToolSpecs } from "../src/index.js"
import { harness } from "./utils/harness.js"

const extended = (ctx: ToolHandlers.ToolContext): ToolHandlers.ToolContext => ({ ...ctx, profile: "extended" })
const read = (ctx: ToolHandlers.ToolContext, args: Record<string, unknown>, callId = "c-1") =>
  ToolHandlers.callTool(ctx, { callId, name: "read_mcp_resource", arguments: JSON.stringify(args) })
const withRecorder = <A, E, R>(self: Effect.Effect<A, E, R>) => Effect.provide(self, LifecycleSink.layerRecorder)
const items = Effect.map(LifecycleSink.recorded, (events) => events.map((e) => e.item))
const readRequests = (requests: ReadonlyArray<{ method: string }>) =>
  requests.filter((r) => r.method === "resources/read").length

const b64 = (bytes: Uint8Array | string) => Buffer.from(bytes).toString("base64")
const textRead = (uri: string, text: string, extra: Record<string, unknown> = {}) => ({
  uri,
  result: { contents: [{ uri, mimeType: "text/plain", text }], ...extra }
})
const blobRead = (uri: string, mimeType: string | undefined, blob: string) => ({
  uri,
  result: { contents: [{ uri, ...(mimeType === undefined ? {} : { mimeType }), blob }] }
})

/** The window's text: the output without its two header lines and its note line. */
const windowText = (output: string): string => {
  const first = output.indexOf("\n")
  const second = output.indexOf("\n", first + 1)
  return output.slice(second + 1, output.lastIndexOf("\n"))
}
const nextOffset = (output: string): number | undefined => {
  const match = /call read_mcp_resource with offset (\d+)\]$/.exec(output)
  return match === null ? undefined : Number(match[1])
}

const pngBytes = Buffer.from(
  "89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da63f8ffff3f0005fe02fea7d6a4e10000000049454e44ae426082",
  "hex"
)
const jpegBytes = Buffer.from("ffd8ffe000104a46494600010100000100010000ffd9", "hex")
const pdfBytes = Buffer.from("%PDF-1.4\n1 0 obj\n<<>>\nendobj\ntrailer\n<<>>\n%%EOF\n")
const gzipBytes = Buffer.from("1f8b08000000000000034b4c4a0600c241243503000000", "hex")
const svgText = '<svg xmlns="http://www.w3.org/2000/svg" width="1" height="1"/>'

describe("extended profile: the switch", () => {
  it("[tools] profile and max_image_bytes are read with their defaults; a bad profile is refused", () => {
    const empty = Config.parse("", "c.toml")
    assert.deepStrictEqual(empty._tag === "Right" ? empty.right.tools : undefined, {
      profile: "codex",
      maxImageBytes: 5242880
    })
    const set = Config.parse('[tools]\nprofile = "extended"\nmax_image_bytes = 1000\n', "c.toml")
    assert.deepStrictEqual(set._tag === "Right" ? set.right.tools : undefined, {
      profile: "extended",
      maxImageBytes: 1000
    })
    const bad = Config.parse('[tools]\nprofile = "fancy"\n', "c.toml")
    assert.strictEqual(bad._tag, "Left")
    assert.match(bad._tag === "Left" ? bad.left.message : "", /^c\.toml: tools\.profile: /)
  })

  it.scoped("tool/list offers the extended specs; the codex list is unchanged", () =>
    Effect.gen(function* () {
      const { ctx } = yield* harness({ srv: { spec: { reads: [] } } })
      const codex = yield* ToolHandlers.listTools(ctx)
      assert.deepStrictEqual(codex.slice(0, 3), [...ToolSpecs.resourceToolSpecs])
      const tools = yield* ToolHandlers.listTools(extended(ctx))
      assert.deepStrictEqual(tools.slice(0, 4), [...ToolSpecs.extendedResourceToolSpecs])
      assert.strictEqual(tools[3]?.name, "search_mcp_resources")
      assert.isFalse(codex.some((t) => t.name === "search_mcp_resources"))
      const readSpec = tools.find((t) => t.name === "read_mcp_resource")!
      assert.deepStrictEqual(Object.keys(readSpec.parameters.properties as object), [
        "server",
        "uri",
        "uriTemplate",
        "arguments",
        "offset",
        "length",
        "since"
      ])
      assert.match(readSpec.description, /windows/)
      assert.match(readSpec.description, /offset/)
    })
  )
})

describe("extended profile: windows over large text", () => {
  it.scoped("a 5 MiB text reassembles byte for byte; every later window is answered from the cache", () =>
    Effect.gen(function* () {
      const unit = "line é ✓ 😀 text\n"
      let text = ""
      while (Buffer.byteLength(text) < 5 * 1024 * 1024) text += unit.repeat(4096)
      const { ctx, fixtures } = yield* harness({ srv: { spec: { reads: [textRead("big://text", text)] } } })
      const ext = extended(ctx)
      const total = Buffer.byteLength(text)
      const pieces: Array<string> = []
      let offset: number | undefined = 0
      let windows = 0
      let expectedStart = 0
      while (offset !== undefined) {
        const out: ToolHandlers.ToolOutput = yield* Effect.provide(
          read(ext, { server: "srv", uri: "big://text", ...(offset === 0 ? {} : { offset }) }),
          LifecycleSink.layerNoop
        )
        assert.isTrue(out.success)
        assert.isAtMost(Buffer.byteLength(out.output), Extended.budgetBytes(ctx.truncation))
        const note = out.output.slice(out.output.lastIndexOf("\n") + 1)
        assert.match(note, new RegExp(`^\\[window: bytes ${expectedStart}-\\d+ of ${total}; `))
        pieces.push(windowText(out.output))
        offset = nextOffset(out.output)
        if (offset !== undefined) expectedStart = offset
        windows++
      }
      assert.strictEqual(pieces.join(""), text)
      assert.isAbove(windows, 100)
      assert.strictEqual(readRequests(fixtures.srv!.requests), 1)
    })
  )

  it.scoped("windows never split a UTF-8 sequence: they end early, and a start inside one moves back", () =>
    Effect.gen(function* () {
      const text = "aé✓😀" // bytes: a=0, é=1..2, ✓=3..5, 😀=6..9
      const { ctx } = yield* harness({ srv: { spec: { reads: [textRead("m://t", text)] } } })
      const ext = extended(ctx)
      const run = (args: Record<string, unknown>) =>
        Effect.provide(read(ext, { server: "srv", uri: "m://t", ...args }), LifecycleSink.layerNoop)
      const header = "[resource m://t of MCP server srv: 1 content, 10 bytes of text]"
      const content = "[contents[0] m://t (text/plain): text, 10 bytes"
      assert.deepStrictEqual(
        (yield* run({ length: 2 })).output,
        [
          header,
          `${content}]`,
          "a",
          "[window: bytes 0-1 of 10; to continue, call read_mcp_resource with offset 1]"
        ].join("\n")
      )
      assert.deepStrictEqual(
        (yield* run({ offset: 2, length: 5 })).output,
        [
          header,
          `${content}, from its byte 1]`,
          "é✓",
          "[window: bytes 1-6 of 10; to continue, call read_mcp_resource with offset 6]"
        ].join("\n")
      )
      // a length shorter than the character still gives the whole character
      assert.deepStrictEqual(
        (yield* run({ offset: 6, length: 1 })).output,
        [header, `${content}, from its byte 6]`, "😀", "[window: bytes 6-10 of 10; this is the end]"].join("\n")
      )
      assert.deepStrictEqual(
        (yield* run({ offset: 10 })).output,
        [header, "[window: bytes 10-10 of 10; this is the end]"].join("\n")
      )
    })
  )

  it.scoped("several contents are one sequence of text bytes; other contents come with the first window", () =>
    Effect.gen(function* () {
      const contents = [
        { uri: "m://a", mimeType: "text/plain", text: "abc" },
        { uri: "m://p.png", mimeType: "image/png", blob: b64(pngBytes) },
        { uri: "m://b", mimeType: "text/plain", text: "de" }
      ]
      const { ctx } = yield* harness({ srv: { spec: { reads: [{ uri: "m://ab", result: { contents } }] } } })
      const run = (args: Record<string, unknown>) =>
        Effect.provide(read(extended(ctx), { server: "srv", uri: "m://ab", ...args }), LifecycleSink.layerNoop)
      const header = "[resource m://ab of MCP server srv: 3 contents, 5 bytes of text]"
      const first = yield* run({ length: 2 })
      assert.strictEqual(
        first.output,
        [
          header,
          "[contents[0] m://a (text/plain): text, 3 bytes]",
          "ab",
          `[contents[1] m://p.png (image/png): image image/png, ${pngBytes.length} bytes: sent as image part 1]`,
          "[window: bytes 0-2 of 5; to continue, call read_mcp_resource with offset 2]"
        ].join("\n")
      )
      assert.strictEqual(first.contentItems?.length, 2)
      const second = yield* run({ offset: 2, length: 2 })
      assert.strictEqual(
        second.output,
        [
          header,
          "[contents[0] m://a (text/plain): text, 3 bytes, from its byte 2]",
          "c",
          "[contents[2] m://b (text/plain): text, 2 bytes]",
          "d",
          "[window: bytes 2-4 of 5; to continue, call read_mcp_resource with offset 4]"
        ].join("\n")
      )
      assert.strictEqual(second.contentItems?.length, 1)
    })
  )

  it.scoped("an offset past the end fails with a message; bad offset and length values name the field", () =>
    withRecorder(
      Effect.gen(function* () {
        const { ctx } = yield* harness({ srv: { spec: { reads: [textRead("m://t", "0123456789")] } } })
        const ext = extended(ctx)
        assert.deepStrictEqual(yield* read(ext, { server: "srv", uri: "m://t", offset: 11 }), {
          output: "offset 11 is past the end: the text of this resource has 10 bytes",
          success: false
        })
        const argumentErrors = [
          [{ offset: -1 }, 'failed to parse function arguments: field "offset" must be an integer >= 0, got -1'],
          [{ offset: 1.5 }, 'failed to parse function arguments: field "offset" must be an integer >= 0, got 1.5'],
          [{ offset: "3" }, 'failed to parse function arguments: field "offset" must be an integer >= 0, got string'],
          [{ length: -2 }, 'failed to parse function arguments: field "length" must be an integer >= 0, got -2'],
          [{ length: [1] }, 'failed to parse function arguments: field "length" must be an integer >= 0, got array']
        ] as const
        for (const [args, message] of argumentErrors) {
          assert.deepStrictEqual(yield* read(ext, { server: "srv", uri: "m://t", ...args }, "bad"), {
            output: message,
            success: false
          })
        }
        // the argument errors emit no items; the read past the end emits its two
        assert.deepStrictEqual(
          (yield* items).map((item) => [item.id, item.status]),
          [
            ["c-1", "inProgress"],
            ["c-1", "failed"]
          ]
        )
      })
    )
  )

  it.scoped("the cached body expires after the default time; a reload gives a fresh read", () =>
    Effect.gen(function* () {
      const { ctx, fixtures, client } = yield* harness({
        srv: { spec: { reads: [textRead("m://t", "x".repeat(50))] } }
      })
      const window = (c: ToolHandlers.ToolContext) =>
        Effect.provide(read(extended(c), { server: "srv", uri: "m://t", length: 10 }), LifecycleSink.layerNoop)
      yield* window(ctx)
      yield* window(ctx)
      assert.strictEqual(readRequests(fixtures.srv!.requests), 1)
      yield* TestClock.adjust(Extended.defaultWindowTtlMs + 1)
      yield* window(ctx)
      assert.strictEqual(readRequests(fixtures.srv!.requests), 2)
      // the codex profile never sees the extended profile's cached body
      yield* Effect.provide(read(ctx, { server: "srv", uri: "m://t" }), LifecycleSink.layerNoop)
      assert.strictEqual(readRequests(fixtures.srv!.requests), 3)
      yield* client.reconnect
      const set = yield* client.acquire
      yield* set.awaitAllSettled
      yield* window({ ...ctx, set })
      assert.strictEqual(readRequests(fixtures.srv!.requests), 4)
    })
  )

  it.scoped("a body over the cache bound is read again for every window", () =>
    Effect.gen(function* () {
      const { ctx, fixtures } = yield* harness(
        { srv: { spec: { reads: [textRead("m://t", "y".repeat(5000))] } } },
        { config: { cache: { enabled: true, maxBytes: 1000 } } }
      )
      const ext = extended(ctx)
      for (const offset of [0, 100, 200]) {
        yield* Effect.provide(read(ext, { server: "srv", uri: "m://t", offset, length: 100 }), LifecycleSink.layerNoop)
      }
      assert.strictEqual(readRequests(fixtures.srv!.requests), 3)
    })
  )

  it.scoped("size preflight: the list marks large resources, and their first read is a window", () =>
    Effect.gen(function* () {
      const text = "z".repeat(300)
      const { ctx } = yield* harness(
        {
          srv: {
            spec: {
              resourcePages: [
                {
                  result: {
                    resources: [
                      { uri: "m://big", name: "big", size: 300 },
                      { uri: "m://small", name: "small", size: 20 }
                    ]
                  }
                }
              ],
              reads: [textRead("m://big", text)]
            }
          }
        },
        { config: { truncation: { mode: "bytes", limit: 200 } } }
      )
      const ext = extended(ctx)
      const list = yield* Effect.provide(
        ToolHandlers.callTool(ext, { callId: "l", name: "list_mcp_resources", arguments: '{"server":"srv"}' }),
        LifecycleSink.layerNoop
      )
      assert.strictEqual(
        list.output,
        '{"server":"srv","resources":[{"server":"srv","uri":"m://big","name":"big","size":300,"large":true},{"server":"srv","uri":"m://small","name":"small","size":20}]}'
      )
      const out = yield* Effect.provide(read(ext, { server: "srv", uri: "m://big" }), LifecycleSink.layerNoop)
      assert.strictEqual(windowText(out.output), "z".repeat(Extended.minWindowBytes))
      assert.strictEqual(nextOffset(out.output), Extended.minWindowBytes)
    })
  )
})

describe("extended profile: one content policy", () => {
  const reads = [
    blobRead("f://pixel.png", "image/png", b64(pngBytes)),
    blobRead("f://photo.jpg", "image/jpeg", b64(jpegBytes)),
    blobRead("f://logo.svg", "image/svg+xml", b64(svgText)),
    blobRead("f://doc.pdf", "application/pdf", b64(pdfBytes)),
    blobRead("f://data.gz", "application/gzip", b64(gzipBytes)),
    blobRead("f://data.json", "application/json", b64('{"a":1}')),
    blobRead("f://latin1.txt", "text/plain", b64(Buffer.from([0x63, 0x61, 0x66, 0xe9]))),
    blobRead("f://big.png", "image/png", b64(Buffer.concat([pngBytes, Buffer.alloc(2000)]))),
    blobRead("f://bad.bin", "application/octet-stream", "not base64!")
  ]
  const run = (uri: string) =>
    Effect.gen(function* () {
      const { ctx } = yield* harness(
        { srv: { spec: { reads } } },
        { config: { tools: { profile: "codex", maxImageBytes: 1024 } } }
      )
      return yield* withRecorder(
        Effect.gen(function* () {
          const out = yield* read(extended(ctx), { server: "srv", uri })
          return { out, items: yield* items }
        })
      )
    })
  const header = (uri: string, bytes = 0) => `[resource ${uri} of MCP server srv: 1 content, ${bytes} bytes of text]`

  it.scoped("PNG and JPEG are image parts; the item keeps MIME type, size and SHA-256, not the bytes", () =>
    Effect.gen(function* () {
      for (const [uri, mime, bytes] of [
        ["f://pixel.png", "image/png", pngBytes],
        ["f://photo.jpg", "image/jpeg", jpegBytes]
      ] as const) {
        const { out, items: recorded } = yield* run(uri)
        const text = `${header(uri)}\n[contents[0] ${uri} (${mime}): image ${mime}, ${bytes.length} bytes: sent as image part 1]`
        assert.deepStrictEqual(out, {
          output: text,
          success: true,
          contentItems: [
            { type: "text", text },
            { type: "image", mimeType: mime, data: b64(bytes), uri }
          ]
        })
        const sha256 = (yield* Effect.promise(() => import("node:crypto")))
          .createHash("sha256")
          .update(bytes)
          .digest("hex")
        assert.deepStrictEqual(recorded[1]!.result, {
          content: [
            { type: "text", text },
            { type: "imageSummary", mimeType: mime, size: bytes.length, sha256, uri }
          ],
          isError: false
        })
        assert.notInclude(JSON.stringify(recorded), b64(bytes))
      }
    })
  )

  it.scoped("SVG and JSON blobs are decoded as text; text that is not UTF-8 is described", () =>
    Effect.gen(function* () {
      assert.strictEqual(
        (yield* run("f://logo.svg")).out.output,
        `${header("f://logo.svg", svgText.length)}\n[contents[0] f://logo.svg (image/svg+xml): text decoded from a blob, ${svgText.length} bytes]\n${svgText}`
      )
      assert.strictEqual(
        (yield* run("f://data.json")).out.output,
        `${header("f://data.json", 7)}\n[contents[0] f://data.json (application/json): text decoded from a blob, 7 bytes]\n{"a":1}`
      )
      assert.strictEqual(
        (yield* run("f://latin1.txt")).out.output,
        `${header("f://latin1.txt")}\n[contents[0] f://latin1.txt (text/plain): binary text/plain, 4 bytes: not valid UTF-8 text, bytes not sent]`
      )
    })
  )

  it.scoped("PDF and gzip are described, never base64; an image over max_image_bytes is described", () =>
    Effect.gen(function* () {
      const pdf = yield* run("f://doc.pdf")
      assert.deepStrictEqual(pdf.out.contentItems?.length, 1)
      assert.strictEqual(
        pdf.out.output,
        `${header("f://doc.pdf")}\n[contents[0] f://doc.pdf (application/pdf): binary application/pdf, ${pdfBytes.length} bytes: bytes not sent]`
      )
      assert.strictEqual(
        (yield* run("f://data.gz")).out.output,
        `${header("f://data.gz")}\n[contents[0] f://data.gz (application/gzip): binary application/gzip, ${gzipBytes.length} bytes: bytes not sent]`
      )
      const big = yield* run("f://big.png")
      assert.strictEqual(
        big.out.output,
        `${header("f://big.png")}\n[contents[0] f://big.png (image/png): image image/png, ${pngBytes.length + 2000} bytes: over max_image_bytes (1024), bytes not sent]`
      )
      assert.strictEqual(big.out.contentItems?.length, 1)
    })
  )

  it.scoped("a 40 MiB image over the default max_image_bytes is described, its bytes neither sent nor stored", () =>
    Effect.gen(function* () {
      const bytes = Buffer.alloc(40 * 1024 * 1024, 7)
      pngBytes.copy(bytes)
      const data = bytes.toString("base64")
      const { ctx } = yield* harness({ srv: { spec: { reads: [blobRead("f://huge.png", "image/png", data)] } } })
      const out = yield* withRecorder(
        Effect.gen(function* () {
          const out = yield* read(extended(ctx), { server: "srv", uri: "f://huge.png" })
          const recorded = yield* items
          assert.isBelow(JSON.stringify(recorded).length, 4096)
          return out
        })
      )
      assert.deepStrictEqual(out, {
        output: `${header("f://huge.png")}\n[contents[0] f://huge.png (image/png): image image/png, 41943040 bytes: over max_image_bytes (5242880), bytes not sent]`,
        success: true,
        contentItems: [{ type: "text", text: out.output }]
      })
    })
  )

  it.scoped("invalid base64 is refused with a clear message", () =>
    Effect.gen(function* () {
      const { out } = yield* run("f://bad.bin")
      assert.isFalse(out.success)
      assert.include(out.output, "contents.0.blob: is not valid base64")
      assert.notInclude(out.output, "not base64!")
    })
  )

  it.scoped("an MCP tool result: text, image, embedded text and blob resources, a link, invalid data", () =>
    Effect.gen(function* () {
      const spec: FixtureSpec = {
        tools: [
          {
            name: "shot",
            result: {
              content: [
                { type: "text", text: "Here it is." },
                { type: "image", mimeType: "image/png", data: b64(pngBytes) },
                { type: "resource", resource: { uri: "f://notes.md", mimeType: "text/markdown", text: "# Notes" } },
                {
                  type: "resource",
                  resource: { uri: "f://doc.pdf", mimeType: "application/pdf", blob: b64(pdfBytes) }
                },
                { type: "resource_link", uri: "f://report.csv", name: "report", mimeType: "text/csv", size: 1234 }
              ]
            }
          },
          { name: "broken", result: { content: [{ type: "image", mimeType: "image/png", data: "%%%" }] } }
        ]
      }
      const { ctx } = yield* harness({ srv: { spec } })
      const ext = extended(ctx)
      const out = yield* withRecorder(
        ToolHandlers.callTool(ext, { callId: "t", name: "mcp__srv__shot", arguments: "{}" })
      )
      const text = [
        "Here it is.",
        `[content[1] image: image image/png, ${pngBytes.length} bytes: sent as image part 1]`,
        "[content[2] embedded resource f://notes.md (text/markdown): text, 7 bytes]",
        "# Notes",
        `[content[3] embedded resource f://doc.pdf (application/pdf): binary application/pdf, ${pdfBytes.length} bytes: bytes not sent]`,
        '[content[4] resource link f://report.csv (name "report", text/csv, 1234 bytes): not read yet; read it with read_mcp_resource {"server":"srv","uri":"f://report.csv"}]'
      ].join("\n")
      assert.deepStrictEqual(out, {
        output: text,
        success: true,
        contentItems: [
          { type: "text", text },
          { type: "image", mimeType: "image/png", data: b64(pngBytes) }
        ]
      })
      const broken = yield* withRecorder(
        ToolHandlers.callTool(ext, { callId: "u", name: "mcp__srv__broken", arguments: "{}" })
      )
      assert.deepStrictEqual(broken, {
        output: "tools/call failed: invalid tools/call result at content.0.data: is not valid base64",
        success: false
      })
    })
  )
})

describe("extended profile: text hygiene", () => {
  it.scoped("not found (-32002 and -32602) is one message naming server and URI", () =>
    Effect.gen(function* () {
      const { ctx } = yield* harness({
        srv: { spec: { reads: [{ uri: "m://gone", error: { code: -32602, message: "Resource not found" } }] } }
      })
      const ext = extended(ctx)
      for (const uri of ["m://missing", "m://gone"]) {
        assert.deepStrictEqual(yield* Effect.provide(read(ext, { server: "srv", uri }), LifecycleSink.layerNoop), {
          output: `resources/read failed: MCP server 'srv' has no resource '${uri}'`,
          success: false
        })
      }
    })
  )

  it.scoped(
    "bidi and control characters from a server are escaped in every extended output; codex bytes unchanged",
    () =>
      Effect.gen(function* () {
        // RLO, LRI..PDI, LRM, RLM, C0 (SOH, ESC, CR), DEL and C1 (NEL, CSI); tab and line feed stay
        const raw = "\u202E\u2066\u2067\u2068\u2069\u200E\u200F\u0001\u001B\r\u007F\u0085\u009B"
        const visible =
          "<U+202E><U+2066><U+2067><U+2068><U+2069><U+200E><U+200F><U+0001><U+001B><U+000D><U+007F><U+0085><U+009B>"
        // biome-ignore lint/suspicious/noControlCharactersInRegex: the control characters are what is matched
        const hostile = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/
        const uri = `m://doc${raw}`
        const resource = { uri, name: `name${raw}`, description: `desc${raw}`, mimeType: `text/plain${raw}` }
        const body = `line one${raw}\tend\nline two`
        const { ctx } = yield* harness({
          srv: {
            spec: {
              resourcePages: [{ result: { resources: [resource] } }],
              templatePages: [
                { result: { resourceTemplates: [{ uriTemplate: `m://t/{id}${raw}`, name: `tpl${raw}` }] } }
              ],
              reads: [{ uri, result: { contents: [{ uri, mimeType: `text/plain${raw}`, text: body }] } }],
              tools: [{ name: "say", result: { content: [{ type: "text", text: `said${raw}` }] } }]
            }
          }
        })
        const ext = extended(ctx)
        const call = (c: ToolHandlers.ToolContext, name: string, args: Record<string, unknown>) =>
          Effect.provide(
            ToolHandlers.callTool(c, { callId: "h", name, arguments: JSON.stringify(args) }),
            LifecycleSink.layerNoop
          )
        const outputs = {
          list: yield* call(ext, "list_mcp_resources", { server: "srv" }),
          listAll: yield* call(ext, "list_mcp_resources", {}),
          templates: yield* call(ext, "list_mcp_resource_templates", { server: "srv" }),
          read: yield* call(ext, "read_mcp_resource", { server: "srv", uri }),
          window: yield* call(ext, "read_mcp_resource", { server: "srv", uri, offset: 2 }),
          missing: yield* call(ext, "read_mcp_resource", { server: "srv", uri: `m://missing${raw}` }),
          tool: yield* call(ext, "mcp__srv__say", {})
        }
        for (const [name, out] of Object.entries(outputs)) {
          assert.notMatch(out.output, hostile, `${name}: no raw bidi or control character reaches the model`)
        }
        // JSON outputs: the same value, escaped
        const codexList = yield* call(ctx, "list_mcp_resources", { server: "srv" })
        assert.deepStrictEqual(JSON.parse(outputs.list.output), JSON.parse(codexList.output))
        assert.include(outputs.list.output, "\\u202E\\u2066")
        // plain text: visible escapes; tab and line feed kept
        assert.include(outputs.read.output, `[resource m://doc${visible} of MCP server srv`)
        assert.include(outputs.read.output, `line one${visible}\tend\nline two`)
        assert.include(outputs.tool.output, `said${visible}`)
        // the window's bytes are the resource's: it starts at byte 2 of the raw text
        assert.include(outputs.window.output, `ne one${visible}\tend\nline two`)
        // codex: exactly the bytes of the payload, raw characters included
        assert.strictEqual(
          codexList.output,
          JSON.stringify({ server: "srv", resources: [{ server: "srv", ...resource }] })
        )
        const codexRead = yield* call(ctx, "read_mcp_resource", { server: "srv", uri })
        assert.strictEqual(
          codexRead.output,
          JSON.stringify({ server: "srv", uri, contents: [{ uri, mimeType: `text/plain${raw}`, text: body }] })
        )
      })
  )

  it.scoped("a window of text full of control characters still fits the output budget", () =>
    Effect.gen(function* () {
      const text = "\u0001\u202E".repeat(20_000)
      const { ctx } = yield* harness({ srv: { spec: { reads: [textRead("c://x", text)] } } })
      const ext = extended(ctx)
      const budget = Extended.budgetBytes(ctx.truncation)
      let offset: number | undefined = 0
      let shown = 0
      let windows = 0
      while (offset !== undefined) {
        const out: ToolHandlers.ToolOutput = yield* Effect.provide(
          read(ext, { server: "srv", uri: "c://x", ...(offset === 0 ? {} : { offset }) }),
          LifecycleSink.layerNoop
        )
        assert.isTrue(out.success)
        assert.isAtMost(Buffer.byteLength(out.output), budget)
        assert.notInclude(out.output, "\u202E")
        shown += windowText(out.output).split("<U+").length - 1
        offset = nextOffset(out.output)
        windows++
        assert.isBelow(windows, 1000)
      }
      assert.strictEqual(shown, 40_000, "every character is shown once, escaped")
    })
  )

  it.scoped("bidi controls in URIs and names are escaped in the model's text; codex keeps them raw", () =>
    Effect.gen(function* () {
      const uri = "m://a\u202Etxt.exe"
      const { ctx } = yield* harness({
        srv: {
          spec: {
            resourcePages: [{ result: { resources: [{ uri, name: "n\u2066ame" }] } }],
            reads: [textRead(uri, "body")]
          }
        }
      })
      const ext = extended(ctx)
      const list = yield* Effect.provide(
        ToolHandlers.callTool(ext, { callId: "l", name: "list_mcp_resources", arguments: '{"server":"srv"}' }),
        LifecycleSink.layerNoop
      )
      assert.strictEqual(
        list.output,
        '{"server":"srv","resources":[{"server":"srv","uri":"m://a\\u202Etxt.exe","name":"n\\u2066ame"}]}'
      )
      assert.deepStrictEqual(JSON.parse(list.output).resources[0].uri, uri)
      const out = yield* Effect.provide(read(ext, { server: "srv", uri }), LifecycleSink.layerNoop)
      assert.match(out.output, /^\[resource m:\/\/a<U\+202E>txt\.exe of MCP server srv/)
      const codex = yield* Effect.provide(
        ToolHandlers.callTool(ctx, { callId: "l", name: "list_mcp_resources", arguments: '{"server":"srv"}' }),
        LifecycleSink.layerNoop
      )
      assert.include(codex.output, "\u202E")
    })
  )
})
