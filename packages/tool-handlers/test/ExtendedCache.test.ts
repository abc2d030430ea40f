/**
 * The extended profile's windows and the result cache: what the windows keep is counted against
 * `[cache] max_bytes` (one copy of the body, its UTF-8 bytes), a body over the bound is read again per
 * window, and a new bearer token makes the next window a new MCP request (real HTTP fixture).
 * Requests are counted at the fixture.
 */
import { assert, describe, it } from "@effect/vitest"
import { type FixtureSpec, startHttp } from "@mcp-resources/fixtures"
import { Config } from "@mcp-resources/protocol"
import { McpTransport, ResourceClient, type ServerEntry } from "@mcp-resources/resource-client"
import { ConfigProvider, Effect, Either } from "effect"
import { Content, Extended, LifecycleSink, ToolHandlers } from "../src/index.js"
import { harness } from "./utils/harness.js"

const read = (ctx: ToolHandlers.ToolContext, args: Record<string, unknown>) =>
  Effect.provide(
    ToolHandlers.callTool(
      { ...ctx, profile: "extended" },
      { callId: "c-1", name: "read_mcp_resource", arguments: JSON.stringify(args) }
    ),
    LifecycleSink.layerNoop
  )
const readRequests = (requests: ReadonlyArray<{ method: string }>) =>
  requests.filter((r) => r.method === "resources/read").length
const textRead = (uri: string, text: string) => ({
  uri,
  result: { contents: [{ uri, mimeType: "text/plain", text }] }
})
/** A text of at least `bytes` UTF-8 bytes with one- to four-byte characters. */
const largeText = (bytes: number) => {
  const unit = "line é ✓ 😀 text\n"
  return unit.repeat(Math.ceil(bytes / Buffer.byteLength(unit)))
}
const windowText = (output: string): string => {
  const first = output.indexOf("\n")
  const second = output.indexOf("\n", first + 1)
  return output.slice(second + 1, output.lastIndexOf("\n"))
}
const nextOffset = (output: string): number | undefined => {
  const match = /call read_mcp_resource with offset (\d+)\]$/.exec(output)
  return match === null ? undefined : Number(match[1])
}

/** Reads every window of `uri` from offset 0; checks `each` after every window; returns the text. */
const readAll = (ctx: ToolHandlers.ToolContext, uri: string, each: Effect.Effect<void> = Effect.void) =>
  Effect.gen(function* () {
    const pieces: Array<string> = []
    let offset: number | undefined = 0
    while (offset !== undefined) {
      const out: ToolHandlers.ToolOutput = yield* read(ctx, { server: "srv", uri, offset })
      assert.isTrue(out.success, out.output.slice(0, 200))
      pieces.push(windowText(out.output))
      offset = nextOffset(out.output)
      yield* each
    }
    return pieces.join("")
  })

describe("extended profile: windows within the cache bound", () => {
  it.scoped("a body that fits is kept once: the accounted bytes hold it and never pass a small bound", () =>
    Effect.gen(function* () {
      const maxBytes = 512 * 1024
      const body = largeText(300 * 1024)
      const { ctx, fixtures, client } = yield* harness(
        { srv: { spec: { reads: [textRead("big://t", body)] } } },
        { config: { cache: { enabled: true, maxBytes } } }
      )
      const text = yield* readAll(
        ctx,
        "big://t",
        Effect.gen(function* () {
          const stats = yield* client.cacheStats
          assert.strictEqual(stats.entries, 1)
          assert.isAtMost(stats.bytes, maxBytes)
          // the body's UTF-8 bytes (what the windows use) are what is counted
          assert.isAtLeast(stats.bytes, Buffer.byteLength(body))
          assert.isBelow(stats.bytes, Buffer.byteLength(body) + 1024)
        })
      )
      assert.strictEqual(text, body)
      assert.strictEqual(readRequests(fixtures.srv!.requests), 1)
      // the windows render from the cached bytes themselves: no second copy of the body is made
      const cached = yield* ctx.set.readResource("srv", "big://t", undefined, {
        defaultTtlMs: Extended.defaultWindowTtlMs,
        keptForm: Content.keptRead
      })
      const part = Content.contentsPart(cached.contents[0]!, { maxImageBytes: 0 })
      assert.isTrue(Either.isRight(part) && part.right._tag === "text")
      const kept = Content.textBytesOf(cached.contents[0]!)
      assert.isDefined(kept)
      assert.strictEqual(Either.isRight(part) && part.right._tag === "text" ? part.right.bytes() : undefined, kept)
      assert.strictEqual(readRequests(fixtures.srv!.requests), 1)
    })
  )

  it.scoped("a body whose bytes exceed the bound is read again for every window, byte-identical", () =>
    Effect.gen(function* () {
      const body = largeText(200 * 1024)
      const { ctx, fixtures, client } = yield* harness(
        { srv: { spec: { reads: [textRead("big://t", body)] } } },
        { config: { cache: { enabled: true, maxBytes: 128 * 1024 } } }
      )
      let windows = 0
      const text = yield* readAll(
        ctx,
        "big://t",
        Effect.sync(() => {
          windows++
        })
      )
      assert.strictEqual(text, body)
      assert.isAbove(windows, 3)
      assert.strictEqual(readRequests(fixtures.srv!.requests), windows)
      assert.strictEqual((yield* client.cacheStats).entries, 0)
    })
  )
})

describe("extended profile: windows and authorization", () => {
  const spec: FixtureSpec = { reads: [textRead("big://t", "w".repeat(5000))] }
  const withToken = (token: string) =>
    Effect.withConfigProvider(ConfigProvider.fromMap(new Map([["TH_WINDOW_TOKEN", token]])))

  it.live(
    "a new token refreshes: after a reload that changes the bearer token, the next window is a new MCP request",
    () =>
      Effect.gen(function* () {
        const fixture = yield* Effect.acquireRelease(
          Effect.promise(() => startHttp(spec)),
          (f) => Effect.promise(() => f.close())
        )
        const hosted: ServerEntry.ServerEntry = {
          name: "srv",
          transport: { _tag: "http", url: fixture.url, httpHeaders: {}, bearerTokenEnvVar: "TH_WINDOW_TOKEN" },
          enabled: true,
          startupTimeoutSec: 60,
          toolTimeoutSec: 30,
          maxMessageBytes: 67108864
        }
        const setup = { config: Config.empty, servers: [hosted] }
        const client = yield* ResourceClient.make(setup).pipe(withToken("token-one"))
        const contextOf = Effect.gen(function* () {
          const set = yield* client.acquire
          yield* set.awaitAllSettled
          return { set, config: Config.empty, orchestratorMcpEnabled: true, truncation: Config.empty.truncation }
        })
        const one = yield* contextOf
        const window = (ctx: ToolHandlers.ToolContext, offset: number) =>
          Effect.map(read(ctx, { server: "srv", uri: "big://t", offset, length: 100 }), (out) => {
            assert.isTrue(out.success, out.output)
            return windowText(out.output)
          })
        assert.strictEqual(yield* window(one, 0), "w".repeat(100))
        assert.strictEqual(yield* window(one, 100), "w".repeat(100))
        assert.strictEqual(readRequests(fixture.requests), 1)
        // the same entry, another token: the next window goes to the server, with the new token
        yield* client.reload(setup).pipe(withToken("token-two"))
        const two = yield* contextOf
        assert.strictEqual(yield* window(two, 200), "w".repeat(100))
        assert.strictEqual(readRequests(fixture.requests), 2)
        assert.strictEqual(fixture.headers.at(-1)?.authorization, "Bearer token-two")
        // and the new context keeps it for its next windows
        assert.strictEqual(yield* window(two, 300), "w".repeat(100))
        assert.strictEqual(readRequests(fixture.requests), 2)
      }).pipe(Effect.provide(McpTransport.layer), Effect.scoped),
    60_000
  )
})
