/**
 * MCP resource and tool types as Effect Schemas. Decoding keeps exactly the fields of
 * resource-tools.md section 1.5, in that order, and drops any other field; nested values
 * (`icons`, `_meta`, `annotations`) pass through unchanged.
 */
import { Arbitrary, Either, Schema } from "effect"
import { opt } from "./internal/schema.js"
import { isRecord } from "./Records.js"

/** What {@link JsonObject} accepts: an object that is not an array (the fast decoders and encoders check with it too). */
export const isJsonObject: (u: unknown) => u is { readonly [x: string]: unknown } = isRecord

/** A plain object (of parsed JSON or an object literal), not an array: the shape the fast paths accept. */
export const isPlainObject = (u: unknown): u is Readonly<Record<string, unknown>> => {
  if (!isJsonObject(u)) return false
  const proto: unknown = Object.getPrototypeOf(u)
  return proto === Object.prototype || proto === null
}

/**
 * A JSON object passed through unchanged (the same object, every key kept). Declared rather than a
 * `Schema.Record`, which rebuilds the object and so loses an own `__proto__` key of parsed JSON.
 */
export const JsonObject: Schema.Schema<{ readonly [x: string]: unknown }> = Schema.declare(isJsonObject, {
  identifier: "JsonObject",
  description: "a JSON object",
  arbitrary: () => (fc) => fc.dictionary(fc.string(), fc.jsonValue()),
  jsonSchema: { type: "object" }
})
/** A JSON object whose values are passed through unchanged. */
export type JsonObject = typeof JsonObject.Type

/** A resource as listed by `resources/list`. */
export const Resource = Schema.Struct({
  uri: Schema.String,
  name: Schema.String,
  title: opt(Schema.String),
  description: opt(Schema.String),
  mimeType: opt(Schema.String),
  size: opt(Schema.Number),
  icons: opt(Schema.Array(Schema.Unknown)),
  _meta: opt(JsonObject),
  annotations: opt(JsonObject)
}).annotations({ identifier: "Resource" })
/** A resource as listed by `resources/list`. */
export type Resource = typeof Resource.Type

/** A resource template as listed by `resources/templates/list`. */
export const ResourceTemplate = Schema.Struct({
  uriTemplate: Schema.String,
  name: Schema.String,
  title: opt(Schema.String),
  description: opt(Schema.String),
  mimeType: opt(Schema.String),
  icons: opt(Schema.Array(Schema.Unknown)),
  _meta: opt(JsonObject),
  annotations: opt(JsonObject)
}).annotations({ identifier: "ResourceTemplate" })
/** A resource template as listed by `resources/templates/list`. */
export type ResourceTemplate = typeof ResourceTemplate.Type

/** A text content item of a read result. */
export const TextResourceContents = Schema.Struct({
  uri: Schema.String,
  mimeType: opt(Schema.String),
  text: Schema.String,
  _meta: opt(JsonObject)
}).annotations({ identifier: "TextResourceContents" })
/** A text content item of a read result. */
export type TextResourceContents = typeof TextResourceContents.Type

/** Below this length a character loop is quicker than a native decode. */
const base64LoopMaxLength = 256

/** True when every character of `s` before `end` is in the base64 alphabet (a loop, for short text). */
const base64Alphabet = (s: string, end: number): boolean => {
  for (let i = 0; i < end; i++) {
    const c = s.charCodeAt(i)
    const ok = (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || (c >= 48 && c <= 57) || c === 43 || c === 47
    if (!ok) return false
  }
  return true
}

/**
 * True when `s` is base64 (RFC 4648 section 4, the alphabet with `+` and `/`): padding `=` only at
 * the end and a length that a whole number of bytes gives; unpadded text is accepted too.
 *
 * Long text is checked by Node's native decoder, five times quicker than a loop over a 1 MiB blob:
 * it also decodes the URL-safe `-` and `_`, which are refused first, and skips (or stops at) every
 * other character, so that any such character makes the decoded length fall short of what the
 * length of `s` calls for.
 */
export const isBase64 = (s: string): boolean => {
  let end = s.length
  let padding = 0
  while (end > 0 && s.charCodeAt(end - 1) === 61 && padding < 2) {
    end -= 1
    padding += 1
  }
  if (padding > 0 ? s.length % 4 !== 0 : end % 4 === 1) return false
  // the loop also where Node's Buffer is missing (this module may be bundled for a browser)
  if (end < base64LoopMaxLength || typeof Buffer === "undefined") return base64Alphabet(s, end)
  if (s.includes("-") || s.includes("_")) return false
  return Buffer.from(s, "base64").length === Math.floor((end * 3) / 4)
}

/** A blob (base64) content item of a read result. */
export const BlobResourceContents = Schema.Struct({
  uri: Schema.String,
  mimeType: opt(Schema.String),
  blob: Schema.String,
  _meta: opt(JsonObject)
}).annotations({ identifier: "BlobResourceContents" })
/** A blob (base64) content item of a read result. */
export type BlobResourceContents = typeof BlobResourceContents.Type

/** A content item: an item with `text` is a text item. */
export const ResourceContents = Schema.Union(TextResourceContents, BlobResourceContents)
/** A content item: an item with `text` is a text item. */
export type ResourceContents = typeof ResourceContents.Type

/** True when the content item is a text item. */
export const isTextContents = (c: ResourceContents): c is TextResourceContents => "text" in c

/** One page of `resources/list`: the entries and `nextCursor`; the result's own `_meta` etc. are dropped. */
export const ListResourcesResult = Schema.Struct({
  resources: Schema.Array(Resource),
  nextCursor: opt(Schema.String)
}).annotations({ identifier: "ListResourcesResult" })
/** One page of `resources/list`. */
export type ListResourcesResult = typeof ListResourcesResult.Type

/** One page of `resources/templates/list`. */
export const ListResourceTemplatesResult = Schema.Struct({
  resourceTemplates: Schema.Array(ResourceTemplate),
  nextCursor: opt(Schema.String)
}).annotations({ identifier: "ListResourceTemplatesResult" })
/** One page of `resources/templates/list`. */
export type ListResourceTemplatesResult = typeof ListResourceTemplatesResult.Type

/** A `resources/read` result, with the newer fields the SDK 1.32 types do not have. */
export const ReadResourceResult = Schema.Struct({
  resultType: opt(Schema.String),
  ttlMs: opt(Schema.Number.pipe(Schema.nonNegative())),
  cacheScope: opt(Schema.String),
  contents: Schema.Array(ResourceContents),
  _meta: opt(JsonObject)
}).annotations({ identifier: "ReadResourceResult" })
/** A `resources/read` result. */
export type ReadResourceResult = typeof ReadResourceResult.Type

/** The `completion` of a `completion/complete` result: candidate values, their total and whether more exist. */
export const Completion = Schema.Struct({
  values: Schema.Array(Schema.String),
  total: opt(Schema.Number),
  hasMore: opt(Schema.Boolean)
}).annotations({ identifier: "Completion" })
/** The `completion` of a `completion/complete` result. */
export type Completion = typeof Completion.Type

/** A `completion/complete` result; the result's own `_meta` etc. are dropped. */
export const CompleteResult = Schema.Struct({
  completion: Completion
}).annotations({ identifier: "CompleteResult" })
/** A `completion/complete` result. */
export type CompleteResult = typeof CompleteResult.Type

/** A raw MCP tool as `tools/list` gives it. */
export const Tool = Schema.Struct({
  name: Schema.String,
  title: opt(Schema.String),
  description: opt(Schema.String),
  inputSchema: JsonObject,
  outputSchema: opt(JsonObject),
  annotations: opt(JsonObject),
  _meta: opt(JsonObject)
}).annotations({ identifier: "Tool" })
/** A raw MCP tool as `tools/list` gives it. */
export type Tool = typeof Tool.Type

/** One page of `tools/list`. */
export const ListToolsResult = Schema.Struct({
  tools: Schema.Array(Tool),
  nextCursor: opt(Schema.String)
}).annotations({ identifier: "ListToolsResult" })
/** One page of `tools/list`. */
export type ListToolsResult = typeof ListToolsResult.Type

/** A content block of a tool result; validated for `type`, otherwise passed through. */
export const ContentBlock = Schema.Struct({ type: Schema.String }, { key: Schema.String, value: Schema.Unknown })
/** A content block of a tool result. */
export type ContentBlock = typeof ContentBlock.Type

/**
 * A `tools/call` result. The schema validates; {@link decodeCallToolResult} returns the server's own
 * object so that unknown fields and the server's key order are kept (resource-tools.md 11.3).
 */
const CallToolResultShape = Schema.Struct(
  {
    content: Schema.Array(ContentBlock),
    structuredContent: opt(JsonObject),
    isError: opt(Schema.Boolean),
    _meta: opt(JsonObject)
  },
  { key: Schema.String, value: Schema.Unknown }
)
const isCallToolResultShape = Schema.is(CallToolResultShape)

/**
 * A `tools/call` result: validated against the MCP shape, then passed through as the server's own
 * object (a struct with an index signature would rebuild it and lose an own `__proto__` key).
 */
export const CallToolResult: Schema.Schema<typeof CallToolResultShape.Type> = Schema.declare(isCallToolResultShape, {
  identifier: "CallToolResult",
  description: "a tools/call result",
  arbitrary: () => Arbitrary.makeLazy(CallToolResultShape),
  // The JSON Schema of CallToolResultShape (a declaration has none of its own).
  jsonSchema: {
    type: "object",
    required: ["content"],
    properties: {
      content: {
        type: "array",
        items: { type: "object", required: ["type"], properties: { type: { type: "string" } } }
      },
      structuredContent: { type: "object" },
      isError: { type: "boolean" },
      _meta: { type: "object" }
    }
  }
})
/** A `tools/call` result. */
export type CallToolResult = typeof CallToolResult.Type

const validateCallToolResult = Schema.validateEither(CallToolResultShape)

/** Validates a raw `tools/call` result and returns the server's own object (unknown fields and key order kept). */
export const decodeCallToolResult = (raw: unknown) =>
  validateCallToolResult(raw).pipe(Either.map(() => raw as CallToolResult))
