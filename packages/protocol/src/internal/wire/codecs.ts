/**
 * The compiled codecs of the wire. A codec set ({@link makeCodecs}) compiles one decoder or encoder
 * per schema on first use and keeps it for its owner's lifetime: the server holds one set (strict),
 * each typed client its own (preserve). No codec is kept at module level; Effect memoizes the parser
 * of a schema's AST itself, so a set costs one closure per schema.
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

const optionsOf = (excess: Excess) =>
  excess === "strict"
    ? { errors: "first" as const }
    : { errors: "first" as const, onExcessProperty: "preserve" as const }

/** Compiles the decoder of `schema` (not kept: a {@link Codecs} set keeps what it compiles). */
export const compileDecoder = (schema: Schema.Schema.Any, excess: Excess = "strict"): Codec =>
  Schema.decodeUnknownEither(schema as Schema.Schema<unknown, unknown>, optionsOf(excess))

/** Compiles the encoder of `schema` (not kept: a {@link Codecs} set keeps what it compiles). */
export const compileEncoder = (schema: Schema.Schema.Any, excess: Excess = "strict"): Codec =>
  Schema.encodeUnknownEither(schema as Schema.Schema<unknown, unknown>, optionsOf(excess))

/** The fast encoders of the hottest results (`internal/fastPaths.ts`), by result schema (exactly their schemas' encodings where they answer). */
const fastEncoders: ReadonlyMap<object, (value: unknown) => unknown> = new Map([
  [results["mcp/resource/read"], encodeReadResult]
])

/** Params decoded through `decode`, after the depth guard (absent params count as `{}`); the failure is the detail of `Invalid request: {detail}`. */
const decodeGuarded = <A>(decode: Codec, params: unknown): Either.Either<A, string> => {
  const deep = tooDeep(params)
  if (deep !== undefined) {
    return Either.left(`${deep.slice(0, 3).join(".")}: nested deeper than ${maxParamsDepth} levels`)
  }
  const decoded = decode(params === undefined ? {} : params)
  return Either.isRight(decoded) ? (decoded as Either.Either<A, never>) : Either.left(formatParamsError(decoded.left))
}

/**
 * One owner's compiled codecs, all in one excess mode: each schema's decoder and encoder compiled on
 * first use and kept while the set lives (a server holds one for all its connections, a client one).
 */
export interface Codecs {
  /** How this set treats excess fields. */
  readonly excess: Excess
  /** The compiled decoder of `schema` (compiled on first use, then the same function). */
  readonly decoder: (schema: Schema.Schema.Any) => Codec
  /** The compiled encoder of `schema` (compiled on first use, then the same function). */
  readonly encoder: (schema: Schema.Schema.Any) => Codec
  /** Decodes a method's params (absent params count as `{}`); the left side is the detail for `Invalid request: {detail}`. */
  readonly decodeParams: <M extends Method>(method: M, params: unknown) => Either.Either<Params<M>, string>
  /** Decodes params with a schema after the depth guard; the left side is the detail for `Invalid request: {detail}`. */
  readonly decodeWith: <A, I>(schema: Schema.Schema<A, I>, params: unknown) => Either.Either<A, string>
  /**
   * Encodes a method's result through its result schema, the one place results are checked before
   * they are sent: the encoded value has the schema's fields, in the schema's order. A result of
   * another shape is a bug of its handler; the left side is the `-32603` message naming the method
   * and the first offending field, never a malformed answer.
   */
  readonly encodeResult: (method: string, schema: Schema.Schema.Any, value: unknown) => Either.Either<unknown, string>
}

/** A new codec set (`strict` for a server, `preserve` for a client); it owns what it compiles. */
export const makeCodecs = (excess: Excess = "strict"): Codecs => {
  const decoders = new WeakMap<object, Codec>()
  const encoders = new WeakMap<object, Codec>()
  const decoder = (schema: Schema.Schema.Any): Codec => {
    let codec = decoders.get(schema)
    if (codec === undefined) {
      codec = compileDecoder(schema, excess)
      decoders.set(schema, codec)
    }
    return codec
  }
  const encoder = (schema: Schema.Schema.Any): Codec => {
    let codec = encoders.get(schema)
    if (codec === undefined) {
      codec = compileEncoder(schema, excess)
      encoders.set(schema, codec)
    }
    return codec
  }
  const decodeWith = <A, I>(schema: Schema.Schema<A, I>, params: unknown): Either.Either<A, string> =>
    decodeGuarded<A>(decoder(schema), params)
  return {
    excess,
    decoder,
    encoder,
    decodeWith,
    decodeParams: <M extends Method>(method: M, params: unknown) =>
      decodeWith(methods[method] as unknown as Schema.Schema<Params<M>, unknown>, params),
    encodeResult: (method, schema, value) => {
      const fast = fastEncoders.get(schema)?.(value)
      if (fast !== undefined) return Either.right(fast)
      return Either.mapLeft(encoder(schema)(value), (error) => messages.invalidResult(method, formatParamsError(error)))
    }
  }
}

/**
 * Decodes a method's params once, with a freshly compiled decoder (for a test or a one-off check; a
 * server decodes through its {@link Codecs}). The left side is the detail for `Invalid request: {detail}`.
 */
export const decodeParams = <M extends Method>(method: M, params: unknown): Either.Either<Params<M>, string> =>
  decodeWith(methods[method] as unknown as Schema.Schema<Params<M>, unknown>, params)

/** Decodes params once with a schema (absent params count as `{}`), after the depth guard; see {@link decodeParams}. */
export const decodeWith = <A, I>(schema: Schema.Schema<A, I>, params: unknown): Either.Either<A, string> =>
  decodeGuarded<A>(compileDecoder(schema), params)

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
