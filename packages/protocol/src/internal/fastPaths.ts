/**
 * The protocol's fast paths, all of them: the fast encoders of the hottest results, and the builders
 * of the list payloads' entries. Each gives exactly its schema's encoding where it answers (an encoder
 * answers undefined otherwise, for the schema to encode or refuse); `test/FastPaths.test.ts` holds it
 * to that, key order included. Each names the BENCHMARKS.md row that measured the gain. Where the
 * bench shows no gain, the schema's encoder is used instead and the fast path is removed from here.
 * The encoders are used through a codec set's `encodeResult` only (`internal/wire/codecs.ts`), the entry
 * builders through `ToolPayload.resourceEntry` and `ToolPayload.resourceTemplateEntry`, the text
 * digest through `Digest.ofText`.
 */
import { createHash } from "node:crypto"
import { isJsonObject, isPlainObject, type JsonObject, type Resource, type ResourceTemplate } from "../Mcp.js"

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

type Mutable<T> = { -readonly [K in keyof T]: T[K] }

/** The optional text fields of a resource or a template, in the schema's order. */
const withTexts = (
  out: { title?: string; description?: string; mimeType?: string },
  item: { readonly title?: string; readonly description?: string; readonly mimeType?: string }
): void => {
  if (item.title !== undefined) out.title = item.title
  if (item.description !== undefined) out.description = item.description
  if (item.mimeType !== undefined) out.mimeType = item.mimeType
}

/** The optional nested fields of a resource or a template, in the schema's order. */
const withNested = (
  out: { icons?: ReadonlyArray<unknown>; _meta?: JsonObject; annotations?: JsonObject },
  item: {
    readonly icons?: ReadonlyArray<unknown>
    readonly _meta?: JsonObject
    readonly annotations?: JsonObject
  }
): void => {
  if (item.icons !== undefined) out.icons = item.icons
  if (item._meta !== undefined) out._meta = item._meta
  if (item.annotations !== undefined) out.annotations = item.annotations
}

/**
 * A resource entry of a list payload, `server` first, then the resource's fields, built in
 * `ToolPayload.ResourceEntry`'s key order without the schema machinery (list payloads can hold
 * thousands of entries); nested values are shared. The plain version is
 * `Schema.encodeSync(ToolPayload.ResourceEntry)({ server, ...resource })`, whose JSON text is the same.
 * BENCHMARKS.md, "Full run with the v2 baseline for throughput", row "10. listing: ours / fastest
 * complete side" (the first full run with it; "the tool's payload and truncation after the last page
 * take under a millisecond": the builder is to be measured on its own against the schema).
 */
export const resourceEntry = (server: string, resource: Resource): { readonly server: string } & Resource => {
  const out: Mutable<{ server: string } & Resource> = { server, uri: resource.uri, name: resource.name }
  withTexts(out, resource)
  if (resource.size !== undefined) out.size = resource.size
  withNested(out, resource)
  return out
}

/**
 * A template entry of a list payload, built in `ToolPayload.ResourceTemplateEntry`'s key order (as
 * {@link resourceEntry}). The plain version is
 * `Schema.encodeSync(ToolPayload.ResourceTemplateEntry)({ server, ...template })`.
 * BENCHMARKS.md: the row of {@link resourceEntry}.
 */
export const resourceTemplateEntry = (
  server: string,
  template: ResourceTemplate
): { readonly server: string } & ResourceTemplate => {
  const out: Mutable<{ server: string } & ResourceTemplate> = {
    server,
    uriTemplate: template.uriTemplate,
    name: template.name
  }
  withTexts(out, template)
  withNested(out, template)
  return out
}

const isHigh = (unit: number): boolean => unit >= 0xd800 && unit <= 0xdbff
const isLow = (unit: number): boolean => unit >= 0xdc00 && unit <= 0xdfff

/** UTF-16 units of a text hashed at a time by {@link sha256OfUtf8}. */
export const digestChunkUnits = 1 << 20

/**
 * The SHA-256 (lowercase hex) of `text`'s UTF-8 bytes, without ever building those bytes whole: the
 * text is hashed a megabyte of units at a time (at most 3 MiB of UTF-8 in hand), a surrogate pair
 * never split between two pieces (its halves alone would each encode as U+FFFD); a lone surrogate
 * encodes as U+FFFD either way. The plain version is
 * `createHash("sha256").update(Buffer.from(text, "utf8")).digest("hex")`.
 * BENCHMARKS.md, "Full run after the cluster round" ("Change detection digests a read without copying
 * it", scenario 3's rows): every read of a polled server is digested, and the whole-buffer version
 * made a 64 MiB read take a 64 MiB copy and about five times the hashing time.
 */
export const sha256OfUtf8 = (text: string, chunkUnits: number = digestChunkUnits): string => {
  const hash = createHash("sha256")
  if (text.length <= chunkUnits) return hash.update(text, "utf8").digest("hex")
  for (let start = 0; start < text.length; ) {
    let end = Math.min(start + chunkUnits, text.length)
    // a pair is never split: its high half goes into the next piece, or, when it is this piece's
    // only unit, its low half comes into this one
    if (end < text.length && isHigh(text.charCodeAt(end - 1)) && isLow(text.charCodeAt(end)))
      end += end - 1 > start ? -1 : 1
    hash.update(text.slice(start, end), "utf8")
    start = end
  }
  return hash.digest("hex")
}
