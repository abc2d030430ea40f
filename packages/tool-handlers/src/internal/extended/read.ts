/**
 * `read_mcp_resource` of the extended profile: by `uri`, or by `uriTemplate` and `arguments`; the
 * result rendered by the content pipeline's extended entry (Content.ts: windows under the budget).
 */
import { type Errors, Messages, type Mcp } from "@mcp-resources/protocol"
import type { ResourceClient } from "@mcp-resources/resource-client"
import { Effect, Either } from "effect"
import * as Arguments from "../../Arguments.js"
import * as Content from "../../Content.js"
import type { EmitError, LifecycleSink } from "../../LifecycleSink.js"
import type { ToolCall, ToolContext, ToolOutput } from "../context.js"
import * as Lifecycle from "../lifecycle.js"
import * as Rules from "../rules.js"
import { escapeControls } from "./hygiene.js"
import { defaultWindowTtlMs, messages, notFoundCodes } from "./messages.js"
import * as Since from "./since.js"
import * as Templates from "./templates.js"

/** A read for windows: kept for the window time when the server says nothing, in the pipeline's kept form. */
const windowRead: ResourceClient.ReadOptions = { defaultTtlMs: defaultWindowTtlMs, keptForm: Content.keptRead }

const readFailure = (server: string, uri: string, error: Errors.ResourceFailure): Lifecycle.Outcome =>
  Lifecycle.failure(
    error._tag === "ServerError" && notFoundCodes.includes(error.code)
      ? messages.resourceNotFound(server, uri)
      : Messages.toolFailure.read(escapeControls(error.message))
  )

/** What the extended read accepts: the window, templates and `since`. */
export const readOptions = { window: true, templates: true, since: true } as const

/** `read_mcp_resource` of the extended profile: by `uri`, or by `uriTemplate` and `arguments`. */
export const callReadTool = (ctx: ToolContext, call: ToolCall): Effect.Effect<ToolOutput, EmitError, LifecycleSink> => {
  const parsed = Arguments.parseReadArguments(call.arguments, readOptions)
  if (Either.isLeft(parsed)) return Effect.succeed({ output: parsed.left.message, success: false })
  const args = parsed.right
  const { server, raw } = args
  const invocation = { callId: call.callId, server, tool: call.name, arguments: raw }
  if (!Rules.canAccess(ctx, server)) {
    return Lifecycle.runWith(
      invocation,
      Effect.fail(escapeControls(Messages.serverDisabledByOrchestrator(server))),
      Lifecycle.failure,
      Lifecycle.failure
    )
  }
  const budget = Content.budgetOf(ctx)
  const outcomeOf = (
    uri: string,
    result: Mcp.ReadResourceResult,
    render: Content.RenderOptions = {},
    note?: string
  ): Lifecycle.Outcome => {
    const read = Content.extended.read(budget, server, uri, result, args, render)
    if (Either.isLeft(read)) return Lifecycle.failure(read.left)
    // a note of `since` (why the whole body is given) comes first
    const rendered = note === undefined ? read.right : { ...read.right, text: `${note}\n${read.right.text}` }
    const outcome = Content.extended.outcome(rendered, false)
    // a window: an after hook judges the whole text, and the window is cut again from what it leaves
    return rendered.windowed !== true || render.redact !== undefined
      ? outcome
      : {
          ...outcome,
          windowed: {
            whole: () => {
              const whole = Content.extended.read(budget, server, uri, result, args, { whole: true })
              return Either.isRight(whole) ? whole.right.text : outcome.output
            },
            cut: (redact) => outcomeOf(uri, result, { redact }, note)
          }
        }
  }
  // the digests of what the server returned go with the item, and `since` answers with what changed;
  // a read further into a body (an offset past 0: paging through it) does neither, so that a window
  // costs what its bytes cost, not a hash of the whole body
  const success = (uri: string) => (result: Mcp.ReadResourceResult) =>
    Effect.gen(function* () {
      if (args.offset !== undefined && args.offset > 0) return outcomeOf(uri, result)
      const measured = yield* Since.measure(ctx, budget, uri, result)
      const withRead = (outcome: Lifecycle.Outcome): Lifecycle.Outcome =>
        outcome.success ? { ...outcome, resourceRead: measured.read } : outcome
      if (args.since === undefined || args.offset !== undefined) return withRead(outcomeOf(uri, result))
      const answer = yield* Since.answer(ctx, server, uri, args.since, measured, Content.budgetBytes(budget.truncation))
      switch (answer._tag) {
        case "refused":
          return Lifecycle.failure(answer.message)
        case "changes":
          return withRead(Content.extended.outcome({ text: answer.text, images: [] }, false))
        case "whole":
          return withRead(outcomeOf(uri, result, {}, answer.note))
      }
    })
  // a successful read tells the host's watch (resource changes), before the completed item
  const watched = (uri: string) => (result: Mcp.ReadResourceResult) =>
    Effect.flatMap(success(uri)(result), (outcome) => {
      const watch = ctx.resourceChanges
      // a server whose changes are not followed (polling off and no subscriptions) has no reads to watch
      return watch === undefined || !outcome.success || ctx.set.changeDetection(server) === "none"
        ? Effect.succeed(outcome)
        : Effect.as(
            watch.track({ server, uri, callId: call.callId, ...Since.changeBody(outcome.resourceRead) }),
            outcome
          )
    })
  // host policy first: a denied URI (given, or expanded from a template) is refused before any request
  const read = (uri: string): Effect.Effect<Lifecycle.Outcome> => {
    const refused = Rules.refusedRead(ctx, server, uri)
    return refused !== undefined
      ? Effect.succeed(Lifecycle.failure(escapeControls(refused)))
      : Rules.requested(ctx, ctx.set.readResource(server, uri, undefined, windowRead)).pipe(
          Effect.flatMap(watched(uri)),
          Effect.catchAll((error) => Effect.succeed(readFailure(server, uri, error)))
        )
  }
  if (args._tag === "uri") {
    const uri = args.uri
    const refused = Rules.refusedRead(ctx, server, uri)
    if (refused !== undefined) {
      return Lifecycle.runWith(invocation, Effect.fail(escapeControls(refused)), Lifecycle.failure, Lifecycle.failure)
    }
    const request = Rules.requested(ctx, ctx.set.readResource(server, uri, undefined, windowRead))
    return Lifecycle.runWith(
      invocation,
      Effect.flatMap(request, watched(uri)),
      (outcome) => outcome,
      (error) => readFailure(server, uri, error)
    )
  }
  return Lifecycle.runWith(
    invocation,
    Effect.flatMap(Templates.expandListed(ctx.set, server, args.uriTemplate, args.values), read),
    (outcome) => outcome,
    Content.extended.failure
  )
}
