/**
 * Fast decoders of the common `resources/list` and `resources/templates/list` pages: exactly what
 * decoding through `Mcp.ListResourcesResult` and `Mcp.ListResourceTemplatesResult` gives (the known
 * fields, in the schema's order, nested values shared, arrays copied), without the schema machinery.
 * Anything they do not recognise is left to the schema, which also names the failing path of a mismatch.
 */
import type { Errors, Mcp } from "@mcp-resources/protocol"
import { Either } from "effect"
import { hasOwn, isJsonObject, isPlain, isString, type Mutable } from "./readResult.js"

/** The optional fields shared by a resource and a template, in the schema's order (after `mimeType`). */
const describedTail = (item: Readonly<Record<string, unknown>>, out: Record<string, unknown>): boolean => {
  if (hasOwn(item, "icons")) {
    const icons = item.icons
    if (!Array.isArray(icons)) return false
    out.icons = icons.slice()
  }
  if (hasOwn(item, "_meta")) {
    if (!isJsonObject(item._meta)) return false
    out._meta = item._meta
  }
  if (hasOwn(item, "annotations")) {
    if (!isJsonObject(item.annotations)) return false
    out.annotations = item.annotations
  }
  return true
}

/** `title`, `description` and `mimeType` when present, each a string; false on a mismatch. */
const texts = (item: Readonly<Record<string, unknown>>, out: Record<string, unknown>): boolean => {
  if (hasOwn(item, "title")) {
    if (!isString(item.title)) return false
    out.title = item.title
  }
  if (hasOwn(item, "description")) {
    if (!isString(item.description)) return false
    out.description = item.description
  }
  if (hasOwn(item, "mimeType")) {
    if (!isString(item.mimeType)) return false
    out.mimeType = item.mimeType
  }
  return true
}

const resource = (item: unknown): Mcp.Resource | undefined => {
  if (!isPlain(item) || !hasOwn(item, "uri") || !hasOwn(item, "name")) return undefined
  const { uri, name } = item
  if (!isString(uri) || !isString(name)) return undefined
  const out: Mutable<Mcp.Resource> = { uri, name }
  if (!texts(item, out)) return undefined
  if (hasOwn(item, "size")) {
    if (typeof item.size !== "number") return undefined
    out.size = item.size
  }
  return describedTail(item, out) ? out : undefined
}

const template = (item: unknown): Mcp.ResourceTemplate | undefined => {
  if (!isPlain(item) || !hasOwn(item, "uriTemplate") || !hasOwn(item, "name")) return undefined
  const { uriTemplate, name } = item
  if (!isString(uriTemplate) || !isString(name)) return undefined
  const out: Mutable<Mcp.ResourceTemplate> = { uriTemplate, name }
  return texts(item, out) && describedTail(item, out) ? out : undefined
}

/** The items of `key` decoded by `decodeItem`, with `nextCursor` when present; undefined when the schema must decide. */
const page = <A>(raw: unknown, key: string, decodeItem: (item: unknown) => A | undefined) => {
  if (!isPlain(raw) || !hasOwn(raw, key)) return undefined
  const items = raw[key]
  if (!Array.isArray(items)) return undefined
  const out: Array<A> = []
  for (let i = 0; i < items.length; i++) {
    const decoded = decodeItem(items[i])
    if (decoded === undefined) return undefined
    out.push(decoded)
  }
  if (!hasOwn(raw, "nextCursor")) return { items: out }
  const nextCursor = raw.nextCursor
  return isString(nextCursor) ? { items: out, nextCursor } : undefined
}

/** The decoded `resources/list` page, or undefined when the schema must decide (also for every mismatch). */
export const fastListResources = (raw: unknown): Mcp.ListResourcesResult | undefined => {
  const decoded = page(raw, "resources", resource)
  if (decoded === undefined) return undefined
  return decoded.nextCursor === undefined
    ? { resources: decoded.items }
    : { resources: decoded.items, nextCursor: decoded.nextCursor }
}

/** The decoded `resources/templates/list` page, or undefined when the schema must decide. */
export const fastListResourceTemplates = (raw: unknown): Mcp.ListResourceTemplatesResult | undefined => {
  const decoded = page(raw, "resourceTemplates", template)
  if (decoded === undefined) return undefined
  return decoded.nextCursor === undefined
    ? { resourceTemplates: decoded.items }
    : { resourceTemplates: decoded.items, nextCursor: decoded.nextCursor }
}

/**
 * `fast`, falling back to `slow` (the schema) for anything it leaves undecided; the decoded page comes
 * with the raw result beside it (its `ttlMs` and `cacheScope` decide caching).
 */
export const withFastList =
  <A>(
    fast: (raw: unknown) => A | undefined,
    slow: (raw: unknown) => Either.Either<A, Errors.TransportError>
  ): ((raw: unknown) => Either.Either<{ readonly value: A; readonly raw: unknown }, Errors.TransportError>) =>
  (raw) => {
    const decoded = fast(raw)
    if (decoded !== undefined) return Either.right({ value: decoded, raw })
    const result = slow(raw)
    return Either.isRight(result) ? Either.right({ value: result.right, raw }) : Either.left(result.left)
  }
