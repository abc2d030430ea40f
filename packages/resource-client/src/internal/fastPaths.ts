/**
 * The resource client's fast paths, all of them: each does exactly what the plain version named in its
 * comment does, in fewer runtime steps or without the schema machinery, and names the BENCHMARKS.md
 * row that measured the gain. Property tests hold each to its plain version: `test/FastPaths.test.ts`
 * (the hold), `test/ReadResult.test.ts` and `test/ListResult.test.ts` (the result decoders). Where the
 * bench shows no gain, the plain version is used instead and the fast path is removed from here.
 */
import { Mcp } from "@mcp-resources/protocol"
import { type Cause, Effect } from "effect"
import type { Hold } from "./hold.js"

/**
 * `Effect.zipRight(rest, Effect.failCause(cause))`, without the step when `rest` is `Effect.void`
 * (a hold released with nothing left to do, which is every release but a set's last).
 * BENCHMARKS.md, "Reading the results", second round, "Fewer runtime steps per request" (scenario 1,
 * tool overhead 1 KiB; scenario 4, app-server reads, 64 in flight).
 */
export const failCauseAfter = <E>(rest: Effect.Effect<void>, cause: Cause.Cause<E>): Effect.Effect<never, E> =>
  rest === Effect.void ? Effect.failCause(cause) : Effect.zipRight(rest, Effect.failCause(cause))

/**
 * `Effect.as(rest, value)`, without the step when `rest` is `Effect.void`.
 * BENCHMARKS.md: the row of {@link failCauseAfter}.
 */
export const succeedAfter = <A>(rest: Effect.Effect<void>, value: A): Effect.Effect<A> =>
  rest === Effect.void ? Effect.succeed(value) : Effect.as(rest, value)

/**
 * `use(state)` while `hold` (when given) is held: `state = open()`, then the hold is taken, `use` runs
 * interruptibly, and on every exit the hold is released uninterruptibly, after `abandon(state)` when
 * `use` failed or was interrupted. The plain version is
 * `Effect.acquireUseRelease(Effect.sync(open + acquire), use, (state, exit) => abandon on failure, then release)`;
 * this is one mask and one match, with the release's step skipped when it has nothing left to do
 * ({@link failCauseAfter}, {@link succeedAfter}). A request on a set holds the set in the request's own
 * mask and match through it (`request.ts`), and every other operation of a set (`connectionSet.ts`).
 * A release that dies replaces the body's failure here, where the plain version keeps both (a
 * `Hold`'s release never fails).
 * BENCHMARKS.md, "Reading the results", second round, "Fewer runtime steps per request": "a read on a
 * ready server holds its connection set inside the request's own mask and match" (scenario 1, tool
 * overhead 1 KiB, read_mcp_resource; scenario 4, app-server reads, 64 in flight).
 */
export const heldWith = <S, A, E>(
  hold: Hold | undefined,
  open: () => S,
  use: (state: S) => Effect.Effect<A, E>,
  abandon: (state: S) => void
): Effect.Effect<A, E> =>
  Effect.uninterruptibleMask((restore) => {
    const state = open()
    hold?.acquire()
    return Effect.matchCauseEffect(restore(use(state)), {
      // interrupted (a timeout, the caller) or failed: abandon the state; a settled request is left alone
      onFailure: (cause) => {
        abandon(state)
        return failCauseAfter(hold === undefined ? Effect.void : hold.release(), cause)
      },
      onSuccess: (value) => succeedAfter(hold === undefined ? Effect.void : hold.release(), value)
    })
  })

// The fast decoders of the commonest MCP results: each gives exactly what decoding through its schema
// gives, or undefined for the schema to decide (`test/ReadResult.test.ts`, `test/ListResult.test.ts`).

/** A type with its fields writable (the fast decoders build their results field by field). */
type Mutable<T> = { -readonly [K in keyof T]: T[K] }

/** An own property, also one named `__proto__`. */
const hasOwn = (u: object, key: string): boolean => Object.hasOwn(u, key)

/** A plain object (of JSON or an object literal), not an array. */
const isPlain = Mcp.isPlainObject

/** What `Mcp.JsonObject` accepts. */
const isJsonObject = Mcp.isJsonObject

const isString = (u: unknown): u is string => typeof u === "string"

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

/**
 * The decoded `resources/read` result, exactly what decoding through `Mcp.ReadResourceResult` gives
 * (the same fields, in the schema's order, values shared), or undefined when the schema must decide
 * (a blob item, a wrong type, an unusual object; also every mismatch, which the schema then names).
 * The plain version is `Schema.decodeUnknownEither(Mcp.ReadResourceResult)`.
 * BENCHMARKS.md, "Reading the results", first round, "Read path (1, 3)": "results decode synchronously,
 * with a checked fast path for plain text results" (rows "1. tool overhead 1 KiB" and "3. large payload").
 */
export const readResult = (raw: unknown): Mcp.ReadResourceResult | undefined => {
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

/**
 * The decoded `resources/list` page, exactly what decoding through `Mcp.ListResourcesResult` gives (the
 * known fields, in the schema's order, nested values shared, arrays copied), or undefined when the
 * schema must decide (also for every mismatch). The plain version is
 * `Schema.decodeUnknownEither(Mcp.ListResourcesResult)`.
 * BENCHMARKS.md, "Full run with the v2 baseline for throughput", row "10. listing: ours / fastest
 * complete side" (the first full run with it; an earlier list decoder, in "Full run after loading the
 * SDK at the first connection", was not faster in a profile: this one is to be measured on its own).
 */
export const resourcesPage = (raw: unknown): Mcp.ListResourcesResult | undefined => {
  const decoded = page(raw, "resources", resource)
  if (decoded === undefined) return undefined
  return decoded.nextCursor === undefined
    ? { resources: decoded.items }
    : { resources: decoded.items, nextCursor: decoded.nextCursor }
}

/**
 * The decoded `resources/templates/list` page, as {@link resourcesPage} (plain version:
 * `Schema.decodeUnknownEither(Mcp.ListResourceTemplatesResult)`). BENCHMARKS.md: the row of {@link resourcesPage}.
 */
export const templatesPage = (raw: unknown): Mcp.ListResourceTemplatesResult | undefined => {
  const decoded = page(raw, "resourceTemplates", template)
  if (decoded === undefined) return undefined
  return decoded.nextCursor === undefined
    ? { resourceTemplates: decoded.items }
    : { resourceTemplates: decoded.items, nextCursor: decoded.nextCursor }
}
