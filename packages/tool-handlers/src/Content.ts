/**
 * The content pipeline: MCP content → parts → the model's text and items, one entry per profile
 * ({@link codex}, {@link extended}; a profile holds its entry as `content`). Every output of a tool
 * call goes through it: a resource read, an MCP tool's result, a list payload, a failure message.
 * The budgets are inputs ({@link Budget}: the truncation policy, which also sizes the extended
 * profile's windows, and `[tools] max_image_bytes`), never separate passes.
 *
 * - Parts ({@link Part}): images become image parts (up to `max_image_bytes`), text-like blobs are
 *   decoded as text, other binary is described; base64 never reaches the model's text. Each blob is
 *   decoded once: the part made of it is kept on the content object itself, under a symbol that is
 *   not enumerable (a cached read result is the same object, so a later window decodes nothing; the
 *   part lives and dies with its content, and no table outlives them); an image keeps only its hash,
 *   a text blob its decoded bytes once (its text is decoded from them when rendered).
 * - codex: the payload's JSON text, middle-truncated (Truncation.ts); MCP results as their JSON.
 * - extended: parts as lines (hygiene.ts escapes bidi and control characters), a read's text in
 *   windows (byte ranges: internal/extended/window.ts) under the budget, images as content items.
 *
 * A new content type: its part here ({@link blobPart}, or the block switch of
 * {@link renderToolResult}), its lines in the extended entry.
 */
import { createHash } from "node:crypto"
import { type AppServer, Config, Mcp, Records, Truncation as ProtocolTruncation } from "@mcp-resources/protocol"
import { isRecord } from "@mcp-resources/protocol/Records"
import { byteLength } from "@mcp-resources/protocol/Utf8"
import { Either } from "effect"
import * as Lifecycle from "./internal/lifecycle.js"
import * as Payloads from "./internal/payloads.js"
import { escapeControls, escapeControlsJson, hasControls } from "./internal/extended/hygiene.js"
import { messages, minWindowBytes, windowReserveBytes } from "./internal/extended/messages.js"
import * as Templates from "./internal/extended/templates.js"
import * as Window from "./internal/extended/window.js"
import * as ToolHooks from "./ToolHooks.js"
import * as Truncation from "./Truncation.js"

// ---------------------------------------------------------------------------------------------------
// Budget: the inputs that bound an output
// ---------------------------------------------------------------------------------------------------

/** What bounds an output: the configured truncation policy (×1.2 applied inside) and the largest image sent. */
export interface Budget {
  readonly truncation: ProtocolTruncation.TruncationPolicy
  readonly maxImageBytes: number
}

/** The budget of a tool context: its truncation policy and the config's `[tools] max_image_bytes`. */
export const budgetOf = (ctx: {
  readonly truncation: ProtocolTruncation.TruncationPolicy
  readonly config: Config.Config
}): Budget => ({
  truncation: ctx.truncation,
  maxImageBytes: ctx.config.tools?.maxImageBytes ?? Config.toolsDefaults.maxImageBytes
})

/** The output budget in bytes: the effective truncation limit (tokens count 4 bytes). */
export const budgetBytes = (policy: ProtocolTruncation.TruncationPolicy): number => {
  const effective = ProtocolTruncation.effective(policy)
  return effective.mode === "bytes" ? effective.limit : effective.limit * 4
}

/** The largest window under a budget: the budget less `windowReserveBytes`, at least `minWindowBytes`. */
export const windowCap = (budget: number): number => Math.max(minWindowBytes, budget - windowReserveBytes)

// ---------------------------------------------------------------------------------------------------
// Parts: what one MCP content becomes
// ---------------------------------------------------------------------------------------------------

/** The image MIME types sent as images. */
export const imageMimeTypes: ReadonlyArray<string> = ["image/png", "image/jpeg", "image/gif", "image/webp"]

/** An image sent to the model as an image part. */
export interface ImagePart {
  readonly _tag: "image"
  readonly mimeType: string
  /** The base64 data, as the server sent it. */
  readonly data: string
  /** Decoded bytes. */
  readonly size: number
  /** SHA-256 of the decoded bytes, hex. */
  readonly sha256: string
}

/** Text: given as text, or a text-like blob decoded from UTF-8. */
export interface TextPart {
  readonly _tag: "text"
  readonly text: string
  /** The UTF-8 bytes of the text (built once, on demand). */
  readonly bytes: () => Buffer
  /** True when it was a blob. */
  readonly decoded: boolean
}

/** Content that is not sent: why, and its size. */
export interface DescribedPart {
  readonly _tag: "described"
  readonly mimeType: string | undefined
  readonly size: number
  readonly reason: "binary" | "imageTooLarge" | "notUtf8"
}

/** What the policy makes of one content. */
export type Part = ImagePart | TextPart | DescribedPart

/** The policy's limits. */
export interface Options {
  readonly maxImageBytes: number
}

/** The MIME type without parameters, lower case (`Text/Plain; charset=utf-8` → `text/plain`). */
export const essence = (mimeType: string | undefined): string | undefined => {
  if (mimeType === undefined) return undefined
  const semicolon = mimeType.indexOf(";")
  const value = (semicolon === -1 ? mimeType : mimeType.slice(0, semicolon)).trim().toLowerCase()
  return value === "" ? undefined : value
}

const textApplications = new Set([
  "application/json",
  "application/xml",
  "application/yaml",
  "application/x-yaml",
  "application/toml",
  "application/csv",
  "application/javascript",
  "application/x-javascript",
  "application/ecmascript",
  "application/typescript",
  "application/x-typescript",
  "application/sql",
  "application/graphql",
  "application/x-sh",
  "application/x-httpd-php",
  "application/x-ndjson",
  "application/jsonl",
  "application/markdown",
  "application/x-tex",
  "application/rtf"
])

/** Text-like: `text/*`, JSON, XML, YAML, CSV, JavaScript and the like (also `+json`, `+xml`, `+yaml` types such as SVG). */
export const isTextLike = (mimeType: string | undefined): boolean => {
  const type = essence(mimeType)
  if (type === undefined) return false
  return (
    type.startsWith("text/") ||
    textApplications.has(type) ||
    type.endsWith("+json") ||
    type.endsWith("+xml") ||
    type.endsWith("+yaml")
  )
}

/** An image type sent as an image (`image/jpg` counts as JPEG). */
export const imageType = (mimeType: string | undefined): string | undefined => {
  const type = essence(mimeType)
  if (type === "image/jpg") return "image/jpeg"
  return type !== undefined && imageMimeTypes.includes(type) ? type : undefined
}

/** Where a content object keeps its part ({@link blobPart}) and its text's UTF-8 bytes ({@link textPart}, {@link keptRead}). */
const partKey = Symbol("@mcp-resources/tool-handlers/Content/part")
const bytesKey = Symbol("@mcp-resources/tool-handlers/Content/utf8")

/** What `owner` keeps under `key`, if anything. */
const keptOn = <A>(owner: object, key: symbol): A | undefined => (owner as { readonly [k: symbol]: A | undefined })[key]

/** Keeps `value` on `owner` under `key`, not enumerable (JSON, spreads and key lists do not see it); a frozen owner keeps nothing. */
const keepOn = <A>(owner: object, key: symbol, value: A): A => {
  if (Object.isExtensible(owner)) Object.defineProperty(owner, key, { value, enumerable: false })
  return value
}

/** The byte size of base64 text without decoding it. */
export const base64Size = (base64: string): number => {
  let padding = 0
  if (base64.endsWith("==")) padding = 2
  else if (base64.endsWith("=")) padding = 1
  return Math.floor(((base64.length - padding) * 3) / 4)
}

const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true })

/** The text of `owner` (a text content) as a {@link TextPart}; its UTF-8 bytes are built once. */
export const textPart = (owner: object, text: string): TextPart => ({
  _tag: "text",
  text,
  decoded: false,
  bytes: () => keptOn<Buffer>(owner, bytesKey) ?? keepOn(owner, bytesKey, Buffer.from(text, "utf8"))
})

/**
 * What the policy makes of a blob held by `owner` (its content object): an image, text, or a
 * description. Invalid base64 is refused (`Left` with the problem). Decided once per owner.
 */
export const blobPart = (
  owner: object,
  base64: string,
  mimeType: string | undefined,
  options: Options
): Either.Either<Part, string> => {
  const known = keptOn<Part>(owner, partKey)
  if (known !== undefined) return Either.right(known)
  if (!Mcp.isBase64(base64)) return Either.left("is not valid base64")
  let part: Part
  const image = imageType(mimeType)
  if (image !== undefined) {
    const size = base64Size(base64)
    part =
      size > options.maxImageBytes
        ? { _tag: "described", mimeType, size, reason: "imageTooLarge" }
        : {
            _tag: "image",
            mimeType: image,
            data: base64,
            size,
            // the hash is all that is needed of the bytes: they are not kept beside the (cached) base64
            sha256: createHash("sha256").update(Buffer.from(base64, "base64")).digest("hex")
          }
  } else if (isTextLike(mimeType)) {
    const bytes = Buffer.from(base64, "base64")
    let valid: boolean
    try {
      utf8.decode(bytes)
      valid = true
    } catch {
      valid = false
    }
    // the part keeps the decoded bytes once; its text is decoded from them when rendered
    part = valid
      ? {
          _tag: "text",
          get text() {
            return bytes.toString("utf8")
          },
          decoded: true,
          bytes: () => bytes
        }
      : { _tag: "described", mimeType, size: bytes.length, reason: "notUtf8" }
  } else {
    part = { _tag: "described", mimeType, size: base64Size(base64), reason: "binary" }
  }
  return Either.right(keepOn(owner, partKey, part))
}

// ---------------------------------------------------------------------------------------------------
// The kept form: how a read kept for windows is held in the result cache
// ---------------------------------------------------------------------------------------------------

/** A text content at least this long (UTF-16 units) is kept as its UTF-8 bytes by {@link keptRead}. */
export const bytesFormMinLength = 64 * 1024

/** A {@link keptRead} copy holds its text's UTF-8 bytes under this key (a text content's memo of {@link textPart} uses another). */
const keptBytesKey = Symbol("@mcp-resources/tool-handlers/Content/kept")

/** The UTF-8 bytes a content of a {@link keptRead} result holds its text in; undefined for any other content. */
export const textBytesOf = (contents: object): Buffer | undefined => keptOn<Buffer>(contents, keptBytesKey)

const jsonBytes = (value: unknown): number => Buffer.byteLength(JSON.stringify(value) ?? "", "utf8")

/**
 * The form a read kept for windows is cached in (the resource client's `ReadOptions.keptForm`):
 * every text content of at least {@link bytesFormMinLength} becomes a copy whose `text` is read from
 * its UTF-8 bytes (the only copy kept: a JavaScript string of non-Latin-1 text takes two bytes a unit
 * beside them); windows use those bytes ({@link contentsPart}). Fields and key order stay as they
 * were, so the JSON text is the same. `size` is what the value holds: its JSON without the kept
 * texts, plus their bytes.
 */
export const keptRead = <A extends { readonly contents: ReadonlyArray<object> }>(
  result: A
): { readonly value: A; readonly size: number } => {
  let kept = 0
  let changed = false
  const contents = result.contents.map((item) => {
    const text = (item as { readonly text?: unknown }).text
    if (typeof text !== "string" || text.length < bytesFormMinLength) return item
    const bytes = Buffer.from(text, "utf8")
    const copy = {}
    for (const [name, value] of Object.entries(item)) {
      Object.defineProperty(
        copy,
        name,
        name === "text"
          ? { enumerable: true, get: () => bytes.toString("utf8") }
          : { enumerable: true, writable: false, value }
      )
    }
    keepOn(copy, keptBytesKey, bytes)
    kept += bytes.length
    changed = true
    return copy
  })
  if (!changed) return { value: result, size: jsonBytes(result) }
  const value = { ...result, contents } as A
  // the JSON of the rest: the kept texts measured as empty strings
  const rest = {
    ...result,
    contents: result.contents.map((item, i) => (contents[i] === item ? item : { ...item, text: "" }))
  }
  return { value, size: jsonBytes(rest) + kept }
}

/** A text kept in the {@link keptRead} form: its UTF-8 bytes are used, no other copy is made. */
const keptTextPart = (bytes: Buffer): TextPart => ({
  _tag: "text",
  get text() {
    return bytes.toString("utf8")
  },
  decoded: false,
  bytes: () => bytes
})

/** The part of a read result's content item (a text kept as UTF-8 bytes uses those bytes). */
export const contentsPart = (item: Mcp.ResourceContents, options: Options): Either.Either<Part, string> => {
  if (!Mcp.isTextContents(item)) return blobPart(item, item.blob, item.mimeType, options)
  const kept = textBytesOf(item)
  return Either.right(kept === undefined ? textPart(item, item.text) : keptTextPart(kept))
}

/** `image/png, 68 bytes` or `no MIME type, 68 bytes` */
const kindAndSize = (mimeType: string | undefined, size: number): string =>
  `${mimeType === undefined ? "no MIME type" : mimeType}, ${size} bytes`

/** The model-facing description of a part that is not text (what it is and what was done with it). */
export const describe = (part: ImagePart | DescribedPart, options: Options, imageNumber?: number): string => {
  if (part._tag === "image") {
    return `image ${kindAndSize(part.mimeType, part.size)}: sent as image part${imageNumber === undefined ? "" : ` ${imageNumber}`}`
  }
  switch (part.reason) {
    case "imageTooLarge":
      return `image ${kindAndSize(part.mimeType, part.size)}: over max_image_bytes (${options.maxImageBytes}), bytes not sent`
    case "notUtf8":
      return `binary ${kindAndSize(part.mimeType, part.size)}: not valid UTF-8 text, bytes not sent`
    default:
      return `binary ${kindAndSize(part.mimeType, part.size)}: bytes not sent`
  }
}

// ---------------------------------------------------------------------------------------------------
// The pipeline: one entry per profile
// ---------------------------------------------------------------------------------------------------

/** What a rendering gives: the model's text and the images sent. */
export interface Rendered {
  readonly text: string
  readonly images: ReadonlyArray<ImagePart & { readonly uri?: string }>
  /** True when the text is a window of a longer one. */
  readonly windowed?: boolean
}

/** The window a read asks for (extended profile; the codex entry shows the whole payload). */
export interface WindowArguments {
  readonly offset?: number
  readonly length?: number
}

/** How a read is rendered besides its window: strings to redact first, or the whole text whatever its size. */
export interface RenderOptions {
  /** Replaced by `[redacted]` in the text before the window is cut (so the window's bytes are those of the redacted text). */
  readonly redact?: ReadonlyArray<string>
  /** The whole text in one piece, without a window, whatever the budget. */
  readonly whole?: boolean
}

/** A profile's entry into the pipeline: how each kind of output becomes what the model gets. */
export interface Pipeline {
  /** A read result as text (and images) under the budget; `Left` with the message of a result it refuses. */
  readonly read: (
    budget: Budget,
    server: string,
    uri: string,
    result: Mcp.ReadResourceResult,
    window?: WindowArguments,
    options?: RenderOptions
  ) => Either.Either<Rendered, string>
  /** The outcome (item and model output) of a rendering. */
  readonly outcome: (rendered: Rendered, isError: boolean) => Lifecycle.Outcome
  /** The outcome of an MCP tool's result. */
  readonly toolResult: (budget: Budget, server: string, result: Mcp.CallToolResult) => Lifecycle.Outcome
  /**
   * The outcome of a list tool's payload, given as pieces of one JSON text; `aggregate` (an aggregate
   * resource list, where the profile offers search) counts what it holds, for an output over the budget.
   */
  readonly list: (budget: Budget, pieces: ReadonlyArray<string>, aggregate?: AggregateCount) => Lifecycle.Outcome
  /** The outcome of a failure with this model-facing message. */
  readonly failure: (message: string) => Lifecycle.Outcome
}

/** A result whose JSON text is over this many bytes is stored in its item with truncated content (codex). */
export const maxItemResultBytes = 1048576

/** A completed outcome whose output is `output`, as one text content. */
const textOutcome = (output: string): Lifecycle.Outcome => ({
  status: "completed",
  result: { content: [{ type: "text", text: output }], isError: false },
  error: null,
  output,
  success: true
})

/** The codex outcome of a payload given as pieces of one JSON text: that text, truncated. */
const codexPayload = (budget: Budget, pieces: ReadonlyArray<string>): Lifecycle.Outcome =>
  textOutcome(Truncation.truncatePiecesOutput(pieces, budget.truncation))

const codexToolResult = (budget: Budget, _server: string, result: Mcp.CallToolResult): Lifecycle.Outcome => {
  const json = JSON.stringify(result)
  const output = Truncation.truncateOutput(json, budget.truncation)
  const isError = result.isError === true
  const stored =
    byteLength(json) > maxItemResultBytes ? { ...result, content: [{ type: "text", text: output }] } : result
  return { status: isError ? "failed" : "completed", result: stored, error: null, output, success: !isError }
}

/**
 * The codex profile (resource-tools.md sections 8, 10, 11.3): a read or list payload as one JSON
 * text, an MCP result as its JSON text, each middle-truncated under the budget; no images.
 */
export const codex: Pipeline = {
  read: (budget, server, uri, result) =>
    Either.right({
      text: Truncation.truncatePiecesOutput(Payloads.readPieces(server, uri, result), budget.truncation),
      images: []
    }),
  outcome: (rendered) => textOutcome(rendered.text),
  toolResult: codexToolResult,
  list: codexPayload,
  failure: Lifecycle.failure
}

const label = (uri: string, mimeType: string | undefined): string =>
  mimeType === undefined ? escapeControls(uri) : `${escapeControls(uri)} (${escapeControls(mimeType)})`

/** The extended outcome of a rendering: output text, content items, and an item result without image bytes. */
const renderedOutcome = (
  output: string,
  images: Rendered["images"],
  isError: boolean,
  extra: { readonly structuredContent?: unknown } = {}
): Lifecycle.Outcome => {
  const contentItems: Array<AppServer.ContentItem> = [{ type: "text", text: output }]
  const summaries: Array<Mcp.ContentBlock> = []
  for (const image of images) {
    contentItems.push({
      type: "image",
      mimeType: image.mimeType,
      data: image.data,
      ...(image.uri === undefined ? {} : { uri: image.uri })
    })
    summaries.push({
      type: "imageSummary",
      mimeType: image.mimeType,
      size: image.size,
      sha256: image.sha256,
      ...(image.uri === undefined ? {} : { uri: image.uri })
    })
  }
  const result: Mcp.CallToolResult = {
    content: [{ type: "text", text: output }, ...summaries],
    ...(extra.structuredContent === undefined ? {} : { structuredContent: extra.structuredContent as never }),
    isError
  }
  return {
    status: isError ? "failed" : "completed",
    result,
    error: null,
    output,
    success: !isError,
    contentItems
  }
}

/** Renders a read result (extended): the whole text when it fits, else the window asked for (or the first). */
const extendedRead = (
  budget: Budget,
  server: string,
  uri: string,
  result: Mcp.ReadResourceResult,
  args: WindowArguments = {},
  render: RenderOptions = {}
): Either.Either<Rendered, string> => {
  const strings = render.redact ?? []
  const hide = (text: string): string => (strings.length === 0 ? text : ToolHooks.redact(text, strings).text)
  const parts: Array<Part> = []
  for (let i = 0; i < result.contents.length; i++) {
    const part = contentsPart(result.contents[i]!, budget)
    if (Either.isLeft(part)) return Either.left(`invalid resources/read result at contents.${i}.blob: ${part.left}`)
    const value = part.right
    // redaction strings come from the text a hook saw, with its controls escaped: they are cut from that
    parts.push(
      value._tag === "text" && strings.length > 0
        ? { ...textPart({}, hide(escapeControls(value.text))), decoded: value.decoded }
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
  const outputBytes = budgetBytes(budget.truncation)
  const asked = args.offset !== undefined || args.length !== undefined
  const offset = args.offset ?? 0
  if (offset > total) return Either.left(messages.offsetPastEnd(offset, total))
  const length = Math.min(args.length ?? Number.POSITIVE_INFINITY, windowCap(outputBytes))
  const count = result.contents.length
  const header = hide(
    `[resource ${escapeControls(uri)} of MCP server ${escapeControls(server)}: ${count} ${count === 1 ? "content" : "contents"}, ${total} bytes of text]`
  )

  const renderWindow = (window: Window.Window | undefined): Rendered => {
    const lines: Array<string> = [header]
    const images: Array<ImagePart & { uri?: string }> = []
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
        lines.push(`${name}${describe(part, budget, images.length)}]`)
      } else {
        lines.push(`${name}${describe(part, budget)}]`)
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
  if (!asked && total <= outputBytes) {
    const whole = renderWindow(undefined)
    if (byteLength(whole.text) <= outputBytes) return Either.right(whole)
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

const str = (u: unknown): string | undefined => (typeof u === "string" ? u : undefined)

/** Renders an MCP tool result (extended): each content block as lines, images as image parts. */
export const renderToolResult = (
  budget: Budget,
  server: string,
  result: Mcp.CallToolResult
): Either.Either<Rendered, string> => {
  const lines: Array<string> = []
  const images: Array<ImagePart & { uri?: string }> = []
  let texts = 0
  const blob = (
    owner: object,
    data: unknown,
    mimeType: string | undefined,
    path: string,
    name: string,
    uri: string | undefined
  ): string | undefined => {
    const part = blobPart(owner, typeof data === "string" ? data : "-", mimeType, budget)
    if (Either.isLeft(part)) return messages.invalidToolBlob(path)
    const value = part.right
    if (value._tag === "text") {
      texts++
      lines.push(`[${name}: text decoded from a blob, ${value.bytes().length} bytes]`, escapeControls(value.text))
    } else if (value._tag === "image") {
      images.push(uri === undefined ? value : { ...value, uri })
      lines.push(`[${name}: ${describe(value, budget, images.length)}]`)
    } else {
      lines.push(`[${name}: ${describe(value, budget)}]`)
    }
    return undefined
  }
  for (let i = 0; i < result.content.length; i++) {
    const block = result.content[i]! as Record<string, unknown> & { readonly type: string }
    const mimeType = str(block.mimeType)
    let refused: string | undefined
    switch (block.type) {
      case "text":
        texts++
        lines.push(escapeControls(str(block.text) ?? ""))
        break
      case "image":
      case "audio":
        refused = blob(block, block.data, mimeType, `content.${i}.data`, `content[${i}] ${block.type}`, undefined)
        break
      case "resource": {
        const resource = isRecord(block.resource) ? block.resource : {}
        const uri = str(resource.uri) ?? ""
        const type = str(resource.mimeType)
        const name = `content[${i}] embedded resource ${label(uri, type)}`
        if (typeof resource.text === "string") {
          texts++
          lines.push(`[${name}: text, ${byteLength(resource.text)} bytes]`, escapeControls(resource.text))
        } else {
          refused = blob(resource, resource.blob, type, `content.${i}.resource.blob`, name, uri)
        }
        break
      }
      case "resource_link": {
        const uri = str(block.uri) ?? ""
        const facts = [
          str(block.name) === undefined ? undefined : `name ${escapeControls(JSON.stringify(block.name))}`,
          mimeType === undefined ? undefined : escapeControls(mimeType),
          typeof block.size === "number" ? `${block.size} bytes` : undefined
        ].filter((f) => f !== undefined)
        const call = escapeControlsJson(JSON.stringify({ server, uri }))
        lines.push(
          `[content[${i}] resource link ${escapeControls(uri)}${facts.length === 0 ? "" : ` (${facts.join(", ")})`}: not read yet; read it with read_mcp_resource ${call}]`
        )
        break
      }
      default:
        lines.push(`[content[${i}] of type ${escapeControls(JSON.stringify(block.type))}: not shown]`)
    }
    if (refused !== undefined) return Either.left(refused)
  }
  if (texts === 0 && result.structuredContent !== undefined) {
    lines.push(`structuredContent: ${escapeControlsJson(JSON.stringify(result.structuredContent))}`)
  }
  return Either.right({ text: Truncation.truncateOutput(lines.join("\n"), budget.truncation), images })
}

/** A failure message of the extended profile: bidi controls escaped. */
const extendedFailure = (message: string): Lifecycle.Outcome => Lifecycle.failure(escapeControls(message))

const extendedToolResult = (budget: Budget, server: string, result: Mcp.CallToolResult): Lifecycle.Outcome => {
  const rendered = renderToolResult(budget, server, result)
  if (Either.isLeft(rendered)) return Lifecycle.failure(rendered.left)
  return renderedOutcome(rendered.right.text, rendered.right.images, result.isError === true, {
    ...(result.structuredContent === undefined ? {} : { structuredContent: result.structuredContent })
  })
}

/** A template entry with `variables` (the names its expressions use) after its `uriTemplate`. */
const withVariables = (entry: unknown): unknown => {
  if (!isRecord(entry) || typeof entry.uriTemplate !== "string") return entry
  const out: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(entry)) {
    Records.setOwn(out, key, value)
    if (key === "uriTemplate") out.variables = Templates.variablesOf(value as string)
  }
  return out
}

const marked = (entry: unknown, budget: number): unknown =>
  isRecord(entry) && typeof entry.size === "number" && entry.size > budget ? { ...entry, large: true } : entry

/** What an aggregate `list_mcp_resources` holds: its resources and the servers that listed them. */
export interface AggregateCount {
  readonly total: number
  readonly servers: number
}

/**
 * The output of a list tool in the extended profile: the codex payload with `"large": true` on every
 * resource whose listed `size` is over the output budget, template variables, bidi controls escaped.
 * An aggregate resource list over the budget is cut shorter and ends with a line that counts the
 * resources and points to `search_mcp_resources`.
 */
const listOutput = (budget: Budget, pieces: ReadonlyArray<string>, aggregate?: AggregateCount): string => {
  const json = pieces.join("")
  let text = json
  if (json.includes(`"size":`)) {
    const payload = JSON.parse(json) as Record<string, unknown>
    if (Array.isArray(payload.resources)) {
      const bytes = budgetBytes(budget.truncation)
      text = JSON.stringify({ ...payload, resources: payload.resources.map((entry) => marked(entry, bytes)) })
    }
  }
  if (json.includes(`"resourceTemplates":[{`)) {
    const payload = JSON.parse(json) as Record<string, unknown>
    if (Array.isArray(payload.resourceTemplates)) {
      text = JSON.stringify({ ...payload, resourceTemplates: payload.resourceTemplates.map(withVariables) })
    }
  }
  const escaped = escapeControlsJson(text)
  if (aggregate !== undefined) {
    const bytes = budgetBytes(budget.truncation)
    if (byteLength(escaped) > bytes) return overflowed(escaped, bytes, budget.truncation, aggregate)
  }
  return Truncation.truncateOutput(escaped, budget.truncation)
}

/** The list cut to the budget less its last line, then that line (the count and the search tool). */
const overflowed = (
  text: string,
  budget: number,
  policy: ProtocolTruncation.TruncationPolicy,
  aggregate: AggregateCount
): string => {
  const note = messages.aggregateOverflow(aggregate.total, aggregate.servers)
  const room = Math.max(0, budget - byteLength(note) - 1)
  const effective = ProtocolTruncation.effective(policy)
  const cut = Truncation.truncateText(
    text,
    effective.mode === "bytes" ? { mode: "bytes", limit: room } : { mode: "tokens", limit: Math.floor(room / 4) }
  )
  return `${cut}\n${note}`
}

/**
 * The extended profile: parts as lines with bidi controls escaped, a read's text in windows under
 * the budget, images as image parts (content items), other binary described, large resources marked
 * in lists.
 */
export const extended: Pipeline = {
  read: extendedRead,
  outcome: (rendered, isError) => renderedOutcome(rendered.text, rendered.images, isError),
  toolResult: extendedToolResult,
  list: (budget, pieces, aggregate) => textOutcome(listOutput(budget, pieces, aggregate)),
  failure: extendedFailure
}
