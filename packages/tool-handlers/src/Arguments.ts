/**
 * Argument handling of the model tools (resource-tools.md section 5): raw text to a JSON object,
 * the list and read field rules, normalisation. Every failure is a model-facing ParameterError.
 */
import { AppServer, Errors, Messages } from "@mcp-resources/protocol"
import { Either } from "effect"

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
  const kind = Messages.jsonKind(value)
  if (kind !== "object") return fail(Messages.args.expectedObject(kind))
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

/** Arguments of `read_mcp_resource` (section 5.3): no arguments is treated like `{}`. */
export const parseReadArguments = (text: string): Either.Either<ReadArguments, Errors.ParameterError> => {
  // plain checks rather than Either steps: this runs on every read
  const parsed = parseRaw(text)
  if (Either.isLeft(parsed)) return Either.left(parsed.left)
  const raw = parsed.right ?? {}
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
