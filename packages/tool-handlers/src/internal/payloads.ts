/** JSON text of the resource tools' success payloads (resource-tools.md section 8). */
import type { Mcp } from "@mcp-resources/protocol"
import { ToolPayload } from "@mcp-resources/protocol"
import type { ResourceClient } from "@mcp-resources/resource-client"
import { compareBytewise } from "../McpToolNames.js"

const byServer = <A extends { readonly server: string }>(entries: ReadonlyArray<A>): Array<A> =>
  [...entries].sort((a, b) => compareBytewise(a.server, b.server))

/** `{"server":…,"resources":[…],"nextCursor"?:…}` */
export const singleServerResources = (server: string, page: Mcp.ListResourcesResult): string =>
  ToolPayload.toJsonText(ToolPayload.SingleServerResources, ToolPayload.singleServerResources(server, page))

/** `{"server":…,"resourceTemplates":[…],"nextCursor"?:…}` */
export const singleServerResourceTemplates = (server: string, page: Mcp.ListResourceTemplatesResult): string =>
  ToolPayload.toJsonText(
    ToolPayload.SingleServerResourceTemplates,
    ToolPayload.singleServerResourceTemplates(server, page)
  )

const flatten = <A>(result: ResourceClient.AggregateResult<A>): Array<{ readonly server: string } & A> =>
  byServer(result.servers).flatMap(({ server, items }) => items.map((item) => ({ server, ...item })))

const failedServers = (result: ResourceClient.AggregateResult<unknown>) =>
  result.failures.length === 0
    ? {}
    : { failedServers: byServer(result.failures).map(({ server, error }) => ({ server, error })) }

/** `{"resources":[…],"failedServers"?:[…]}`: servers in bytewise order, each keeping its own order. */
export const aggregateResources = (result: ResourceClient.AggregateResult<Mcp.Resource>): string =>
  ToolPayload.toJsonText(ToolPayload.AggregateResources, { resources: flatten(result), ...failedServers(result) })

/** `{"resourceTemplates":[…],"failedServers"?:[…]}` */
export const aggregateResourceTemplates = (result: ResourceClient.AggregateResult<Mcp.ResourceTemplate>): string =>
  ToolPayload.toJsonText(ToolPayload.AggregateResourceTemplates, {
    resourceTemplates: flatten(result),
    ...failedServers(result)
  })

/** `{"server":…,"uri":…}` followed by the read result's kept fields. */
export const read = (server: string, uri: string, result: Mcp.ReadResourceResult): string =>
  ToolPayload.toJsonText(ToolPayload.ReadPayload, ToolPayload.readPayload(server, uri, result))
