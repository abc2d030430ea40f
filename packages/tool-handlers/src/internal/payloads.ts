/** JSON text of the resource tools' success payloads (resource-tools.md section 8). */
import { Mcp, ToolPayload } from "@mcp-resources/protocol"
import type { ResourceClient } from "@mcp-resources/resource-client"
import { compareBytewise } from "../McpToolNames.js"

const byServer = <A extends { readonly server: string }>(entries: ReadonlyArray<A>): Array<A> =>
  [...entries].sort((a, b) => compareBytewise(a.server, b.server))

// the list payloads are built in their schemas' key order (ToolPayload's entry builders), so their
// JSON text is the text of encoding through those schemas, without the schema machinery

/** `{"server":…,"resources":[…],"nextCursor"?:…}` */
export const singleServerResources = (server: string, page: Mcp.ListResourcesResult): string =>
  JSON.stringify(ToolPayload.singleServerResources(server, page))

/** `{"server":…,"resourceTemplates":[…],"nextCursor"?:…}` */
export const singleServerResourceTemplates = (server: string, page: Mcp.ListResourceTemplatesResult): string =>
  JSON.stringify(ToolPayload.singleServerResourceTemplates(server, page))

const flatten = <A, E>(result: ResourceClient.AggregateResult<A>, entry: (server: string, item: A) => E): Array<E> => {
  const out: Array<E> = []
  for (const { server, items } of byServer(result.servers)) for (const item of items) out.push(entry(server, item))
  return out
}

const failedServers = (result: ResourceClient.AggregateResult<unknown>) =>
  result.failures.length === 0
    ? {}
    : { failedServers: byServer(result.failures).map(({ server, error }) => ({ server, error })) }

/** `{"resources":[…],"failedServers"?:[…]}`: servers in bytewise order, each keeping its own order. */
export const aggregateResources = (result: ResourceClient.AggregateResult<Mcp.Resource>): string =>
  JSON.stringify({ resources: flatten(result, ToolPayload.resourceEntry), ...failedServers(result) })

/** `{"resourceTemplates":[…],"failedServers"?:[…]}` */
export const aggregateResourceTemplates = (result: ResourceClient.AggregateResult<Mcp.ResourceTemplate>): string =>
  JSON.stringify({ resourceTemplates: flatten(result, ToolPayload.resourceTemplateEntry), ...failedServers(result) })

/** A text or blob value at least this long is kept as a piece of its own when JSON would not escape it. */
const pieceMinLength = 512

/**
 * A code unit JSON would (maybe) escape: anything but the safe ones, so a control character, a quote,
 * a backslash or a surrogate.
 */
const escaped = /[^\u0020\u0021\u0023-\u005b\u005d-\ud7ff\ue000-\uffff]/

/** True when JSON would escape something in `s` (one native regex scan, code unit by code unit). */
const needsEscaping = (s: string): boolean => escaped.test(s)

const json = (value: unknown): string => JSON.stringify(value)

/**
 * The read payload `{"server":…,"uri":…}` followed by the read result's kept fields, as JSON text in
 * pieces whose concatenation is the payload's JSON (the key order of `ToolPayload.ReadPayload`, the
 * same text as encoding through that schema). A long text or blob that needs no escaping is a piece
 * of its own, shared with the result rather than copied into one large string.
 */
export const readPieces = (server: string, uri: string, result: Mcp.ReadResourceResult): Array<string> => {
  const pieces: Array<string> = []
  let current = `{"server":${json(server)},"uri":${json(uri)}`
  if (result.resultType !== undefined) current += `,"resultType":${json(result.resultType)}`
  if (result.ttlMs !== undefined) current += `,"ttlMs":${json(result.ttlMs)}`
  if (result.cacheScope !== undefined) current += `,"cacheScope":${json(result.cacheScope)}`
  current += `,"contents":[`
  result.contents.forEach((item, index) => {
    if (index > 0) current += ","
    current += `{"uri":${json(item.uri)}`
    if (item.mimeType !== undefined) current += `,"mimeType":${json(item.mimeType)}`
    const isText = Mcp.isTextContents(item)
    const value = isText ? item.text : item.blob
    current += isText ? `,"text":` : `,"blob":`
    // base64 needs no escaping, and the native check is quicker on a long blob than the escape scan
    if (
      value.length >= pieceMinLength &&
      (isText ? !needsEscaping(value) : Mcp.isBase64(value) || !needsEscaping(value))
    ) {
      pieces.push(`${current}"`, value)
      current = `"`
    } else {
      current += json(value)
    }
    if (item._meta !== undefined) current += `,"_meta":${json(item._meta)}`
    current += "}"
  })
  current += "]"
  if (result._meta !== undefined) current += `,"_meta":${json(result._meta)}`
  pieces.push(`${current}}`)
  return pieces
}

/** `{"server":…,"uri":…}` followed by the read result's kept fields. */
export const read = (server: string, uri: string, result: Mcp.ReadResourceResult): string =>
  readPieces(server, uri, result).join("")
