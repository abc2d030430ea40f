/**
 * What a call of the model tools may see: the access gate of the resource tools ({@link canAccess},
 * resource-tools.md section 6) and the resource rules (lists leave out what is denied, reads of it are
 * refused). Every rule decision is `ResourcePolicy.access` (the one owner for every reader); this
 * module adds the call's audit trace and the hidden counts.
 */
import { type Mcp, ResourcePolicy } from "@mcp-resources/protocol"
import type { ResourceClient } from "@mcp-resources/resource-client"
import { Effect } from "effect"
import type { ToolContext } from "./context.js"

/** `canAccess(server)`: the access gate of the resource tools (section 6). */
export const canAccess = (ctx: ToolContext, server: string): boolean =>
  ctx.orchestratorMcpEnabled || server !== ctx.config.apps.serverName

/** What the policy path records of one call for the audit (a mutable trace, one per call). */
export interface Trace {
  readonly rules: Array<{
    readonly uri: string
    readonly allowed: boolean
    readonly pattern?: string
    readonly unjudgeable?: string
  }>
  hidden: number
  readonly listed: Array<string>
  serverRequest: boolean
}

/** A fresh trace. */
export const makeTrace = (): Trace => ({ rules: [], hidden: 0, listed: [], serverRequest: false })

/** The context of a call on the policy path: the tool context with its trace. */
export interface Traced extends ToolContext {
  readonly trace?: Trace
}

/** The trace of a call, when it runs on the policy path. */
export const traceOf = (ctx: ToolContext): Trace | undefined => (ctx as Traced).trace

/** Who reads in this call: the config and the thread's deny rules (ResourcePolicy's one question). */
export const principalOf = (ctx: ToolContext): ResourcePolicy.Principal => ({
  config: ctx.config,
  threadDeny: ctx.resourceDeny
})

/** What this call may see of one server (ResourcePolicy.access). */
export const accessFor = (ctx: ToolContext, server: string): ResourcePolicy.Access =>
  ResourcePolicy.access(principalOf(ctx), server)

/**
 * The refusal of a read of `uri` (denied, or a URI the rules cannot judge), recorded in the trace;
 * `undefined` when allowed.
 */
export const refusedRead = (ctx: ToolContext, server: string, uri: string): string | undefined => {
  const access = accessFor(ctx, server)
  if (access.rules === undefined) return undefined
  const decision = access.read(uri)
  traceOf(ctx)?.rules.push({
    uri,
    allowed: decision.allowed,
    ...(decision.rule === undefined ? {} : { pattern: decision.rule.pattern }),
    ...(decision.allowed || decision.unjudgeable === undefined ? {} : { unjudgeable: decision.unjudgeable })
  })
  return decision.allowed ? undefined : ResourcePolicy.refusal(uri, decision)
}

const filterItems = <A>(
  ctx: ToolContext,
  server: string,
  items: ReadonlyArray<A>,
  key: (item: A) => string,
  kind: ResourcePolicy.EntryKind
): { readonly items: ReadonlyArray<A>; readonly hidden: number } => {
  const access = accessFor(ctx, server)
  const trace = traceOf(ctx)
  if (access.rules === undefined) {
    if (trace !== undefined) for (const item of items) trace.listed.push(key(item))
    return { items, hidden: 0 }
  }
  const kept = items.filter((item) => access.listed(kind, key(item)))
  const hidden = items.length - kept.length
  if (trace !== undefined) {
    trace.hidden += hidden
    for (const item of kept) trace.listed.push(key(item))
  }
  return { items: kept, hidden }
}

/** A page of resources without the denied ones, and how many were hidden. */
export const filterResources = (ctx: ToolContext, server: string, page: Mcp.ListResourcesResult) => {
  const { items, hidden } = filterItems(ctx, server, page.resources, (r) => r.uri, "resource")
  return { page: hidden === 0 ? page : { ...page, resources: items }, hidden }
}

/** A page of templates without the denied ones, and how many were hidden. */
export const filterTemplates = (ctx: ToolContext, server: string, page: Mcp.ListResourceTemplatesResult) => {
  const { items, hidden } = filterItems(ctx, server, page.resourceTemplates, (t) => t.uriTemplate, "template")
  return { page: hidden === 0 ? page : { ...page, resourceTemplates: items }, hidden }
}

/** An aggregate result without the denied entries of each server, and how many were hidden. */
export const filterAggregate = <A>(
  ctx: ToolContext,
  result: ResourceClient.AggregateResult<A>,
  key: (item: A) => string,
  kind: ResourcePolicy.EntryKind
): { readonly result: ResourceClient.AggregateResult<A>; readonly hidden: number } => {
  let hidden = 0
  const servers = result.servers.map(({ server, items }) => {
    const filtered = filterItems(ctx, server, items, key, kind)
    hidden += filtered.hidden
    return filtered.hidden === 0 ? { server, items } : { server, items: filtered.items }
  })
  return { result: hidden === 0 ? result : { ...result, servers }, hidden }
}

/** True when this call has to look at rules at all (any rule for any server, or a thread deny). */
export const active = (ctx: ToolContext): boolean => ResourcePolicy.applies(principalOf(ctx))

/** `{…}` JSON text with `"hiddenByPolicy":n` as its last member (extended profile, n > 0). */
export const withHiddenCount = (json: string, hidden: number): string =>
  hidden === 0 ? json : `${json.slice(0, -1)},"hiddenByPolicy":${hidden}}`

/** Marks in the call's trace (policy path only) that a server request was made when `effect` runs. */
export const requested = <A, E, R>(ctx: ToolContext, effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> => {
  const trace = traceOf(ctx)
  return trace === undefined
    ? effect
    : Effect.zipRight(
        Effect.sync(() => {
          trace.serverRequest = true
        }),
        effect
      )
}
