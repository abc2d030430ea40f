/**
 * The protocol's fast paths, all of them: the fast encoders of the hottest results. Each gives exactly
 * its schema's encoding where it answers, and undefined otherwise, for the schema to encode or refuse
 * (`test/FastPaths.test.ts` holds it to that, key order included); each names the BENCHMARKS.md row
 * that measured the gain. Where the bench shows no gain, the schema's encoder is used instead and the
 * fast path is removed from here. They are used through `Wire.encodeResult` only (`internal/wire/codecs.ts`).
 */
import { isJsonObject, isPlainObject } from "../Mcp.js"

/** A content item `{uri, mimeType?, text | blob, _meta?}` as the schema encodes it; undefined when the schema must decide. */
const contentItem = (item: unknown): Record<string, unknown> | undefined => {
  if (!isPlainObject(item) || !Object.hasOwn(item, "uri") || typeof item.uri !== "string") return undefined
  const hasText = Object.hasOwn(item, "text")
  // an item with both (or neither) is the union's business
  if (hasText === Object.hasOwn(item, "blob")) return undefined
  const body = hasText ? item.text : item.blob
  if (typeof body !== "string") return undefined
  const out: Record<string, unknown> = { uri: item.uri }
  if (Object.hasOwn(item, "mimeType")) {
    if (typeof item.mimeType !== "string") return undefined
    out.mimeType = item.mimeType
  }
  out[hasText ? "text" : "blob"] = body
  if (Object.hasOwn(item, "_meta")) {
    if (!isJsonObject(item._meta)) return undefined
    out._meta = item._meta
  }
  return out
}

/**
 * The encoded `mcp/resource/read` result, as encoding through `AppServer.McpResourceReadResult` gives
 * it (the known fields in the schema's order, `_meta` objects shared), without the schema machinery:
 * the app-server answers every read through it. Undefined for anything it does not recognise, which
 * the schema then encodes or refuses (naming the offending field). The plain version is
 * `Schema.encodeUnknownEither(AppServer.McpResourceReadResult)`.
 * BENCHMARKS.md, "Full run with the v2 baseline for throughput", "Read results are encoded by a
 * checked fast path" (row "4. app-server throughput vs raw v2 SDK client"; about 2.4% of the
 * app-server's CPU).
 */
export const encodeReadResult = (value: unknown): unknown => {
  if (!isPlainObject(value) || !Object.hasOwn(value, "contents") || !Object.hasOwn(value, "originCallId")) {
    return undefined
  }
  const { contents, originCallId } = value
  if (!Array.isArray(contents) || (originCallId !== null && typeof originCallId !== "string")) return undefined
  const encoded: Array<Record<string, unknown>> = []
  for (const item of contents) {
    const out = contentItem(item)
    if (out === undefined) return undefined
    encoded.push(out)
  }
  return { contents: encoded, originCallId }
}
