/**
 * The `extended` tool profile: the three resource tools with windows over large text, one content
 * policy for reads and MCP tool results (images as image parts, text-like blobs as text, other binary
 * described, never base64), escaped bidi controls in names and URIs, and one not-found message. The
 * `codex` profile does not pass through here.
 */
import {
  Errors,
  Messages,
  type Mcp,
  Records,
  type ToolPayload,
  Truncation as ProtocolTruncation
} from "@mcp-resources/protocol"
import type { AppServer } from "@mcp-resources/protocol"
import { Config } from "@mcp-resources/protocol"
import { Effect, Either } from "effect"
import { isRecord } from "@mcp-resources/protocol/Records"
import * as Arguments from "./Arguments.js"
import * as ContentPolicy from "./ContentPolicy.js"
import type { LifecycleSink } from "./LifecycleSink.js"
import * as Lifecycle from "./internal/lifecycle.js"
import * as Rules from "./internal/rules.js"
import { escapeControls, escapeControlsJson, hasControls } from "./internal/extended/hygiene.js"
import * as Templates from "./internal/extended/templates.js"
import * as Window from "./internal/extended/window.js"
import * as ToolHooks from "./ToolHooks.js"
import * as ToolSpecs from "./ToolSpecs.js"
import * as Truncation from "./Truncation.js"
import type { ToolCall, ToolContext, ToolOutput } from "./ToolHandlers.js"

/** How long a read of the extended profile is kept for its next windows when the server gives no `ttlMs`. */
export const defaultWindowTtlMs = 60_000

/** Bytes of the budget kept for the headers and the note of a window. */
export const windowReserveBytes = 1024

/** The smallest window. */
export const minWindowBytes = 64

/** The model-facing messages of the extended profile. */
export const messages = {
  /** `offset` or `length` that is not an integer >= 0. */
  notByteCount: (field: "offset" | "length", value: unknown) =>
    `failed to parse function arguments: field "${field}" must be an integer >= 0, got ${
      typeof value === "number" ? String(value) : Messages.jsonKind(value)
    }`,
  /** An offset after the end of the text. */
  offsetPastEnd: (offset: number, total: number) =>
    `offset ${offset} is past the end: the text of this resource has ${total} bytes`,
  /** `-32002` (older servers) or `-32602` (2026-07-28) on `resources/read`. */
  resourceNotFound: (server: string, uri: string) =>
    `resources/read failed: MCP server '${escapeControls(server)}' has no resource '${escapeControls(uri)}'`,
  /** A blob or image `data` of a tool result that is not base64. */
  invalidToolBlob: (path: string) => `tools/call failed: invalid tools/call result at ${path}: ${Messages.invalidBlob}`,
  /** The note after a window that is not the last. */
  windowNote: (start: number, end: number, total: number) =>
    `[window: bytes ${start}-${end} of ${total}; to continue, call read_mcp_resource with offset ${end}]`,
  /** The note after the last window. */
  lastWindowNote: (start: number, end: number, total: number) =>
    `[window: bytes ${start}-${end} of ${total}; this is the end]`,
  /** `read_mcp_resource` with both `uri` and `uriTemplate`, or with neither. */
  uriOrTemplate: (both: boolean) =>
    `failed to parse function arguments: give exactly one of "uri" and "uriTemplate"${both ? ", not both" : ""}`,
  /** A field that must be an object of strings (`arguments`, `context`). */
  notStringObject: (field: string, value: unknown) =>
    `failed to parse function arguments: field "${field}" must be an object of strings, got ${Messages.jsonKind(value)}`,
  /** One value of such an object that is not a string. */
  notStringValue: (field: string, name: string, value: unknown) =>
    `failed to parse function arguments: field "${field}.${name}" must be a string, got ${Messages.jsonKind(value)}`,
  /** A template the server does not list. */
  templateNotListed: (server: string, uriTemplate: string) =>
    `MCP server '${escapeControls(server)}' lists no resource template '${escapeControls(uriTemplate)}'; list_mcp_resource_templates gives the templates it lists`,
  /** A variable of the template without a value. */
  missingVariable: (uriTemplate: string, name: string, variables: ReadonlyArray<string>) =>
    `resource template '${escapeControls(uriTemplate)}' needs a value for variable "${escapeControls(name)}"; its variables: ${variableList(variables)}`,
  /** A value for a variable the template does not have. */
  extraVariable: (uriTemplate: string, name: string, variables: ReadonlyArray<string>) =>
    `resource template '${escapeControls(uriTemplate)}' has no variable "${escapeControls(name)}"; its variables: ${variableList(variables)}`,
  /** `complete_mcp_resource_argument` on a server that did not declare `completions`. */
  noCompletions: (server: string) => `MCP server '${escapeControls(server)}' does not offer argument completion`,
  /** The outer context of a failed completion. */
  completeFailed: (chain: string) => `completion/complete failed: ${chain}`
} as const

const variableList = (variables: ReadonlyArray<string>): string =>
  variables.length === 0 ? "(none)" : variables.map((name) => escapeControls(name)).join(", ")

/** The JSON-RPC codes of "resource not found": `-32002` (older revisions) and `-32602` (2026-07-28). */
export const notFoundCodes: ReadonlyArray<number> = [-32002, -32602]

/** `list_mcp_resources` of the extended profile: marks large resources. */
export const listMcpResources: ToolPayload.ToolSpec = {
  ...ToolSpecs.listMcpResources,
  description: `${ToolSpecs.listMcpResources.description} A resource marked "large": true is bigger than one tool output; read_mcp_resource returns it in windows you can page through with offset.`
}

/** `list_mcp_resource_templates` of the extended profile (the codex spec). */
export const listMcpResourceTemplates: ToolPayload.ToolSpec = ToolSpecs.listMcpResourceTemplates

/** `read_mcp_resource` of the extended profile: `offset` and `length` in UTF-8 bytes. */
export const readMcpResource: ToolPayload.ToolSpec = {
  type: "function",
  name: "read_mcp_resource",
  description:
    "Read a specific resource from an MCP server given the server name and resource URI. Text larger than one tool output comes in windows: the output ends with a note giving the byte range shown, the total size and the offset to pass next; call again with that offset to read on until the note says it is the end. Images come as images; other binary content (PDF, audio, archives) is described by MIME type and size, its bytes are not sent.",
  strict: false,
  parameters: {
    type: "object",
    properties: {
      server: {
        type: "string",
        description:
          "MCP server name exactly as configured. Must match the 'server' field returned by list_mcp_resources."
      },
      uri: {
        type: "string",
        description:
          "Resource URI to read. Must be one of the URIs returned by list_mcp_resources. Give either uri or uriTemplate, not both."
      },
      uriTemplate: {
        type: "string",
        description:
          "Instead of uri: a resource template exactly as list_mcp_resource_templates returns it; the URI is built from it and arguments."
      },
      arguments: {
        type: "object",
        additionalProperties: { type: "string" },
        description:
          'With uriTemplate: a string value for every variable the template lists (its \'variables\'), e.g. {"id": "42"}. Values are given as they are; the encoding is applied for you.'
      },
      offset: {
        type: "integer",
        minimum: 0,
        description:
          "Where the window starts, in UTF-8 bytes of the resource's text (all text contents in order). Take it from the previous window's note; omit for the start."
      },
      length: {
        type: "integer",
        minimum: 0,
        description: "The most bytes of text to return; omit for as much as fits in one tool output."
      }
    },
    required: ["server"],
    additionalProperties: false
  }
}

/** `complete_mcp_resource_argument`: candidate values for one variable of a resource template. */
export const completeMcpResourceArgument: ToolPayload.ToolSpec = {
  type: "function",
  name: "complete_mcp_resource_argument",
  description:
    "Suggest values for one variable of an MCP resource template, from the server that lists it. Use it to find a value to pass in read_mcp_resource's arguments with that uriTemplate.",
  strict: false,
  parameters: {
    type: "object",
    properties: {
      server: {
        type: "string",
        description: "MCP server name exactly as configured, as returned by list_mcp_resource_templates."
      },
      uriTemplate: {
        type: "string",
        description: "The resource template exactly as list_mcp_resource_templates returns it."
      },
      argument: { type: "string", description: "The name of the variable to complete." },
      value: { type: "string", description: "What is known of the value so far (may be empty)." },
      context: {
        type: "object",
        additionalProperties: { type: "string" },
        description: "Values already chosen for the template's other variables."
      }
    },
    required: ["server", "uriTemplate", "argument", "value"],
    additionalProperties: false
  }
}

/** The three resource tools of the extended profile, in the order they are offered. */
export const resourceToolSpecs: ReadonlyArray<ToolPayload.ToolSpec> = [
  listMcpResources,
  listMcpResourceTemplates,
  readMcpResource
]

/** Read arguments with the window. */
export interface WindowArguments extends Arguments.ReadArguments {
  readonly offset?: number
  readonly length?: number
}

const byteCount = (
  raw: Arguments.JsonObject,
  field: "offset" | "length"
): Either.Either<number | undefined, Errors.ParameterError> => {
  const value = Object.hasOwn(raw, field) ? raw[field] : undefined
  if (value === undefined || value === null) return Either.right(undefined)
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 0) {
    return Either.left(new Errors.ParameterError({ message: messages.notByteCount(field, value) }))
  }
  return Either.right(value)
}

/** Arguments of the extended `read_mcp_resource`: the codex rules, then `offset` and `length`. */
export const parseReadArguments = (text: string): Either.Either<WindowArguments, Errors.ParameterError> =>
  Either.gen(function* () {
    const read = yield* Arguments.parseReadArguments(text)
    const offset = yield* byteCount(read.raw, "offset")
    const length = yield* byteCount(read.raw, "length")
    return {
      ...read,
      ...(offset === undefined ? {} : { offset }),
      ...(length === undefined ? {} : { length })
    }
  })

/** Arguments of the extended `read_mcp_resource` given a template: the server, the template, its values, the window. */
export interface TemplateReadArguments {
  readonly raw: Arguments.JsonObject
  readonly server: string
  readonly uriTemplate: string
  readonly values: Readonly<Record<string, string>>
  readonly offset?: number
  readonly length?: number
}

const parameterError = (message: string) => Either.left(new Errors.ParameterError({ message }))

const present = (raw: Arguments.JsonObject, field: string): boolean =>
  Object.hasOwn(raw, field) && raw[field] !== undefined && raw[field] !== null

/** A required string field, trimmed and non-blank (the blank message is `blank`). */
const requiredString = (
  raw: Arguments.JsonObject,
  field: string,
  blank: string | undefined
): Either.Either<string, Errors.ParameterError> => {
  if (!Object.hasOwn(raw, field)) return parameterError(Messages.args.missingField(field))
  const value = raw[field]
  if (typeof value !== "string") return parameterError(Messages.args.mustBeString(field, Messages.jsonKind(value)))
  if (blank === undefined) return Either.right(value)
  const trimmed = value.trim()
  return trimmed === "" ? parameterError(blank) : Either.right(trimmed)
}

/** An optional object of strings (`null` or absent: empty). */
export const stringObject = (
  raw: Arguments.JsonObject,
  field: string
): Either.Either<Readonly<Record<string, string>>, Errors.ParameterError> => {
  if (!present(raw, field)) return Either.right({})
  const value = raw[field]
  if (Messages.jsonKind(value) !== "object") return parameterError(messages.notStringObject(field, value))
  // no prototype: a variable named `__proto__` is a value like any other
  const values: Record<string, string> = Object.create(null) as Record<string, string>
  for (const [name, entry] of Object.entries(value as Record<string, unknown>)) {
    if (typeof entry !== "string") return parameterError(messages.notStringValue(field, name, entry))
    values[name] = entry
  }
  return Either.right(values)
}

/**
 * Arguments of the extended `read_mcp_resource`: exactly one of `uri` (the codex rules, then the
 * window) and `uriTemplate` (with `arguments`, an object of strings).
 */
export const parseReadTarget = (
  text: string
): Either.Either<
  ({ readonly _tag: "uri" } & WindowArguments) | ({ readonly _tag: "template" } & TemplateReadArguments),
  Errors.ParameterError
> =>
  Either.gen(function* () {
    const raw = (yield* Arguments.parseRaw(text)) ?? {}
    const hasUri = present(raw, "uri")
    const hasTemplate = present(raw, "uriTemplate")
    if (hasUri && hasTemplate) return yield* parameterError(messages.uriOrTemplate(true))
    if (!hasTemplate) {
      if (!hasUri && Object.hasOwn(raw, "server")) return yield* parameterError(messages.uriOrTemplate(false))
      const read = yield* parseReadArguments(text)
      return { _tag: "uri" as const, ...read }
    }
    const server = yield* requiredString(raw, "server", Messages.args.serverMustBeProvided)
    const uriTemplate = yield* requiredString(raw, "uriTemplate", messages.uriOrTemplate(false))
    const values = yield* stringObject(raw, "arguments")
    const offset = yield* byteCount(raw, "offset")
    const length = yield* byteCount(raw, "length")
    return {
      _tag: "template" as const,
      raw,
      server,
      uriTemplate,
      values,
      ...(offset === undefined ? {} : { offset }),
      ...(length === undefined ? {} : { length })
    }
  })

/** Arguments of `complete_mcp_resource_argument`. */
export interface CompleteArguments {
  readonly raw: Arguments.JsonObject
  readonly server: string
  readonly uriTemplate: string
  readonly argument: string
  readonly value: string
  readonly context: Readonly<Record<string, string>>
}

/** Parses the arguments of `complete_mcp_resource_argument`. */
export const parseCompleteArguments = (text: string): Either.Either<CompleteArguments, Errors.ParameterError> =>
  Either.gen(function* () {
    const raw = (yield* Arguments.parseRaw(text)) ?? {}
    const server = yield* requiredString(raw, "server", Messages.args.serverMustBeProvided)
    const uriTemplate = yield* requiredString(raw, "uriTemplate", `${Messages.args.missingField("uriTemplate")}`)
    const argument = yield* requiredString(raw, "argument", Messages.args.missingField("argument"))
    const value = yield* requiredString(raw, "value", undefined)
    const context = yield* stringObject(raw, "context")
    return { raw, server, uriTemplate, argument, value, context }
  })

/**
 * The listed template and its variables, or the model-facing message: the template must be one the
 * server lists (its cached full list).
 */
const listedTemplate = (
  set: ToolContext["set"],
  server: string,
  uriTemplate: string
): Effect.Effect<ReadonlyArray<string>, string> =>
  set.resourceTemplates(server).pipe(
    Effect.mapError((error) => Messages.toolFailure.templates(escapeControls(error.message))),
    Effect.flatMap((templates) =>
      templates.some((template) => template.uriTemplate === uriTemplate)
        ? Effect.succeed(Templates.variablesOf(uriTemplate))
        : Effect.fail(messages.templateNotListed(server, uriTemplate))
    )
  )

const mismatchMessage = (
  uriTemplate: string,
  variables: ReadonlyArray<string>,
  given: ReadonlyArray<string>
): string | undefined => {
  const found = Templates.mismatch(variables, given)
  if (found === undefined) return undefined
  return found._tag === "missing"
    ? messages.missingVariable(uriTemplate, found.name, variables)
    : messages.extraVariable(uriTemplate, found.name, variables)
}

/**
 * The URI of a listed template with the given values, expanded per RFC 6570; every variable needs a
 * value and every value a variable. Fails with the model-facing message.
 */
export const expandListed = (
  ctx: ToolContext,
  server: string,
  uriTemplate: string,
  values: Readonly<Record<string, string>>
): Effect.Effect<string, string> =>
  Effect.flatMap(listedTemplate(ctx.set, server, uriTemplate), (variables) => {
    const refused = mismatchMessage(uriTemplate, variables, Object.keys(values))
    return refused === undefined ? Effect.succeed(Templates.expand(uriTemplate, values)) : Effect.fail(refused)
  })

/** The variables a template names, in order (RFC 6570 expressions, modifiers dropped). */
export const templateVariables = (uriTemplate: string): ReadonlyArray<string> => Templates.variablesOf(uriTemplate)

/** The output budget in bytes: the effective truncation limit (tokens count 4 bytes). */
export const budgetBytes = (policy: ProtocolTruncation.TruncationPolicy): number => {
  const effective = ProtocolTruncation.effective(policy)
  return effective.mode === "bytes" ? effective.limit : effective.limit * 4
}

/** The largest window under a budget: the budget less {@link windowReserveBytes}, at least {@link minWindowBytes}. */
export const windowCap = (budget: number): number => Math.max(minWindowBytes, budget - windowReserveBytes)

const policyOptions = (ctx: ToolContext): ContentPolicy.Options => ({
  maxImageBytes: ctx.config.tools?.maxImageBytes ?? Config.toolsDefaults.maxImageBytes
})

/** What a rendering gives: the model's text, the images sent, the item's image summaries. */
interface Rendered {
  readonly text: string
  readonly images: ReadonlyArray<ContentPolicy.ImagePart & { readonly uri?: string }>
  /** True when the text is a window of a longer one. */
  readonly windowed?: boolean
}

/** How a read is rendered besides its window: strings to redact first, or the whole text whatever its size. */
export interface RenderOptions {
  /** Replaced by `[redacted]` in the text before the window is cut (so the window's bytes are those of the redacted text). */
  readonly redact?: ReadonlyArray<string>
  /** The whole text in one piece, without a window, whatever the budget. */
  readonly whole?: boolean
}

const label = (uri: string, mimeType: string | undefined): string =>
  mimeType === undefined ? escapeControls(uri) : `${escapeControls(uri)} (${escapeControls(mimeType)})`

/** The outcome of a rendering: output text, content items, and an item result without image bytes. */
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
    if (Truncation.byteLength(whole.text) <= budget) return Either.right(whole)
  }
  return Either.right(renderWindow(fittedWindow(segments, offset, length)))
}

/** The bytes escaping adds to a window's text (0 for text without bidi or control characters). */
const escapeGrowth = (window: Window.Window): number => {
  let extra = 0
  for (const piece of window.pieces) {
    if (hasControls(piece.text)) {
      extra += Truncation.byteLength(escapeControls(piece.text)) - Truncation.byteLength(piece.text)
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

/** `read_mcp_resource` of the extended profile: by `uri`, or by `uriTemplate` and `arguments`. */
export const callReadTool = (
  ctx: ToolContext,
  call: ToolCall,
  canAccess: (server: string) => boolean
): Effect.Effect<ToolOutput, never, LifecycleSink> => {
  const parsed = parseReadTarget(call.arguments)
  if (Either.isLeft(parsed)) return Effect.succeed({ output: parsed.left.message, success: false })
  const args = parsed.right
  const { server, raw } = args
  const invocation = { callId: call.callId, server, tool: call.name, arguments: raw }
  if (!canAccess(server)) {
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
    Effect.flatMap(expandListed(ctx, server, args.uriTemplate, args.values), read),
    (outcome) => outcome,
    failureOutcome
  )
}

/** `complete_mcp_resource_argument` of the extended profile: one `completion/complete` (`ref/resource`). */
export const callCompleteTool = (
  ctx: ToolContext,
  call: ToolCall,
  canAccess: (server: string) => boolean
): Effect.Effect<ToolOutput, never, LifecycleSink> => {
  const parsed = parseCompleteArguments(call.arguments)
  if (Either.isLeft(parsed)) return Effect.succeed({ output: parsed.left.message, success: false })
  const { server, uriTemplate, argument, value, context, raw } = parsed.right
  const invocation = { callId: call.callId, server, tool: call.name, arguments: raw }
  const operation: Effect.Effect<string, string> = Effect.suspend(() => {
    if (!canAccess(server)) return Effect.fail(Messages.serverDisabledByOrchestrator(server))
    return completeArgument(ctx.set, server, { uriTemplate, argument, value, context })
  })
  return Lifecycle.runWith(
    invocation,
    operation,
    (text) => {
      const output = Truncation.truncateOutput(escapeControlsJson(text), ctx.truncation)
      return {
        status: "completed",
        result: { content: [{ type: "text", text: output }], isError: false },
        error: null,
        output,
        success: true
      }
    },
    failureOutcome
  )
}

/** What {@link completeArgument} asks. */
export interface CompleteQuestion {
  readonly uriTemplate: string
  readonly argument: string
  readonly value: string
  readonly context: Readonly<Record<string, string>>
}

/** The answer of {@link completeArgument}: candidate values, their total when the server knows it, and whether more exist. */
export interface CompleteAnswer {
  readonly values: ReadonlyArray<string>
  readonly total?: number
  readonly hasMore: boolean
}

/**
 * One completion of a template variable on a connection set: the server must be ready and declare
 * `completions`, the template must be listed, `argument` and every `context` name must be among its
 * variables. Fails with the model-facing message; answers the JSON text `{"values","total"?,"hasMore"}`.
 */
export const completeArgument = (
  set: ToolContext["set"],
  server: string,
  question: CompleteQuestion
): Effect.Effect<string, string> =>
  Effect.mapBoth(completeValues(set, server, question), {
    onFailure: (failure) => failure.message,
    onSuccess: (answer) => JSON.stringify(answer)
  })

/** Why a completion gave no answer: refused before any request (`refused`), or a request failed (`failed`). */
export interface CompleteFailure {
  readonly reason: "refused" | "failed"
  readonly message: string
}

const refused = (message: string): CompleteFailure => ({ reason: "refused", message })

/** {@link completeArgument} with the answer as a value. */
export const completeValues = (
  set: ToolContext["set"],
  server: string,
  question: CompleteQuestion
): Effect.Effect<CompleteAnswer, CompleteFailure> =>
  Effect.gen(function* () {
    const status = yield* set.awaitSettled(server)
    if (status._tag === "Some" && status.value.status === "ready" && !set.supports(server, "completions")) {
      return yield* Effect.fail(refused(messages.noCompletions(server)))
    }
    const variables = yield* listedTemplate(set, server, question.uriTemplate).pipe(
      Effect.mapError(
        (message): CompleteFailure => ({
          reason: message.startsWith(Messages.toolFailure.templates("")) ? "failed" : "refused",
          message
        })
      )
    )
    const names = [question.argument, ...Object.keys(question.context).filter((name) => name !== question.argument)]
    const extra = names.find((name) => !variables.includes(name))
    if (extra !== undefined) {
      return yield* Effect.fail(refused(messages.extraVariable(question.uriTemplate, extra, variables)))
    }
    const completion = yield* set
      .complete(server, {
        uriTemplate: question.uriTemplate,
        argument: { name: question.argument, value: question.value },
        ...(Object.keys(question.context).length === 0 ? {} : { context: question.context })
      })
      .pipe(
        Effect.mapError(
          (error): CompleteFailure => ({
            reason: "failed",
            message: messages.completeFailed(escapeControls(error.message))
          })
        )
      )
    return {
      values: completion.values,
      ...(completion.total === undefined ? {} : { total: completion.total }),
      hasMore: completion.hasMore === true
    }
  })

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

/**
 * The output of a list tool in the extended profile: the codex payload with `"large": true` on every
 * resource whose listed `size` is over the output budget, and bidi controls escaped.
 */
export const listOutput = (ctx: ToolContext, pieces: ReadonlyArray<string>): string => {
  const json = pieces.join("")
  let text = json
  if (json.includes(`"size":`)) {
    const payload = JSON.parse(json) as Record<string, unknown>
    if (Array.isArray(payload.resources)) {
      const budget = budgetBytes(ctx.truncation)
      text = JSON.stringify({ ...payload, resources: payload.resources.map((entry) => marked(entry, budget)) })
    }
  }
  if (json.includes(`"resourceTemplates":[{`)) {
    const payload = JSON.parse(json) as Record<string, unknown>
    if (Array.isArray(payload.resourceTemplates)) {
      text = JSON.stringify({ ...payload, resourceTemplates: payload.resourceTemplates.map(withVariables) })
    }
  }
  return Truncation.truncateOutput(escapeControlsJson(text), ctx.truncation)
}

/** The outcome of a list tool in the extended profile. */
export const listOutcome = (ctx: ToolContext, pieces: ReadonlyArray<string>): Lifecycle.Outcome => {
  const output = listOutput(ctx, pieces)
  return {
    status: "completed",
    result: { content: [{ type: "text", text: output }], isError: false },
    error: null,
    output,
    success: true
  }
}

/** A failure message of the extended profile: bidi controls escaped. */
export const failureOutcome = (message: string): Lifecycle.Outcome => Lifecycle.failure(escapeControls(message))

const str = (u: unknown): string | undefined => (typeof u === "string" ? u : undefined)

/** Renders an MCP tool result through the content policy. */
export const renderToolResult = (
  ctx: ToolContext,
  server: string,
  result: Mcp.CallToolResult
): Either.Either<Rendered, string> => {
  const options = policyOptions(ctx)
  const lines: Array<string> = []
  const images: Array<ContentPolicy.ImagePart & { uri?: string }> = []
  let texts = 0
  const blob = (
    owner: object,
    data: unknown,
    mimeType: string | undefined,
    path: string,
    name: string,
    uri: string | undefined
  ): string | undefined => {
    const part = ContentPolicy.blobPart(owner, typeof data === "string" ? data : "-", mimeType, options)
    if (Either.isLeft(part)) return messages.invalidToolBlob(path)
    const value = part.right
    if (value._tag === "text") {
      texts++
      lines.push(`[${name}: text decoded from a blob, ${value.bytes().length} bytes]`, escapeControls(value.text))
    } else if (value._tag === "image") {
      images.push(uri === undefined ? value : { ...value, uri })
      lines.push(`[${name}: ${ContentPolicy.describe(value, options, images.length)}]`)
    } else {
      lines.push(`[${name}: ${ContentPolicy.describe(value, options)}]`)
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
          lines.push(`[${name}: text, ${Truncation.byteLength(resource.text)} bytes]`, escapeControls(resource.text))
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
  return Either.right({ text: Truncation.truncateOutput(lines.join("\n"), ctx.truncation), images })
}

/** The outcome of an MCP tool result in the extended profile. */
export const toolResultOutcome = (ctx: ToolContext, server: string, result: Mcp.CallToolResult): Lifecycle.Outcome => {
  const rendered = renderToolResult(ctx, server, result)
  if (Either.isLeft(rendered)) return Lifecycle.failure(rendered.left)
  return renderedOutcome(rendered.right.text, rendered.right.images, result.isError === true, {
    ...(result.structuredContent === undefined ? {} : { structuredContent: result.structuredContent })
  })
}
