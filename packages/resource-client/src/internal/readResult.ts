/**
 * A fast decoder of the common `resources/read` result: exactly what decoding through
 * `Mcp.ReadResourceResult` gives (the same fields, in the schema's order, values shared), without
 * the schema machinery. Anything it does not recognise (a blob item, a wrong type, an unusual
 * object) is left to the schema, which also names the failing path of a mismatch.
 */
import { Errors, Mcp, Messages } from "@mcp-resources/protocol"
import { Either } from "effect"

/** A type with its fields writable (the fast decoders build their results field by field). */
export type Mutable<T> = { -readonly [K in keyof T]: T[K] }

/** An own property, also one named `__proto__`. */
export const hasOwn = (u: object, key: string): boolean => Object.hasOwn(u, key)

/** A plain object (of JSON or an object literal), not an array. */
export const isPlain = Mcp.isPlainObject

/** What `Mcp.JsonObject` accepts. */
export const isJsonObject = Mcp.isJsonObject

export const isString = (u: unknown): u is string => typeof u === "string"

/** A text item `{uri, mimeType?, text, _meta?}` in the schema's order, or undefined when the schema must decide. */
const textItem = (item: unknown): Mcp.TextResourceContents | undefined => {
  if (!isPlain(item) || !hasOwn(item, "uri") || !hasOwn(item, "text")) return undefined
  const { uri, text, mimeType, _meta: meta } = item
  if (!isString(uri) || !isString(text)) return undefined
  const out: { uri: string; mimeType?: string } = { uri }
  if (hasOwn(item, "mimeType")) {
    if (!isString(mimeType)) return undefined
    out.mimeType = mimeType
  }
  const withText: Mutable<Mcp.TextResourceContents> = Object.assign(out, { text })
  if (hasOwn(item, "_meta")) {
    if (!isJsonObject(meta)) return undefined
    withText._meta = meta
  }
  return withText
}

/** The decoded result, or undefined when the schema must decide (also for every mismatch). */
export const fastReadResult = (raw: unknown): Mcp.ReadResourceResult | undefined => {
  if (!isPlain(raw) || !hasOwn(raw, "contents")) return undefined
  const { resultType, ttlMs, cacheScope, contents: items, _meta: meta } = raw
  if (!Array.isArray(items)) return undefined
  // the schema's order: resultType, ttlMs, cacheScope, contents, _meta
  const out: { resultType?: string; ttlMs?: number; cacheScope?: string } = {}
  if (hasOwn(raw, "resultType")) {
    if (!isString(resultType)) return undefined
    out.resultType = resultType
  }
  if (hasOwn(raw, "ttlMs")) {
    if (typeof ttlMs !== "number" || !(ttlMs >= 0)) return undefined
    out.ttlMs = ttlMs
  }
  if (hasOwn(raw, "cacheScope")) {
    if (!isString(cacheScope)) return undefined
    out.cacheScope = cacheScope
  }
  const contents: Array<Mcp.ResourceContents> = []
  for (let i = 0; i < items.length; i++) {
    const item = textItem(items[i])
    if (item === undefined) return undefined
    contents.push(item)
  }
  const result: Mutable<Mcp.ReadResourceResult> = Object.assign(out, { contents })
  if (hasOwn(raw, "_meta")) {
    if (!isJsonObject(meta)) return undefined
    result._meta = meta
  }
  return result
}

/**
 * Refuses a result with a `blob` that is not base64: the answer breaks the MCP schema, and the bytes
 * would reach the model or the client as if they were valid.
 */
export const checkBlobs = (
  result: Mcp.ReadResourceResult
): Either.Either<Mcp.ReadResourceResult, Errors.TransportError> => {
  const contents = result.contents
  for (let i = 0; i < contents.length; i++) {
    const item = contents[i]!
    if ("blob" in item && !Mcp.isBase64(item.blob)) {
      return Either.left(
        new Errors.TransportError({
          kind: "invalidResult",
          message: `invalid resources/read result at contents.${i}.blob: ${Messages.invalidBlob}`
        })
      )
    }
  }
  return Either.right(result)
}

/** {@link fastReadResult}, falling back to `slow` (the schema, then the blob check) for anything else. */
export const withFastPath =
  (
    slow: (raw: unknown) => Either.Either<Mcp.ReadResourceResult, Errors.TransportError>
  ): ((raw: unknown) => Either.Either<Mcp.ReadResourceResult, Errors.TransportError>) =>
  (raw) => {
    const fast = fastReadResult(raw)
    if (fast !== undefined) return Either.right(fast)
    const decoded = slow(raw)
    return Either.isRight(decoded) ? checkBlobs(decoded.right) : decoded
  }
