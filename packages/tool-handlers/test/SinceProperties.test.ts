/**
 * Properties of `since` (internal/extended/since.ts) over generated texts and edits: whenever a diff
 * is given, the unified diff in the output applied to the earlier text gives the new text exactly
 * (CRLF, multi-byte and astral characters, missing final newlines included); the same text is always
 * "unchanged"; and the `since` argument parses to a value or a message, never a throw.
 */
import { assert, describe, it } from "@effect/vitest"
import { applyPatch, parsePatch } from "diff"
import { createHash } from "node:crypto"
import { Effect, Either, Option } from "effect"
import fc from "fast-check"
import { Arguments, type Content, type ToolHandlers } from "../src/index.js"
import * as Since from "../src/internal/extended/since.js"

const uri = "doc://p"
const line = fc.stringMatching(/^[a-z é日😀\r]{0,12}$/u)
const doc = fc.tuple(fc.array(line, { minLength: 600, maxLength: 900 }), fc.boolean())
const edit = fc.record({
  at: fc.nat(),
  kind: fc.constantFrom("replace", "insert", "delete"),
  text: line
})

const join = ([lines, finalNewline]: [ReadonlyArray<string>, boolean]) => lines.join("\n") + (finalNewline ? "\n" : "")

const edited = (lines: ReadonlyArray<string>, edits: ReadonlyArray<{ at: number; kind: string; text: string }>) => {
  const out = [...lines]
  for (const e of edits) {
    const at = e.at % Math.max(1, out.length)
    if (e.kind === "replace") out[at] = e.text
    else if (e.kind === "insert") out.splice(at, 0, e.text)
    else if (out.length > 1) out.splice(at, 1)
  }
  return out
}

const result = (text: string) => ({ contents: [{ uri, mimeType: "text/plain", text }] })
const budget: Content.Budget = { truncation: { mode: "bytes", limit: 1 << 20 }, maxImageBytes: 1 << 20 }

/** The answer of a read of `now` with `since: "last"` after a read of `then`. */
const answerOf = (then: string, now: string) =>
  Effect.gen(function* () {
    const kept = new Map<string, Uint8Array>()
    let earlier: ToolHandlers.EarlierRead | undefined
    const bodies: ToolHandlers.Bodies = {
      keep: (bytes) =>
        Effect.sync(() => {
          kept.set(createHash("sha256").update(bytes).digest("hex"), Uint8Array.from(bytes))
          return true
        }),
      get: (digest) => Effect.sync(() => Option.fromNullable(kept.get(digest))),
      earlier: () => Effect.succeed(Option.fromNullable(earlier))
    }
    const ctx = { bodies } as unknown as ToolHandlers.ToolContext
    const first = yield* Since.measure(ctx, budget, uri, result(then))
    earlier = { callId: "c1", server: "s", read: first.read }
    const second = yield* Since.measure(ctx, budget, uri, result(now))
    return yield* Since.answer(ctx, "s", uri, { _tag: "last" }, second, 1 << 20)
  })

/** The patch of an output, its escapes undone. */
const patchOf = (output: string) =>
  `${output
    .split("\n")
    .filter((l) => !l.startsWith("["))
    .join("\n")
    .replaceAll("<U+000D>", "\r")}\n`

describe("since properties", () => {
  it("a diff, when given, applied to the earlier text gives the new text; the same text is unchanged", async () => {
    let diffs = 0
    await fc.assert(
      fc.asyncProperty(doc, fc.array(edit, { minLength: 0, maxLength: 6 }), async ([lines, finalNewline], edits) => {
        const then = join([lines, finalNewline])
        const now = join([edited(lines, edits), finalNewline && edits.length % 2 === 0])
        const answer = await Effect.runPromise(answerOf(then, now))
        if (then === now) {
          assert.strictEqual(answer._tag, "changes")
          assert.include(answer._tag === "changes" ? answer.text : "", "unchanged since call c1")
          return
        }
        if (answer._tag === "whole") {
          assert.match(answer.note, /would be more than 25%|larger than one tool output/)
          return
        }
        assert.strictEqual(answer._tag, "changes")
        const text = answer._tag === "changes" ? answer.text : ""
        assert.strictEqual(applyPatch(then, parsePatch(patchOf(text))[0]!), now)
        diffs++
      }),
      { numRuns: 200 }
    )
    // most runs are small edits of a long text: the property is about diffs, not fallbacks
    assert.isAbove(diffs, 100)
  })

  it("the since argument parses to a value or a message, never a throw", () =>
    fc.assert(
      fc.property(fc.oneof(fc.jsonValue(), fc.constant("last"), fc.record({ callId: fc.string() })), (since) => {
        const parsed = Arguments.sinceOf({ since })
        const ok =
          since === null ||
          (typeof since === "string" && since.trim() === "last") ||
          (typeof since === "object" &&
            !Array.isArray(since) &&
            typeof (since as { callId?: unknown }).callId === "string" &&
            (since as { callId: string }).callId.trim() !== "")
        assert.strictEqual(Either.isRight(parsed), ok)
      })
    ))
})
