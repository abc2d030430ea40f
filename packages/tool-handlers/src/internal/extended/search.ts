/**
 * `search_mcp_resources` of the extended profile (issue #45): ranked matches over every accessible
 * server's resources and templates, from the context's search (`ToolContext.search`, a ResourceSearch
 * service) or, without one, from an index this call builds. The access gate and the resource rules
 * apply as in listing (the search leaves out what they hide); the output is one JSON object in the
 * list style of the profile (controls escaped, truncated to the budget).
 */
import type { ResourceClient } from "@mcp-resources/resource-client"
import { Effect, Either, Queue } from "effect"
import * as Arguments from "../../Arguments.js"
import * as Content from "../../Content.js"
import type { EmitError, LifecycleSink } from "../../LifecycleSink.js"
import * as ResourceSearch from "../../ResourceSearch.js"
import type { SearchRequest, SearchResult, ToolCall, ToolContext, ToolOutput } from "../context.js"
import * as Lifecycle from "../lifecycle.js"
import { defaultAggregateServerLabel } from "../list.js"
import * as Rules from "../rules.js"

/** The search of the context, else one over an index built for this call alone. */
const searchOn = (ctx: ToolContext, request: SearchRequest) =>
  ctx.search !== undefined
    ? ctx.search.search(ctx, request)
    : Effect.scoped(
        Effect.flatMap(ResourceSearch.make({ updates: Queue.unbounded<ResourceClient.ResourceUpdate>() }), (search) =>
          search.search(ctx, request)
        )
      )

/** The output's JSON: `matches` and `indexing`, `failures` and `truncated` only when some (as `mcp/resource/search`). */
export const resultJson = (result: SearchResult): string =>
  JSON.stringify({
    matches: result.matches,
    indexing: result.indexing,
    ...(result.failures.length === 0 ? {} : { failures: result.failures }),
    ...(result.truncated.length === 0 ? {} : { truncated: result.truncated })
  })

/** `search_mcp_resources`: arguments refused without items; one search inside the lifecycle. */
export const callSearchTool = (
  ctx: ToolContext,
  call: ToolCall
): Effect.Effect<ToolOutput, EmitError, LifecycleSink> => {
  const parsed = Arguments.parseSearchArguments(call.arguments)
  if (Either.isLeft(parsed)) return Effect.succeed({ output: parsed.left.message, success: false })
  const args = parsed.right
  const request: SearchRequest = {
    query: args.query,
    limit: args.limit,
    ...(args.server === undefined ? {} : { server: args.server }),
    ...(args.mimeType === undefined ? {} : { mimeType: args.mimeType })
  }
  const operation = Rules.requested(ctx, searchOn(ctx, request)).pipe(
    Effect.tap((result) =>
      Effect.sync(() => {
        const trace = Rules.traceOf(ctx)
        if (trace !== undefined)
          for (const match of result.matches) trace.listed.push(match.uri ?? match.uriTemplate ?? "")
      })
    ),
    Effect.map((result) => [resultJson(result)]),
    Effect.mapError((error) => error.message)
  )
  return Lifecycle.runWith(
    {
      callId: call.callId,
      server: args.server ?? ctx.aggregateServerLabel ?? defaultAggregateServerLabel,
      tool: call.name,
      arguments: args.raw
    },
    operation,
    (pieces) => Content.extended.list(Content.budgetOf(ctx), pieces),
    Content.extended.failure
  )
}
