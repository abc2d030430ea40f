/**
 * `complete_mcp_resource_argument` of the extended profile, and the completion it makes (also what
 * a host's UI asks through `mcp/resource/complete`): one `completion/complete` with `ref/resource`.
 */
import { Messages } from "@mcp-resources/protocol"
import type { ResourceClient } from "@mcp-resources/resource-client"
import { Effect, Either } from "effect"
import * as Arguments from "../../Arguments.js"
import * as Content from "../../Content.js"
import type { EmitError, LifecycleSink } from "../../LifecycleSink.js"
import * as Truncation from "../../Truncation.js"
import type { ToolCall, ToolContext, ToolOutput } from "../context.js"
import { canAccess } from "../rules.js"
import * as Lifecycle from "../lifecycle.js"
import { escapeControls, escapeControlsJson } from "./hygiene.js"
import { messages } from "./messages.js"
import { listedTemplate } from "./templates.js"

/** `complete_mcp_resource_argument` of the extended profile: one `completion/complete` (`ref/resource`). */
export const callCompleteTool = (
  ctx: ToolContext,
  call: ToolCall
): Effect.Effect<ToolOutput, EmitError, LifecycleSink> => {
  const parsed = Arguments.parseCompleteArguments(call.arguments)
  if (Either.isLeft(parsed)) return Effect.succeed({ output: parsed.left.message, success: false })
  const { server, uriTemplate, argument, value, context, raw } = parsed.right
  const invocation = { callId: call.callId, server, tool: call.name, arguments: raw }
  const operation: Effect.Effect<string, string> = Effect.suspend(() => {
    if (!canAccess(ctx, server)) return Effect.fail(Messages.serverDisabledByOrchestrator(server))
    return completeArgument(ctx.set, server, { uriTemplate, argument, value, context })
  })
  return Lifecycle.runWith(
    invocation,
    operation,
    (text) => {
      const output = Truncation.truncateOutput(escapeControlsJson(text), ctx.truncation)
      return {
        status: "completed",
        result: { content: [{ type: "text", text: output }], isError: false },
        error: null,
        output,
        success: true
      }
    },
    Content.extended.failure
  )
}

/** What {@link completeArgument} asks. */
export interface CompleteQuestion {
  readonly uriTemplate: string
  readonly argument: string
  readonly value: string
  readonly context: Readonly<Record<string, string>>
}

/** The answer of {@link completeArgument}: candidate values, their total when the server knows it, and whether more exist. */
export interface CompleteAnswer {
  readonly values: ReadonlyArray<string>
  readonly total?: number
  readonly hasMore: boolean
}

/**
 * One completion of a template variable on a connection set: the server must be ready and declare
 * `completions`, the template must be listed, `argument` and every `context` name must be among its
 * variables. Fails with the model-facing message; answers the JSON text `{"values","total"?,"hasMore"}`.
 */
export const completeArgument = (
  set: ResourceClient.ConnectionSet,
  server: string,
  question: CompleteQuestion
): Effect.Effect<string, string> =>
  Effect.mapBoth(completeValues(set, server, question), {
    onFailure: (failure) => failure.message,
    onSuccess: (answer) => JSON.stringify(answer)
  })

/** Why a completion gave no answer: refused before any request (`refused`), or a request failed (`failed`). */
export interface CompleteFailure {
  readonly reason: "refused" | "failed"
  readonly message: string
}

const refused = (message: string): CompleteFailure => ({ reason: "refused", message })

/** {@link completeArgument} with the answer as a value. */
export const completeValues = (
  set: ResourceClient.ConnectionSet,
  server: string,
  question: CompleteQuestion
): Effect.Effect<CompleteAnswer, CompleteFailure> =>
  Effect.gen(function* () {
    const status = yield* set.awaitSettled(server)
    if (status._tag === "Some" && status.value.status === "ready" && !set.supports(server, "completions")) {
      return yield* Effect.fail(refused(messages.noCompletions(server)))
    }
    const variables = yield* listedTemplate(set, server, question.uriTemplate).pipe(
      Effect.mapError(
        (message): CompleteFailure => ({
          reason: message.startsWith(Messages.toolFailure.templates("")) ? "failed" : "refused",
          message
        })
      )
    )
    const names = [question.argument, ...Object.keys(question.context).filter((name) => name !== question.argument)]
    const extra = names.find((name) => !variables.includes(name))
    if (extra !== undefined) {
      return yield* Effect.fail(refused(messages.extraVariable(question.uriTemplate, extra, variables)))
    }
    const completion = yield* set
      .complete(server, {
        uriTemplate: question.uriTemplate,
        argument: { name: question.argument, value: question.value },
        ...(Object.keys(question.context).length === 0 ? {} : { context: question.context })
      })
      .pipe(
        Effect.mapError(
          (error): CompleteFailure => ({
            reason: "failed",
            message: messages.completeFailed(escapeControls(error.message))
          })
        )
      )
    return {
      values: completion.values,
      ...(completion.total === undefined ? {} : { total: completion.total }),
      hasMore: completion.hasMore === true
    }
  })
