/**
 * The compiled codecs of the wire: one decoder or encoder per schema and mode, compiled once, here.
 * The server decodes params and encodes results strictly; a client keeps the fields a newer peer adds.
 * The depth guard comes first: params nested deeper than {@link maxParamsDepth} are refused before
 * any schema sees them.
 */
import { Either, type ParseResult, Schema } from "effect"
import { messages } from "../methods/jsonRpc.js"
import { methods, type Method, type Params, results } from "../methods/tables.js"
import { encodeReadResult } from "../fastPaths.js"
import { formatParamsError } from "./parseError.js"

/** A compiled codec: its failure is the first issue (`errors: "first"`). */
export type Codec = (u: unknown) => Either.Either<unknown, ParseResult.ParseError>

/**
 * How excess fields are treated: `strict` drops them from what is decoded or encoded (the server's
 * side: only the schema's fields, in the schema's order), `preserve` keeps them (a client of a newer
 * server, or a server of a newer client's answers).
 */
export type Excess = "strict" | "preserve"

const compiled = {
  decode: { strict: new WeakMap<object, Codec>(), preserve: new WeakMap<object, Codec>() },
  encode: { strict: new WeakMap<object, Codec>(), preserve: new WeakMap<object, Codec>() }
} as const

const compile = (direction: "decode" | "encode", schema: Schema.Schema.Any, excess: Excess): Codec => {
  const cache = compiled[direction][excess]
  let codec = cache.get(schema)
  if (codec === undefined) {
    const options =
      excess === "strict"
        ? { errors: "first" as const }
        : { errors: "first" as const, onExcessProperty: "preserve" as const }
    const s = schema as Schema.Schema<unknown, unknown>
    codec = direction === "decode" ? Schema.decodeUnknownEither(s, options) : Schema.encodeUnknownEither(s, options)
    cache.set(schema, codec)
  }
  return codec
}

/** The compiled decoder of `schema` (compiled on first use, then shared). */
export const decoder = (schema: Schema.Schema.Any, excess: Excess = "strict"): Codec =>
  compile("decode", schema, excess)

/** The compiled encoder of `schema` (compiled on first use, then shared). */
export const encoder = (schema: Schema.Schema.Any, excess: Excess = "strict"): Codec =>
  compile("encode", schema, excess)

/**
 * Decodes a method's params (an absent params object counts as `{}`); the left side is the detail for
 * `Invalid request: {detail}`.
 */
export const decodeParams = <M extends Method>(method: M, params: unknown): Either.Either<Params<M>, string> =>
  decodeWith(methods[method] as unknown as Schema.Schema<Params<M>, unknown>, params)

/** Decodes params with a schema (absent params count as `{}`); the failure is the detail of `Invalid request: {detail}`. */
export const decodeWith = <A, I>(schema: Schema.Schema<A, I>, params: unknown): Either.Either<A, string> => {
  const deep = tooDeep(params)
  if (deep !== undefined) {
    return Either.left(`${deep.slice(0, 3).join(".")}: nested deeper than ${maxParamsDepth} levels`)
  }
  const decoded = decoder(schema)(params === undefined ? {} : params)
  return Either.isRight(decoded) ? (decoded as Either.Either<A, never>) : Either.left(formatParamsError(decoded.left))
}

/** The fast encoders of the hottest results (`internal/fastPaths.ts`), by result schema (exactly their schemas' encodings where they answer). */
const fastEncoders = new Map<object, (value: unknown) => unknown>([[results["mcp/resource/read"], encodeReadResult]])

/**
 * Encodes a method's result through its result schema, the one place results are checked before they
 * are sent: the encoded value has the schema's fields, in the schema's order. A result of another
 * shape is a bug of its handler; the left side is the `-32603` message naming the method and the first
 * offending field, never a malformed answer.
 */
export const encodeResult = (
  method: string,
  schema: Schema.Schema.Any,
  value: unknown
): Either.Either<unknown, string> => {
  const fast = fastEncoders.get(schema)?.(value)
  if (fast !== undefined) return Either.right(fast)
  return Either.mapLeft(encoder(schema)(value), (error) => messages.invalidResult(method, formatParamsError(error)))
}

// ---------------------------------------------------------------------------------------------------
// The depth guard
// ---------------------------------------------------------------------------------------------------

/** How deep params may nest. No method's params come close; the bound keeps decoding off the stack limit. */
export const maxParamsDepth = 64

/**
 * The path of the first value nested deeper than `max` levels, or undefined. Iterative, so that any
 * depth JSON.parse accepted is measured without recursion.
 */
export const tooDeep = (value: unknown, max: number = maxParamsDepth): ReadonlyArray<string> | undefined => {
  if (typeof value !== "object" || value === null) return undefined
  // The common case, flat params (no nested object), is answered without walking paths.
  if (max > 0 && !hasNestedObject(value)) return undefined
  const stack: Array<{ value: unknown; path: ReadonlyArray<string> }> = [{ value, path: [] }]
  while (stack.length > 0) {
    const { value: v, path } = stack.pop()!
    if (typeof v !== "object" || v === null) continue
    if (path.length >= max) return path
    for (const [key, child] of Object.entries(v)) stack.push({ value: child, path: [...path, key] })
  }
  return undefined
}

/** Whether any of an object's own values is itself an object (or array). */
const hasNestedObject = (value: object): boolean => {
  if (Array.isArray(value)) {
    for (const child of value) if (typeof child === "object" && child !== null) return true
    return false
  }
  for (const key in value) {
    if (!Object.hasOwn(value, key)) continue
    const child = (value as Record<string, unknown>)[key]
    if (typeof child === "object" && child !== null) return true
  }
  return false
}
