/**
 * Argument handling of the model tools (resource-tools.md section 5): raw text to a JSON object,
 * the list and read field rules (with the extended profile's window and template as options), the
 * completion tool's, normalisation. Every failure is a model-facing ParameterError.
 */
import { AppServer, Errors, Messages } from "@mcp-resources/protocol"
import { Either } from "effect"
import { messages } from "./internal/extended/messages.js"

/** A parsed JSON object, exactly as the model sent it. */
export type JsonObject = Readonly<Record<string, unknown>>

/** Normalised list arguments, with the parsed value kept for the lifecycle item. */
export interface ListArguments {
  /** The parsed JSON object as sent (not normalised), or `null` when there were no arguments. */
  readonly raw: JsonObject | null
  /** The trimmed server name; absent when missing, `null` or blank. */
  readonly server?: string
  /** The trimmed cursor; absent when missing, `null` or blank. */
  readonly cursor?: string
}

/** Normalised read arguments, with the parsed value kept for the lifecycle item. */
export interface ReadArguments {
  /** The parsed JSON object as sent (not normalised). */
  readonly raw: JsonObject
  /** The trimmed, non-blank server name. */
  readonly server: string
  /** The trimmed, non-blank resource URI. */
  readonly uri: string
}

const fail = (message: string) => Either.left(new Errors.ParameterError({ message }))

/**
 * Raw argument text to a JSON object (section 5.1): blank text or `null` is no arguments (`null`);
 * invalid JSON, non-object values and nesting deeper than {@link Messages.maxArgumentDepth} fail with
 * the exact messages.
 */
export const parseRaw = (text: string): Either.Either<JsonObject | null, Errors.ParameterError> => {
  if (text.trim() === "") return Either.right(null)
  let value: unknown
  // JSON.parse is strict JSON; the last occurrence of a duplicate key wins.
  try {
    value = JSON.parse(text)
  } catch {
    return fail(Messages.args.invalidJson)
  }
  if (value === null) return Either.right(null)
  // the JSON kind is named only in the refusal: an object is told apart without computing it
  if (typeof value !== "object" || Array.isArray(value))
    return fail(Messages.args.expectedObject(Messages.jsonKind(value)))
  // Arguments are stored and sent with recursive encoders (`JSON.stringify` among them): the depth is
  // checked first, iteratively. Nesting deeper than the limit takes at least two characters per level.
  if (
    text.length > 2 * Messages.maxArgumentDepth &&
    AppServer.tooDeep(value, Messages.maxArgumentDepth) !== undefined
  ) {
    return fail(Messages.args.tooDeep(Messages.maxArgumentDepth))
  }
  return Either.right(value as JsonObject)
}

const optionalString = (
  raw: JsonObject | null,
  name: string
): Either.Either<string | undefined, Errors.ParameterError> => {
  const value = raw !== null && Object.hasOwn(raw, name) ? raw[name] : undefined
  if (value === undefined || value === null) return Either.right(undefined)
  if (typeof value !== "string") return fail(Messages.args.mustBeString(name, Messages.jsonKind(value)))
  const trimmed = value.trim()
  return Either.right(trimmed === "" ? undefined : trimmed)
}

/** Arguments of `list_mcp_resources` and `list_mcp_resource_templates` (section 5.2). */
export const parseListArguments = (text: string): Either.Either<ListArguments, Errors.ParameterError> =>
  Either.gen(function* () {
    const raw = yield* parseRaw(text)
    const server = yield* optionalString(raw, "server")
    const cursor = yield* optionalString(raw, "cursor")
    return {
      raw,
      ...(server === undefined ? {} : { server }),
      ...(cursor === undefined ? {} : { cursor })
    }
  })

/** What `read_mcp_resource` accepts beside `server` and `uri` (the codex profile: neither). */
export interface ReadOptions {
  /** `offset` and `length`, in UTF-8 bytes (the extended profile's window). */
  readonly window?: boolean
  /** `uriTemplate` and `arguments` instead of `uri` (the extended profile). */
  readonly templates?: boolean
  /** `since`: answer with what changed since an earlier read (the extended profile). */
  readonly since?: boolean
}

/** The earlier read `since` names: the thread's last read of the same resource, or the read of a call. */
export type Since = { readonly _tag: "last" } | { readonly _tag: "call"; readonly callId: string }

/** The window of a read: where it starts and the most bytes it shows (and, with `since`, the earlier read to compare with). */
export interface Window {
  readonly offset?: number
  readonly length?: number
  readonly since?: Since
}

/** Read arguments with the window. */
export interface WindowArguments extends ReadArguments, Window {}

/** Read arguments given a template: the server, the template, its values, the window. */
export interface TemplateReadArguments extends Window {
  readonly raw: JsonObject
  readonly server: string
  readonly uriTemplate: string
  readonly values: Readonly<Record<string, string>>
}

/** What a read with templates reads: a URI, or a template with its values. */
export type ReadTarget =
  | ({ readonly _tag: "uri" } & WindowArguments)
  | ({ readonly _tag: "template" } & TemplateReadArguments)

const byteCount = (
  raw: JsonObject,
  field: "offset" | "length"
): Either.Either<number | undefined, Errors.ParameterError> => {
  const value = Object.hasOwn(raw, field) ? raw[field] : undefined
  if (value === undefined || value === null) return Either.right(undefined)
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 0) {
    return fail(messages.notByteCount(field, value))
  }
  return Either.right(value)
}

const windowOf = (raw: JsonObject): Either.Either<Window, Errors.ParameterError> => {
  const offset = byteCount(raw, "offset")
  if (Either.isLeft(offset)) return Either.left(offset.left)
  const length = byteCount(raw, "length")
  if (Either.isLeft(length)) return Either.left(length.left)
  return Either.right({
    ...(offset.right === undefined ? {} : { offset: offset.right }),
    ...(length.right === undefined ? {} : { length: length.right })
  })
}

const present = (raw: JsonObject, field: string): boolean =>
  Object.hasOwn(raw, field) && raw[field] !== undefined && raw[field] !== null

/** A required string field, trimmed and non-blank (the blank message is `blank`; none: kept as sent). */
const requiredString = (
  raw: JsonObject,
  field: string,
  blank: string | undefined
): Either.Either<string, Errors.ParameterError> => {
  if (!Object.hasOwn(raw, field)) return fail(Messages.args.missingField(field))
  const value = raw[field]
  if (typeof value !== "string") return fail(Messages.args.mustBeString(field, Messages.jsonKind(value)))
  if (blank === undefined) return Either.right(value)
  const trimmed = value.trim()
  return trimmed === "" ? fail(blank) : Either.right(trimmed)
}

/** An optional object of strings (`null` or absent: empty). */
export const stringObject = (
  raw: JsonObject,
  field: string
): Either.Either<Readonly<Record<string, string>>, Errors.ParameterError> => {
  if (!present(raw, field)) return Either.right({})
  const value = raw[field]
  if (Messages.jsonKind(value) !== "object") return fail(messages.notStringObject(field, value))
  // no prototype: a variable named `__proto__` is a value like any other
  const values: Record<string, string> = Object.create(null) as Record<string, string>
  for (const [name, entry] of Object.entries(value as Record<string, unknown>)) {
    if (typeof entry !== "string") return fail(messages.notStringValue(field, name, entry))
    values[name] = entry
  }
  return Either.right(values)
}

/** The codex rules of `server` and `uri` (section 5.3) on a parsed object. */
const uriArguments = (raw: JsonObject): Either.Either<ReadArguments, Errors.ParameterError> => {
  // plain checks rather than Either steps: this runs on every read
  // Both fields are type-checked before either is normalised.
  if (!Object.hasOwn(raw, "server")) return fail(Messages.args.missingField("server"))
  const server = raw.server
  if (typeof server !== "string") return fail(Messages.args.mustBeString("server", Messages.jsonKind(server)))
  if (!Object.hasOwn(raw, "uri")) return fail(Messages.args.missingField("uri"))
  const uri = raw.uri
  if (typeof uri !== "string") return fail(Messages.args.mustBeString("uri", Messages.jsonKind(uri)))
  const normalisedServer = server.trim()
  if (normalisedServer === "") return fail(Messages.args.serverMustBeProvided)
  const normalisedUri = uri.trim()
  if (normalisedUri === "") return fail(Messages.args.uriMustBeProvided)
  return Either.right({ raw, server: normalisedServer, uri: normalisedUri })
}

const windowed = (raw: JsonObject, read: ReadArguments): Either.Either<WindowArguments, Errors.ParameterError> =>
  Either.map(windowOf(raw), (window) => ({ ...read, ...window }))

const templateArguments = (raw: JsonObject, window: boolean): Either.Either<ReadTarget, Errors.ParameterError> =>
  Either.gen(function* () {
    const server = yield* requiredString(raw, "server", Messages.args.serverMustBeProvided)
    const uriTemplate = yield* requiredString(raw, "uriTemplate", messages.uriOrTemplate(false))
    const values = yield* stringObject(raw, "arguments")
    const range = window ? yield* windowOf(raw) : {}
    return { _tag: "template" as const, raw, server, uriTemplate, values, ...range }
  })

/** `since`: absent or `null` is none; `"last"`; or `{"callId": "..."}` with a non-blank call id (trimmed). */
export const sinceOf = (raw: JsonObject): Either.Either<Since | undefined, Errors.ParameterError> => {
  if (!present(raw, "since")) return Either.right(undefined)
  const value = raw.since
  if (typeof value === "string")
    return value.trim() === "last" ? Either.right({ _tag: "last" }) : fail(messages.notSince(value))
  if (Messages.jsonKind(value) === "object") {
    const callId = Object.hasOwn(value as object, "callId") ? (value as JsonObject).callId : undefined
    if (typeof callId === "string" && callId.trim() !== "") return Either.right({ _tag: "call", callId: callId.trim() })
  }
  return fail(messages.notSince(value))
}

const withSince = <A extends Window>(
  parsed: Either.Either<A, Errors.ParameterError>,
  raw: JsonObject
): Either.Either<A, Errors.ParameterError> => {
  if (Either.isLeft(parsed)) return parsed
  const since = sinceOf(raw)
  if (Either.isLeft(since)) return Either.left(since.left)
  return since.right === undefined ? parsed : Either.right({ ...parsed.right, since: since.right })
}

/**
 * Arguments of `read_mcp_resource` (section 5.3): no arguments is treated like `{}`. The codex
 * profile's read takes `server` and `uri`; `window` adds `offset` and `length`; `templates` takes
 * exactly one of `uri` and `uriTemplate` (with `arguments`, an object of strings) and tags the target.
 */
export function parseReadArguments(text: string): Either.Either<ReadArguments, Errors.ParameterError>
export function parseReadArguments(
  text: string,
  options: ReadOptions & { readonly templates: true }
): Either.Either<ReadTarget, Errors.ParameterError>
export function parseReadArguments(
  text: string,
  options: ReadOptions & { readonly window: true }
): Either.Either<WindowArguments, Errors.ParameterError>
export function parseReadArguments(
  text: string,
  options?: ReadOptions
): Either.Either<WindowArguments | ReadTarget, Errors.ParameterError>
export function parseReadArguments(
  text: string,
  options: ReadOptions = {}
): Either.Either<WindowArguments | ReadTarget, Errors.ParameterError> {
  const parsed = parseRaw(text)
  if (Either.isLeft(parsed)) return Either.left(parsed.left)
  const raw = parsed.right ?? {}
  const target = readTarget(raw, options)
  return options.since === true ? withSince(target, raw) : target
}

const readTarget = (
  raw: JsonObject,
  options: ReadOptions
): Either.Either<WindowArguments | ReadTarget, Errors.ParameterError> => {
  if (options.templates === true) {
    const hasUri = present(raw, "uri")
    const hasTemplate = present(raw, "uriTemplate")
    if (hasUri && hasTemplate) return fail(messages.uriOrTemplate(true))
    if (hasTemplate) return templateArguments(raw, options.window === true)
    if (!hasUri && Object.hasOwn(raw, "server")) return fail(messages.uriOrTemplate(false))
  }
  const read = uriArguments(raw)
  if (Either.isLeft(read) || options.window !== true) {
    return options.templates === true ? Either.map(read, (args) => ({ _tag: "uri" as const, ...args })) : read
  }
  const withWindow = windowed(raw, read.right)
  return options.templates === true ? Either.map(withWindow, (args) => ({ _tag: "uri" as const, ...args })) : withWindow
}

/** Arguments of `complete_mcp_resource_argument`. */
export interface CompleteArguments {
  readonly raw: JsonObject
  readonly server: string
  readonly uriTemplate: string
  readonly argument: string
  readonly value: string
  readonly context: Readonly<Record<string, string>>
}

/** Parses the arguments of `complete_mcp_resource_argument`. */
export const parseCompleteArguments = (text: string): Either.Either<CompleteArguments, Errors.ParameterError> =>
  Either.gen(function* () {
    const raw = (yield* parseRaw(text)) ?? {}
    const server = yield* requiredString(raw, "server", Messages.args.serverMustBeProvided)
    const uriTemplate = yield* requiredString(raw, "uriTemplate", `${Messages.args.missingField("uriTemplate")}`)
    const argument = yield* requiredString(raw, "argument", Messages.args.missingField("argument"))
    const value = yield* requiredString(raw, "value", undefined)
    const context = yield* stringObject(raw, "context")
    return { raw, server, uriTemplate, argument, value, context }
  })

/** The most matches `search_mcp_resources` returns (and its default). */
export const searchLimits = { default: 10, max: 50 } as const

/** Arguments of `search_mcp_resources`. */
export interface SearchArguments {
  /** The parsed JSON object as sent (not normalised). */
  readonly raw: JsonObject
  /** The query as sent, not blank. */
  readonly query: string
  /** The trimmed server name; absent when missing, `null` or blank. */
  readonly server?: string
  /** The trimmed MIME type; absent when missing, `null` or blank. */
  readonly mimeType?: string
  /** 1 to {@link searchLimits}`.max`, {@link searchLimits}`.default` when absent or `null`. */
  readonly limit: number
}

/** The refusals of `search_mcp_resources`' arguments (also the `ResourceSearch` service's). */
export const searchMessages = {
  queryMustBeProvided: "query must be provided",
  limitOutOfRange: `limit must be a whole number from 1 to ${searchLimits.max}`
} as const

/** Parses the arguments of `search_mcp_resources`: `query` required and not blank, `limit` 1 to 50. */
export const parseSearchArguments = (text: string): Either.Either<SearchArguments, Errors.ParameterError> =>
  Either.gen(function* () {
    const raw = (yield* parseRaw(text)) ?? {}
    const query = yield* requiredString(raw, "query", undefined)
    if (query.trim() === "") return yield* fail(searchMessages.queryMustBeProvided)
    const server = yield* optionalString(raw, "server")
    const mimeType = yield* optionalString(raw, "mimeType")
    const limit = present(raw, "limit") ? raw.limit : searchLimits.default
    if (typeof limit !== "number" || !Number.isInteger(limit) || limit < 1 || limit > searchLimits.max) {
      return yield* fail(searchMessages.limitOutOfRange)
    }
    return {
      raw,
      query,
      ...(server === undefined ? {} : { server }),
      ...(mimeType === undefined ? {} : { mimeType }),
      limit
    }
  })
