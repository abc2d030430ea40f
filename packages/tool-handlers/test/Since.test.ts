/**
 * `read_mcp_resource` with `since` (extended profile) over real in-memory fixture servers: the same
 * server and URI served by two fixtures (before and after an edit), one host `Bodies` keeping the text
 * bodies and finding the earlier read from the recorded items, as the app-server does with its store.
 */
import { assert, describe, it } from "@effect/vitest"
import type { ToolCallItem } from "@mcp-resources/protocol"
import { applyPatch, parsePatch } from "diff"
import { createHash } from "node:crypto"
import { Effect, Option } from "effect"
import { LifecycleSink, ToolHandlers } from "../src/index.js"
import { harness } from "./utils/harness.js"

const uri = "doc://a"
const sha = (text: string | Uint8Array) => createHash("sha256").update(text).digest("hex")
const text = (body: string, mimeType = "text/plain") => ({
  reads: [{ uri, result: { contents: [{ uri, mimeType, text: body }] } }]
})
const blob = (bytes: Uint8Array) => ({
  reads: [
    {
      uri,
      result: { contents: [{ uri, mimeType: "application/octet-stream", blob: Buffer.from(bytes).toString("base64") }] }
    }
  ]
})

/** The host's bodies: kept bytes by digest, the reads as their completed items recorded them. */
const hostBodies = (options: { readonly keep?: boolean } = {}) => {
  const kept = new Map<string, Uint8Array>()
  const reads: Array<{ callId: string; server: string; read: ToolCallItem.ResourceRead }> = []
  const bodies: ToolHandlers.Bodies = {
    keep: (body) =>
      Effect.sync(() => {
        if (options.keep === false) return false
        kept.set(sha(body), Uint8Array.from(body))
        return true
      }),
    get: (digest) => Effect.sync(() => Option.fromNullable(kept.get(digest))),
    earlier: ({ server, uri, callId }) =>
      Effect.sync(() =>
        Option.fromNullable(
          callId !== undefined
            ? reads.find((r) => r.callId === callId)
            : [...reads].reverse().find((r) => r.server === server && r.read.uri === uri)
        )
      )
  }
  return { bodies, reads }
}

/** Two contexts of server `s`, before and after, over the same bodies; `read` records each completed read. */
const setup = (before: object, after: object, options: { readonly keep?: boolean } = {}) =>
  Effect.gen(function* () {
    const { bodies, reads } = hostBodies(options)
    const contexts = {
      before: { ...(yield* harness({ s: { spec: before } })).ctx, profile: "extended" as const, bodies },
      after: { ...(yield* harness({ s: { spec: after } })).ctx, profile: "extended" as const, bodies }
    }
    const read = (when: "before" | "after", args: Record<string, unknown>, callId: string) =>
      Effect.gen(function* () {
        const output = yield* ToolHandlers.callTool(contexts[when], {
          callId,
          name: "read_mcp_resource",
          arguments: JSON.stringify({ server: "s", uri, ...args })
        })
        const events = yield* LifecycleSink.recorded
        const item = [...events].reverse().find((e) => e.phase === "completed" && e.item.id === callId)?.item
        if (item?.resourceRead !== undefined) reads.push({ callId, server: "s", read: item.resourceRead })
        return { output, item }
      }).pipe(Effect.provide(LifecycleSink.layerRecorder))
    return { read }
  })

/** The unified diff in an output (between the header lines and the last line), its escapes undone. */
const patchOf = (output: string): string => {
  const lines = output.split("\n").filter((line) => !line.startsWith("["))
  return `${lines.join("\n").replaceAll("<U+000D>", "\r")}\n`
}

const applied = (old: string, output: string): string | false => applyPatch(old, parsePatch(patchOf(output))[0]!)

const lines = (count: number, make: (i: number) => string) => Array.from({ length: count }, (_, i) => make(i))

describe("read_mcp_resource since (extended)", () => {
  it.scoped(
    "one edited line in 1 MiB: a diff of under 1% of the body, with the hunk header, both digests and sizes",
    () =>
      Effect.gen(function* () {
        const old = `${lines(16384, (i) => `line ${String(i).padStart(5, "0")} ${"x".repeat(52)}`).join("\n")}\n`
        assert.strictEqual(Buffer.byteLength(old), 1 << 20)
        const edited = old.replace("line 08000 xxx", "line 08000 EDITED xxx")
        const { read } = yield* setup(text(old), text(edited))
        const first = yield* read("before", {}, "c1")
        // the item records the whole body's digest and size, though the model got a window
        assert.deepStrictEqual(first.item?.resourceRead, {
          uri,
          contents: [{ digest: sha(old), size: 1 << 20, text: true, kept: true }]
        })
        // paging further into the body (an offset past 0) records no digests of its own
        const paged = yield* read("before", { offset: 4096 }, "c1b")
        assert.isTrue(paged.output.success)
        assert.isUndefined(paged.item?.resourceRead)
        const { output } = yield* read("after", { since: "last" }, "c2")
        assert.isTrue(output.success)
        const size = Buffer.byteLength(edited)
        assert.isBelow(Buffer.byteLength(output.output), size / 100)
        assert.include(output.output, "changed since call c1")
        assert.include(output.output, `--- ${uri}\tcall c1, sha256 ${sha(old)}, ${1 << 20} bytes`)
        assert.include(output.output, `+++ ${uri}\tnow, sha256 ${sha(edited)}, ${size} bytes`)
        assert.include(output.output, "@@ -7998,7 +7998,7 @@")
        assert.include(output.output, "1 hunk]")
        assert.strictEqual(applied(old, output.output), edited)
      })
  )

  it.scoped("the same body again is a short note: unchanged since the call named", () =>
    Effect.gen(function* () {
      const body = "alpha\nbeta\n"
      const { read } = yield* setup(text(body), text(body))
      yield* read("before", {}, "c1")
      const { output, item } = yield* read("after", { since: { callId: "c1" } }, "c2")
      assert.strictEqual(
        output.output,
        `[resource ${uri} of MCP server s: unchanged since call c1 (sha256 ${sha(body).slice(0, 16)}, 11 bytes); read without since for the whole text]`
      )
      assert.strictEqual(item?.resourceRead?.contents[0]?.digest, sha(body))
    })
  )

  it.scoped("many hunks: each edit far from the others is its own hunk; the patch gives the new text", () =>
    Effect.gen(function* () {
      const old = `${lines(400, (i) => `row ${i}`).join("\n")}\n`
      const edited = old
        .replace("row 10\n", "row ten\n")
        .replace("row 100\n", "")
        .replace("row 200\n", "row 200\nrow 200.5\n")
        .replace("row 300\n", "row three hundred\n")
        .replace("row 399\n", "row 399")
      const { read } = yield* setup(text(old), text(edited))
      yield* read("before", {}, "c1")
      const { output } = yield* read("after", { since: "last" }, "c2")
      assert.include(output.output, "5 hunks]")
      assert.include(output.output, "\\ No newline at end of file")
      assert.strictEqual(applied(old, output.output), edited)
    })
  )

  it.scoped("CRLF lines: the carriage returns are shown escaped and the patch gives the new text", () =>
    Effect.gen(function* () {
      const old = lines(400, (i) => `crlf ${i}\r\n`).join("")
      const edited = old.replace("crlf 20\r\n", "crlf twenty\r\n")
      const { read } = yield* setup(text(old), text(edited))
      yield* read("before", {}, "c1")
      const { output } = yield* read("after", { since: "last" }, "c2")
      assert.include(output.output, "-crlf 20<U+000D>\n+crlf twenty<U+000D>")
      assert.strictEqual(applied(old, output.output), edited)
    })
  )

  it.scoped("UTF-8 multi-byte characters at the edges of hunks stay whole", () =>
    Effect.gen(function* () {
      const old = `${lines(600, (i) => `${"é".repeat(i % 7)}ligne ${i} 😀${"日本".repeat(i % 3)}`).join("\n")}\n`
      const edited = old.replace("ligne 0 😀", "😀ligne 0 😀é").replace("ligne 30 😀", "ligne 30 🙂")
      const { read } = yield* setup(text(old), text(edited))
      yield* read("before", {}, "c1")
      const { output } = yield* read("after", { since: "last" }, "c2")
      assert.include(output.output, "+😀ligne 0 😀é")
      assert.include(output.output, "+ééligne 30 🙂")
      assert.notInclude(output.output, "\uFFFD")
      assert.strictEqual(applied(old, output.output), edited)
    })
  )

  it.scoped("binary content is described, whole, with the reason", () =>
    Effect.gen(function* () {
      const { read } = yield* setup(blob(Buffer.from([0, 1, 2, 255])), blob(Buffer.from([0, 1, 3, 255])))
      const first = yield* read("before", {}, "c1")
      assert.deepStrictEqual(first.item?.resourceRead?.contents, [
        { digest: sha(Buffer.from([0, 1, 2, 255])), size: 4, text: false, kept: false }
      ])
      const { output } = yield* read("after", { since: "last" }, "c2")
      assert.match(
        output.output,
        /^\[no diff since call c1: contents\[0\] is binary, not text; the whole resource follows\]\n\[resource doc:\/\/a/
      )
      assert.include(output.output, "binary application/octet-stream, 4 bytes: bytes not sent")
    })
  )

  it.scoped("a diff over the bound falls back to the whole body with the reason", () =>
    Effect.gen(function* () {
      const old = `${lines(200, (i) => `old ${i}`).join("\n")}\n`
      const edited = `${lines(200, (i) => (i % 2 === 0 ? `new ${i}` : `old ${i}`)).join("\n")}\n`
      const { read } = yield* setup(text(old), text(edited))
      yield* read("before", {}, "c1")
      const { output } = yield* read("after", { since: "last" }, "c2")
      assert.match(
        output.output,
        /^\[no diff since call c1: the diff (\(\d+ bytes\) )?would be more than 25% of the text \(\d+ bytes\); the whole resource follows\]/
      )
      assert.include(output.output, "new 198")
    })
  )

  it.scoped("no earlier read, or an earlier body not kept: the whole body with the reason", () =>
    Effect.gen(function* () {
      const { read } = yield* setup(text("one\n"), text("two\n"), { keep: false })
      const none = yield* read("before", { since: "last" }, "c1")
      assert.match(
        none.output.output,
        /^\[no diff: this conversation has no earlier read of this resource; the whole resource follows\]\n/
      )
      const gone = yield* read("after", { since: "last" }, "c2")
      assert.match(gone.output.output, /^\[no diff since call c1: the text of contents\[0\] read then was not kept/)
      assert.include(gone.output.output, "\ntwo")
    })
  )

  it.scoped("since errors: a bad value, a call that read nothing here, a read of another resource", () =>
    Effect.gen(function* () {
      const { read } = yield* setup(text("one\n"), text("two\n"))
      const bad = (value: unknown) => Effect.map(read("after", { since: value }, "bad"), (r) => r.output.output)
      const expected = (got: string) =>
        `failed to parse function arguments: field "since" must be "last" or {"callId": "<the call id of an earlier read>"}, got ${got}`
      assert.strictEqual(yield* bad("first"), expected('"first"'))
      assert.strictEqual(yield* bad(3), expected("number"))
      assert.strictEqual(yield* bad({}), expected("object"))
      assert.strictEqual(yield* bad({ callId: " " }), expected("object"))
      assert.strictEqual(yield* bad([]), expected("array"))
      const unknown = yield* read("after", { since: { callId: "nope" } }, "c3")
      assert.isFalse(unknown.output.success)
      assert.strictEqual(
        unknown.output.output,
        "since: call 'nope' is not an earlier read_mcp_resource of this conversation"
      )
      yield* read("before", {}, "c1")
      const other = yield* Effect.provide(
        ToolHandlers.callTool(
          {
            ...(yield* harness({
              s: { spec: { reads: [{ uri: "doc://b", result: { contents: [{ uri: "doc://b", text: "b" }] } }] } }
            })).ctx,
            profile: "extended",
            bodies: {
              keep: () => Effect.succeed(false),
              get: () => Effect.succeed(Option.none()),
              earlier: () => Effect.succeed(Option.some({ callId: "c1", server: "s", read: { uri, contents: [] } }))
            }
          },
          {
            callId: "c4",
            name: "read_mcp_resource",
            arguments: JSON.stringify({ server: "s", uri: "doc://b", since: { callId: "c1" } })
          }
        ),
        LifecycleSink.layerRecorder
      )
      assert.strictEqual(other.output, "since: call 'c1' read resource 'doc://a' of MCP server 's', not this one")
    })
  )
})
