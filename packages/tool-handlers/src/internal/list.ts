/**
 * `list_mcp_resources` and `list_mcp_resource_templates` (resource-tools.md section 7): one page of
 * one server or every accessible server, with the resource rules; how the payload shows is the
 * profile's ({@link ListStyle}).
 */
import { Messages } from "@mcp-resources/protocol"
import type { ResourceClient } from "@mcp-resources/resource-client"
import { Effect, Either } from "effect"
import * as Arguments from "../Arguments.js"
import type * as Content from "../Content.js"
import * as OptionalTemplates from "../OptionalTemplates.js"
import type { RunTool, ToolContext } from "./context.js"
import * as Lifecycle from "./lifecycle.js"
import * as Payloads from "./payloads.js"
import * as Rules from "./rules.js"

/** What a list lists. */
export type ListKind = "resources" | "templates"

/** The item `server` of a list call without a server, unless the host sets another. */
export const defaultAggregateServerLabel = "codex"

/** How a profile's list tools answer. */
export interface ListStyle {
  /** The count of entries the rules hid, as `"hiddenByPolicy":n` in the payload. */
  readonly hiddenCount: boolean
  /** A server without the optional `resources/templates/list` method lists no templates (else: its failure). */
  readonly optionalTemplates: boolean
  /**
   * The outcome of the payload's pieces (one JSON text); for an aggregate `list_mcp_resources`, also
   * how many resources on how many servers it holds.
   */
  readonly outcome: (ctx: ToolContext, pieces: ReadonlyArray<string>, aggregate?: AggregateCount) => Lifecycle.Outcome
  /** The outcome of a failure message. */
  readonly failure: (message: string) => Lifecycle.Outcome
}

/** What an aggregate `list_mcp_resources` holds (its resources and the servers that listed them). */
export type AggregateCount = Content.AggregateCount

/** A list's payload pieces, and what an aggregate resource list holds. */
interface Listing {
  readonly pieces: ReadonlyArray<string>
  readonly aggregate?: AggregateCount
}

const countOf = (result: ResourceClient.AggregateResult<unknown>): AggregateCount => ({
  total: result.servers.reduce((sum, server) => sum + server.items.length, 0),
  servers: result.servers.length
})

const pieces = (list: ReadonlyArray<string>): Listing => ({ pieces: list })

const listOperation = (
  ctx: ToolContext,
  kind: ListKind,
  args: Arguments.ListArguments,
  style: ListStyle
): Effect.Effect<Listing, string> => {
  const { server, cursor } = args
  // without rules and without the policy path: exactly the plain operation
  const policed = Rules.traceOf(ctx) !== undefined || Rules.active(ctx)
  const hiddenCount = (json: string, hidden: number) => (style.hiddenCount ? Rules.withHiddenCount(json, hidden) : json)
  if (server === undefined) {
    if (cursor !== undefined) return Effect.fail(Messages.args.cursorWithoutServer)
    const include = (name: string) => Rules.canAccess(ctx, name)
    if (policed) {
      return Rules.requested(
        ctx,
        kind === "resources"
          ? Effect.map(ctx.set.listAllResources(include), (result) => {
              const filtered = Rules.filterAggregate(ctx, result, (r) => r.uri, "resource")
              return {
                pieces: [hiddenCount(Payloads.aggregateResources(filtered.result), filtered.hidden)],
                aggregate: countOf(filtered.result)
              }
            })
          : Effect.map(allTemplates(ctx, include, style), (result) => {
              const filtered = Rules.filterAggregate(ctx, result, (t) => t.uriTemplate, "template")
              return pieces([hiddenCount(Payloads.aggregateResourceTemplates(filtered.result), filtered.hidden)])
            })
      )
    }
    return kind === "resources"
      ? Effect.map(ctx.set.listAllResources(include), (result) => ({
          pieces: [Payloads.aggregateResources(result)],
          aggregate: countOf(result)
        }))
      : Effect.map(allTemplates(ctx, include, style), (result) => pieces([Payloads.aggregateResourceTemplates(result)]))
  }
  if (!Rules.canAccess(ctx, server)) return Effect.fail(Messages.serverDisabledByOrchestrator(server))
  if (kind === "resources") {
    const page = cursor === undefined ? ctx.set.listResources(server) : ctx.set.listResources(server, cursor)
    return Rules.requested(ctx, page).pipe(
      Effect.map((result) => {
        if (!policed) return pieces([Payloads.singleServerResources(server, result)])
        const filtered = Rules.filterResources(ctx, server, result)
        return pieces([hiddenCount(Payloads.singleServerResources(server, filtered.page), filtered.hidden)])
      }),
      Effect.mapError((error) => Messages.toolFailure.list(error.message))
    )
  }
  const requested =
    cursor === undefined ? ctx.set.listResourceTemplates(server) : ctx.set.listResourceTemplates(server, cursor)
  const page = style.optionalTemplates ? OptionalTemplates.emptyWhenUnimplemented(server, requested) : requested
  return Rules.requested(ctx, page).pipe(
    Effect.map((result) => {
      if (!policed) return pieces([Payloads.singleServerResourceTemplates(server, result)])
      const filtered = Rules.filterTemplates(ctx, server, result)
      return pieces([hiddenCount(Payloads.singleServerResourceTemplates(server, filtered.page), filtered.hidden)])
    }),
    Effect.mapError((error) => Messages.toolFailure.templates(error.message))
  )
}

/** Every server's templates; with optional templates a server without the method is no failure. */
const allTemplates = (ctx: ToolContext, include: (server: string) => boolean, style: ListStyle) =>
  style.optionalTemplates
    ? Effect.map(ctx.set.listAllResourceTemplates(include), OptionalTemplates.dropUnimplemented)
    : ctx.set.listAllResourceTemplates(include)

/** The list tool of `kind` in a profile's style. */
export const listTool =
  (kind: ListKind, style: ListStyle): RunTool =>
  (ctx, call) => {
    const parsed = Arguments.parseListArguments(call.arguments)
    if (Either.isLeft(parsed)) return Effect.succeed({ output: parsed.left.message, success: false })
    const args = parsed.right
    const server = args.server ?? ctx.aggregateServerLabel ?? defaultAggregateServerLabel
    return Lifecycle.runWith(
      { callId: call.callId, server, tool: call.name, arguments: args.raw },
      listOperation(ctx, kind, args, style),
      (listing) => style.outcome(ctx, listing.pieces, listing.aggregate),
      style.failure
    )
  }
