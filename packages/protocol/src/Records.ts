/**
 * Records that come from the wire (params, configs, MCP results, `_meta`, hook output) keep every key
 * as an own property. A key named `__proto__` is an ordinary key of parsed JSON (`JSON.parse` defines
 * it), but assigning it (`out[key] = value`, `Object.assign`) sets the target's prototype instead:
 * the key is lost and, when its value is an object, the record inherits that object's properties.
 * Effect's `Schema.Record` decodes by assignment, so this module has the record schema the protocol
 * uses instead, and the one helper that copies a key safely. `constructor` and `prototype` are plain
 * keys under assignment already; they are kept like any other.
 */
import { Arbitrary, Either, ParseResult, Schema, SchemaAST } from "effect"

/** Sets an own, enumerable data property, also for the key `__proto__` (which assignment would not create). */
export const setOwn = (target: Record<string, unknown>, key: string, value: unknown): void => {
  if (key === "__proto__") {
    Object.defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true })
  } else {
    target[key] = value
  }
}

/** An object whose keys can be read as a record (not an array, not null): the one such check of the project. */
export const isRecord = (u: unknown): u is Readonly<Record<string, unknown>> =>
  typeof u === "object" && u !== null && !Array.isArray(u)

/** Parses every value of a record with `parse`, building the result with own properties only. */
const parseEntries =
  (
    parse: (u: unknown, options?: SchemaAST.ParseOptions) => Either.Either<unknown, ParseResult.ParseIssue>,
    shape: SchemaAST.AST
  ) =>
  (input: unknown, options: SchemaAST.ParseOptions): Either.Either<Record<string, unknown>, ParseResult.ParseIssue> => {
    // Refused as `Schema.Record` refuses it, with the same message (`expected { readonly [x: string]: … }`).
    if (!isRecord(input)) return Either.left(new ParseResult.Type(shape, input))
    const out: Record<string, unknown> = {}
    const issues: Array<ParseResult.ParseIssue> = []
    for (const key of Object.keys(input)) {
      const parsed = parse(input[key], options)
      if (Either.isRight(parsed)) {
        setOwn(out, key, parsed.right)
        continue
      }
      const issue = new ParseResult.Pointer(key, input, parsed.left)
      if (options?.errors !== "all") return Either.left(new ParseResult.Composite(shape, input, issue, out))
      issues.push(issue)
    }
    const [first, ...rest] = issues
    return first === undefined
      ? Either.right(out)
      : Either.left(new ParseResult.Composite(shape, input, [first, ...rest], out))
  }

/**
 * `Schema.Record({ key: Schema.String, value })` whose decoded and encoded objects keep every key of
 * the input as an own property, `__proto__` included, in the input's order. Its JSON Schema,
 * arbitrary values (with the keys `__proto__`, `constructor` and `prototype` among them) and error
 * messages are those of `Schema.Record`. The values' schema must be synchronous and need no services.
 */
export const record = <V extends Schema.Schema.AnyNoContext>(
  value: V
): Schema.Schema<
  { readonly [x: string]: Schema.Schema.Type<V> },
  { readonly [x: string]: Schema.Schema.Encoded<V> }
> => {
  const shape = Schema.Record({ key: Schema.String, value })
  return Schema.declare(
    [value],
    {
      decode: (item) => parseEntries(ParseResult.decodeUnknownEither(item), shape.ast),
      encode: (item) => parseEntries(ParseResult.encodeUnknownEither(item), shape.ast)
    },
    {
      // JSON Schema, `keyof`, `pick` and the like see the record itself.
      [SchemaAST.SurrogateAnnotationId]: shape.ast,
      arbitrary: (item) => (fc) =>
        fc
          .array(fc.tuple(fc.oneof(fc.string(), fc.constantFrom("__proto__", "constructor", "prototype")), item(fc)), {
            maxLength: 4
          })
          .map((entries) => {
            const out: Record<string, unknown> = {}
            for (const [key, v] of entries) setOwn(out, key, v)
            return out
          })
    }
  ) as unknown as Schema.Schema<
    { readonly [x: string]: Schema.Schema.Type<V> },
    { readonly [x: string]: Schema.Schema.Encoded<V> }
  >
}

/**
 * A schema of objects with some known fields and any others (`Schema.Struct(fields, rest)` whose
 * types equal their encodings) that validates against `shape` and then hands on the input object
 * itself: every key stays as the peer sent it, `__proto__` included, in its order. JSON Schema,
 * arbitrary values and error messages (with the path of the bad field) are those of `shape`.
 */
export const passThrough = <A extends object>(shape: Schema.Schema<A, A>): Schema.Schema<A, A> => {
  const validate = ParseResult.validateEither(shape)
  const check = () => (input: unknown, options: SchemaAST.ParseOptions) =>
    Either.map(validate(input, options), () => input as A)
  return Schema.declare(
    [],
    { decode: check, encode: check },
    {
      [SchemaAST.SurrogateAnnotationId]: shape.ast,
      arbitrary: () => Arbitrary.makeLazy(shape)
    }
  ) as unknown as Schema.Schema<A, A>
}
