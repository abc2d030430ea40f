/**
 * `read_mcp_resource` of the extended profile: by `uri`, or by `uriTemplate` and `arguments`; the
 * text in windows under the output budget (window.ts), cut shorter where escaping grows it.
 */
import { type Errors, Messages, type Mcp } from "@mcp-resources/protocol"
import { byteLength } from "@mcp-resources/protocol/Utf8"
import { Effect, Either } from "effect"
import * as Arguments from "../../Arguments.js"
import * as ContentPolicy from "../../ContentPolicy.js"
import type { EmitError, LifecycleSink } from "../../LifecycleSink.js"
import * as ToolHooks from "../../ToolHooks.js"
import { canAccess, type ToolCall, type ToolContext, type ToolOutput } from "../context.js"
import * as Lifecycle from "../lifecycle.js"
import * as Rules from "../rules.js"
import { escapeControls, hasControls } from "./hygiene.js"
import { defaultWindowTtlMs, messages, notFoundCodes } from "./messages.js"
import {
  budgetBytes,
  failureOutcome,
  label,
  policyOptions,
  type Rendered,
  renderedOutcome,
  windowCap
} from "./render.js"
import * as Templates from "./templates.js"
import * as Window from "./window.js"

/** How a read is rendered besides its window: strings to redact first, or the whole text whatever its size. */
export interface RenderOptions {
  /** Replaced by `[redacted]` in the text before the window is cut (so the window's bytes are those of the redacted text). */
  readonly redact?: ReadonlyArray<string>
  /** The whole text in one piece, without a window, whatever the budget. */
  readonly whole?: boolean
}

/** Renders a read result: the whole text when it fits, else the window asked for (or the first). */
export const renderRead = (
  ctx: ToolContext,
  server: string,
  uri: string,
  result: Mcp.ReadResourceResult,
  args: { readonly offset?: number; readonly length?: number },
  render: RenderOptions = {}
): Either.Either<Rendered, string> => {
  const options = policyOptions(ctx)
  const strings = render.redact ?? []
  const hide = (text: string): string => (strings.length === 0 ? text : ToolHooks.redact(text, strings).text)
  const parts: Array<ContentPolicy.Part> = []
  for (let i = 0; i < result.contents.length; i++) {
    const part = ContentPolicy.contentsPart(result.contents[i]!, options)
    if (Either.isLeft(part)) return Either.left(`invalid resources/read result at contents.${i}.blob: ${part.left}`)
    const value = part.right
    // redaction strings come from the text a hook saw, with its controls escaped: they are cut from that
    parts.push(
      value._tag === "text" && strings.length > 0
        ? { ...ContentPolicy.textPart({}, hide(escapeControls(value.text))), decoded: value.decoded }
        : value
    )
  }
  const segments: Array<Window.Segment> = []
  let start = 0
  parts.forEach((part, index) => {
    if (part._tag !== "text") return
    const bytes = part.bytes()
    segments.push({ index, start, bytes })
    start += bytes.length
  })
  const total = start
  const budget = budgetBytes(ctx.truncation)
  const asked = args.offset !== undefined || args.length !== undefined
  const offset = args.offset ?? 0
  if (offset > total) return Either.left(messages.offsetPastEnd(offset, total))
  const length = Math.min(args.length ?? Number.POSITIVE_INFINITY, windowCap(budget))
  const count = result.contents.length
  const header = hide(
    `[resource ${escapeControls(uri)} of MCP server ${escapeControls(server)}: ${count} ${count === 1 ? "content" : "contents"}, ${total} bytes of text]`
  )

  const renderWindow = (window: Window.Window | undefined): Rendered => {
    const lines: Array<string> = [header]
    const images: Array<ContentPolicy.ImagePart & { uri?: string }> = []
    const showOthers = window === undefined || window.start === 0
    parts.forEach((part, index) => {
      const item = result.contents[index]!
      const name = hide(`[contents[${index}] ${label(item.uri, item.mimeType)}: `)
      if (part._tag === "text") {
        const size = part.bytes().length
        const kind = part.decoded ? "text decoded from a blob" : "text"
        if (window === undefined) {
          lines.push(`${name}${kind}, ${size} bytes]`, escapeControls(part.text))
          return
        }
        const piece = window.pieces.find((p) => p.index === index)
        if (piece === undefined) return
        const segment = segments.find((s) => s.index === index)!
        const from = Math.max(window.start - segment.start, 0)
        lines.push(
          `${name}${kind}, ${size} bytes${from > 0 ? `, from its byte ${from}` : ""}]`,
          escapeControls(piece.text)
        )
        return
      }
      if (!showOthers) return
      if (part._tag === "image") {
        images.push({ ...part, uri: item.uri })
        lines.push(`${name}${ContentPolicy.describe(part, options, images.length)}]`)
      } else {
        lines.push(`${name}${ContentPolicy.describe(part, options)}]`)
      }
    })
    if (window !== undefined) {
      lines.push(
        window.end >= window.total
          ? messages.lastWindowNote(window.start, window.end, window.total)
          : messages.windowNote(window.start, window.end, window.total)
      )
    }
    return window === undefined
      ? { text: lines.join("\n"), images }
      : { text: lines.join("\n"), images, windowed: true }
  }

  if (render.whole === true) return Either.right(renderWindow(undefined))
  if (!asked && total <= budget) {
    const whole = renderWindow(undefined)
    if (byteLength(whole.text) <= budget) return Either.right(whole)
  }
  return Either.right(renderWindow(fittedWindow(segments, offset, length)))
}

/** The bytes escaping adds to a window's text (0 for text without bidi or control characters). */
const escapeGrowth = (window: Window.Window): number => {
  let extra = 0
  for (const piece of window.pieces) {
    if (hasControls(piece.text)) {
      extra += byteLength(escapeControls(piece.text)) - byteLength(piece.text)
    }
  }
  return extra
}

/**
 * The window of at most `length` bytes from `offset`, cut shorter when escaping its bidi and control
 * characters would show more than `length` bytes (at least one character is always given).
 */
const fittedWindow = (segments: ReadonlyArray<Window.Segment>, offset: number, length: number): Window.Window => {
  let window = Window.windowOf(segments, offset, length)
  // each step scales the window by how much its escapes grew it; it only ever gets shorter
  for (let step = 0; step < 32; step++) {
    const bytes = window.end - window.start
    const shown = bytes + escapeGrowth(window)
    if (shown <= length) return window
    const shorter = Window.windowOf(segments, offset, Math.max(1, Math.floor((bytes * length) / shown)))
    if (shorter.end >= window.end) return window
    window = shorter
  }
  return window
}

const readFailure = (server: string, uri: string, error: Errors.ResourceFailure): Lifecycle.Outcome =>
  Lifecycle.failure(
    error._tag === "ServerError" && notFoundCodes.includes(error.code)
      ? messages.resourceNotFound(server, uri)
      : Messages.toolFailure.read(escapeControls(error.message))
  )

/** What the extended read accepts: the window and templates. */
export const readOptions = { window: true, templates: true } as const

/** `read_mcp_resource` of the extended profile: by `uri`, or by `uriTemplate` and `arguments`. */
export const callReadTool = (ctx: ToolContext, call: ToolCall): Effect.Effect<ToolOutput, EmitError, LifecycleSink> => {
  const parsed = Arguments.parseReadArguments(call.arguments, readOptions)
  if (Either.isLeft(parsed)) return Effect.succeed({ output: parsed.left.message, success: false })
  const args = parsed.right
  const { server, raw } = args
  const invocation = { callId: call.callId, server, tool: call.name, arguments: raw }
  if (!canAccess(ctx, server)) {
    return Lifecycle.runWith(
      invocation,
      Effect.fail(escapeControls(Messages.serverDisabledByOrchestrator(server))),
      Lifecycle.failure,
      Lifecycle.failure
    )
  }
  const outcomeOf = (
    uri: string,
    result: Parameters<typeof renderRead>[3],
    render: RenderOptions = {}
  ): Lifecycle.Outcome => {
    const rendered = renderRead(ctx, server, uri, result, args, render)
    if (Either.isLeft(rendered)) return Lifecycle.failure(rendered.left)
    const outcome = renderedOutcome(rendered.right.text, rendered.right.images, false)
    // a window: an after hook judges the whole text, and the window is cut again from what it leaves
    return rendered.right.windowed !== true || render.redact !== undefined
      ? outcome
      : {
          ...outcome,
          windowed: {
            whole: () => {
              const whole = renderRead(ctx, server, uri, result, args, { whole: true })
              return Either.isRight(whole) ? whole.right.text : outcome.output
            },
            cut: (redact) => outcomeOf(uri, result, { redact })
          }
        }
  }
  const success = (uri: string) => (result: Parameters<typeof renderRead>[3]) => outcomeOf(uri, result)
  // a successful read tells the host's watch (resource changes), before the completed item
  const watched = (uri: string) => (result: Parameters<typeof renderRead>[3]) => {
    const outcome = success(uri)(result)
    const watch = ctx.resourceChanges
    return watch === undefined || !outcome.success
      ? Effect.succeed(outcome)
      : Effect.as(watch.track({ server, uri, callId: call.callId }), outcome)
  }
  // host policy first: a denied URI (given, or expanded from a template) is refused before any request
  const read = (uri: string): Effect.Effect<Lifecycle.Outcome> => {
    const refused = Rules.refusedRead(ctx, server, uri)
    return refused !== undefined
      ? Effect.succeed(Lifecycle.failure(escapeControls(refused)))
      : Rules.requested(ctx, ctx.set.readResource(server, uri, undefined, { defaultTtlMs: defaultWindowTtlMs })).pipe(
          Effect.flatMap(watched(uri)),
          Effect.catchAll((error) => Effect.succeed(readFailure(server, uri, error)))
        )
  }
  if (args._tag === "uri") {
    const uri = args.uri
    const refused = Rules.refusedRead(ctx, server, uri)
    if (refused !== undefined) {
      return Lifecycle.runWith(invocation, Effect.fail(escapeControls(refused)), Lifecycle.failure, Lifecycle.failure)
    }
    const request = Rules.requested(
      ctx,
      ctx.set.readResource(server, uri, undefined, { defaultTtlMs: defaultWindowTtlMs })
    )
    if (ctx.resourceChanges === undefined)
      return Lifecycle.runWith(invocation, request, success(uri), (error) => readFailure(server, uri, error))
    return Lifecycle.runWith(
      invocation,
      Effect.flatMap(request, watched(uri)),
      (outcome) => outcome,
      (error) => readFailure(server, uri, error)
    )
  }
  return Lifecycle.runWith(
    invocation,
    Effect.flatMap(Templates.expandListed(ctx.set, server, args.uriTemplate, args.values), read),
    (outcome) => outcome,
    failureOutcome
  )
}
