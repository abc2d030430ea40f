/**
 * The bodies of the extended read (docs/templates-and-changes.md, "What changed"): the digest of each
 * content item a read returned (recorded in the call's item as `resourceRead`), each text body kept
 * through the host's `ToolContext.bodies` for later diffs, and `since`: the answer to a read that asks
 * what changed since an earlier one (a unified diff, "unchanged", or the whole body with the reason).
 */
import type { Mcp, ToolCallItem } from "@mcp-resources/protocol"
import * as Digest from "@mcp-resources/protocol/Digest"
import { Effect, Either, Option } from "effect"
import type { Since } from "../../Arguments.js"
import * as Content from "../../Content.js"
import type { EarlierRead, ToolContext } from "../context.js"
import { escapeControls } from "./hygiene.js"
import { messages } from "./messages.js"

/**
 * A diff is given only when its bytes are at most this fraction of the text's (the new body's text
 * contents together); a larger one, or one over the output budget, gives the whole body instead.
 */
export const maxDiffFraction = 0.25

/** Lines of context around each change in a hunk. */
export const diffContextLines = 3

/** The most edited lines a diff is computed for (the work of the diff grows with them); more gives the whole body. */
export const maxEditedLines = 4096

/** What a read returned, measured: the item's `resourceRead`, and each content item's text (undefined: not text). */
export interface Measured {
  readonly read: ToolCallItem.ResourceRead
  readonly texts: ReadonlyArray<string | undefined>
}

/**
 * The digest and size of each content item of `result` (a text's UTF-8 bytes, a blob's decoded
 * bytes), each text kept through `ctx.bodies` when the host gives one.
 */
export const measure = (
  ctx: ToolContext,
  budget: Content.Budget,
  uri: string,
  result: Mcp.ReadResourceResult
): Effect.Effect<Measured> =>
  Effect.gen(function* () {
    const contents: Array<ToolCallItem.ReadBody> = []
    const texts: Array<string | undefined> = []
    for (const item of result.contents) {
      const part = Content.contentsPart(item, budget)
      if (Either.isRight(part) && part.right._tag === "text") {
        const bytes = part.right.bytes()
        const kept =
          ctx.bodies === undefined ? false : yield* ctx.bodies.keep(bytes, { uri: item.uri, mimeType: item.mimeType })
        contents.push({ ...Digest.ofBytes(bytes), text: true, kept })
        texts.push(part.right.text)
      } else {
        contents.push({ ...Digest.ofItem(item), text: false, kept: false })
        texts.push(undefined)
      }
    }
    return { read: { uri, contents }, texts }
  })

/**
 * What a change of the resource will say of the body read (`ResourceChanges.Read.body`): its digest
 * and size and whether a diff can be asked for, when the read returned one content item (`undefined`
 * for several); nothing for a read that was not measured.
 */
export const changeBody = (
  read: ToolCallItem.ResourceRead | undefined
): {
  readonly body?: { readonly digest: string; readonly size: number; readonly diffAvailable: boolean } | undefined
} => {
  // not measured (a window further into the body): nothing said, the body known stays
  if (read === undefined) return {}
  const only = read.contents.length === 1 ? read.contents[0]! : undefined
  return {
    body:
      only === undefined ? undefined : { digest: only.digest, size: only.size, diffAvailable: only.text && only.kept }
  }
}

/** The answer to a read with `since`: a diff (or "unchanged") as the whole output, the whole body with a note, or a refusal. */
export type Answer =
  | { readonly _tag: "changes"; readonly text: string }
  | { readonly _tag: "whole"; readonly note: string }
  | { readonly _tag: "refused"; readonly message: string }

const short = (digest: string): string => digest.slice(0, 16)

const whole = (reason: string, callId?: string): Answer => ({
  _tag: "whole",
  note: `[no diff${callId === undefined ? "" : ` since call ${escapeControls(callId)}`}: ${reason}; the whole resource follows]`
})

/** The earlier read `since` names; a refusal when a named call is not a read of this resource. */
const earlierRead = (
  ctx: ToolContext,
  server: string,
  uri: string,
  since: Since
): Effect.Effect<Either.Either<Option.Option<EarlierRead>, string>> => {
  const bodies = ctx.bodies
  if (bodies === undefined) return Effect.succeed(Either.right(Option.none()))
  if (since._tag === "last") return Effect.map(bodies.earlier({ server, uri }), Either.right)
  return Effect.map(bodies.earlier({ server, uri, callId: since.callId }), (found) => {
    if (Option.isNone(found)) return Either.left(messages.sinceNotARead(since.callId))
    const read = found.value
    return read.server === server && read.read.uri === uri
      ? Either.right(found)
      : Either.left(messages.sinceOtherResource(since.callId, read.server, read.read.uri))
  })
}

const utf8 = new TextDecoder("utf-8")

/**
 * What changed between the earlier read and this one (`now`): per content item, by position,
 * "unchanged" or a unified diff of the text (jsdiff, {@link diffContextLines} lines of context); the
 * whole body with the reason when an item is not text, the earlier text was not kept, the number of
 * contents changed, or the diff is over {@link maxDiffFraction} of the text or over `budgetBytes`.
 */
export const answer = (
  ctx: ToolContext,
  server: string,
  uri: string,
  since: Since,
  now: Measured,
  budgetBytes: number
): Effect.Effect<Answer> =>
  Effect.gen(function* () {
    if (ctx.bodies === undefined) return whole("this host keeps no earlier bodies")
    const found = yield* earlierRead(ctx, server, uri, since)
    if (Either.isLeft(found)) return { _tag: "refused", message: found.left } satisfies Answer
    if (Option.isNone(found.right)) return whole("this conversation has no earlier read of this resource")
    const earlier = found.right.value
    const callId = earlier.callId
    const before = earlier.read.contents
    const after = now.read.contents
    if (before.length !== after.length)
      return whole(`the resource has ${after.length} contents now, ${before.length} then`, callId)
    if (before.every((body, i) => body.digest === after[i]!.digest)) {
      const sizes = after.map((body) => `sha256 ${short(body.digest)}, ${body.size} bytes`).join("; ")
      return {
        _tag: "changes",
        text: `[resource ${escapeControls(uri)} of MCP server ${escapeControls(server)}: unchanged since call ${escapeControls(callId)} (${sizes}); read without since for the whole text]`
      } satisfies Answer
    }
    // jsdiff is loaded at the first diff, not with the tools
    const { FILE_HEADERS_ONLY, formatPatch, structuredPatch } = yield* Effect.promise(() => import("diff"))
    const textBytes = after.reduce((sum, body) => sum + (body.text ? body.size : 0), 0)
    const bound = Math.floor(textBytes * maxDiffFraction)
    const sections: Array<string> = []
    let diffBytes = 0
    for (let i = 0; i < after.length; i++) {
      const was = before[i]!
      const is = after[i]!
      const label = `contents[${i}]`
      if (was.digest === is.digest) {
        sections.push(`[${label}: unchanged, sha256 ${short(is.digest)}, ${is.size} bytes]`)
        continue
      }
      if (!is.text || !was.text) return whole(`${label} is binary, not text`, callId)
      const kept = yield* ctx.bodies.get(was.digest)
      if (Option.isNone(kept))
        return whole(
          `the text of ${label} read then was not kept (over [changes] body_max_bytes, evicted or released)`,
          callId
        )
      const oldText = utf8.decode(kept.value)
      const newText = now.texts[i]!
      // the edit count bounds the work: each edited line adds at least one line to the diff
      const lines = countLines(newText) + countLines(oldText)
      const patch = structuredPatch(
        uri,
        uri,
        oldText,
        newText,
        `call ${callId}, sha256 ${was.digest}, ${was.size} bytes`,
        `now, sha256 ${is.digest}, ${is.size} bytes`,
        {
          context: diffContextLines,
          maxEditLength: Math.min(maxEditedLines, Math.max(8, Math.ceil(lines * maxDiffFraction)))
        }
      )
      if (patch === undefined) return whole(tooLarge(undefined, textBytes), callId)
      const text = escapeControls(formatPatch(patch, FILE_HEADERS_ONLY)).replace(/\n$/, "")
      diffBytes += Buffer.byteLength(text, "utf8")
      if (diffBytes > bound) return whole(tooLarge(diffBytes, textBytes), callId)
      const hunks = patch.hunks.length
      sections.push(
        `[${label}: sha256 ${short(was.digest)} (${was.size} bytes) -> sha256 ${short(is.digest)} (${is.size} bytes), ${hunks} ${hunks === 1 ? "hunk" : "hunks"}]`,
        text
      )
    }
    const head = `[resource ${escapeControls(uri)} of MCP server ${escapeControls(server)}: changed since call ${escapeControls(callId)}; what follows is a unified diff of its text (lines starting with - were removed, + added), not the whole text]`
    const tail = `[diff: ${diffBytes} bytes instead of the whole ${textBytes} bytes of text; read without since for the whole text]`
    const text = [head, ...sections, tail].join("\n")
    if (Buffer.byteLength(text, "utf8") > budgetBytes)
      return whole(`the diff (${diffBytes} bytes) is larger than one tool output`, callId)
    return { _tag: "changes", text } satisfies Answer
  })

const tooLarge = (diffBytes: number | undefined, textBytes: number): string =>
  `the diff${diffBytes === undefined ? "" : ` (${diffBytes} bytes)`} would be more than ${Math.round(maxDiffFraction * 100)}% of the text (${textBytes} bytes)`

const countLines = (text: string): number => {
  let lines = 1
  for (let at = text.indexOf("\n"); at !== -1; at = text.indexOf("\n", at + 1)) lines++
  return lines
}
