/** The lifecycle runner shared by every tool call (resource-tools.md section 9, 11.3). */
import { AppServer, type Mcp, type ToolCallItem } from "@mcp-resources/protocol"
import { Cause, Clock, Context, Effect, Either } from "effect"
import { type EmitError, LifecycleSink } from "../LifecycleSink.js"
import { andThen, andThenSuspend } from "./fastPaths.js"

/** The optional app fields of an MCP tool item; each present only when it is a string. */
export interface AppFields {
  readonly connectorId?: string
  readonly linkId?: string
  readonly mcpAppResourceUri?: string
}

/** What the item is about: built once phase 1 has succeeded. */
export interface Invocation {
  readonly callId: string
  readonly server: string
  readonly tool: string
  readonly arguments: unknown
  readonly app?: AppFields
  /** A call a widget made (`initiator: "widget"`), and the call whose widget made it. */
  readonly widget?: { readonly originCallId: string }
}

/** How phase 2 ended: what the completed item shows and what the caller gets. */
export interface Outcome {
  readonly status: "completed" | "failed"
  readonly result: Mcp.CallToolResult | null
  readonly error: { readonly message: string } | null
  readonly output: string
  readonly success: boolean
  /** Extended profile: the output's parts (text, then images). */
  readonly contentItems?: ReadonlyArray<AppServer.ContentItem>
  /**
   * A read shown in a window (extended profile): its whole rendering, and the same window cut again
   * from the text with `redact` strings replaced (after hooks judge the whole, internal/policy.ts).
   */
  readonly windowed?: {
    readonly whole: () => string
    readonly cut: (redact: ReadonlyArray<string>) => Outcome
  }
  /** Extended read: the digests of the body the server returned, recorded in the completed item. */
  readonly resourceRead?: ToolCallItem.ResourceRead
}

/**
 * Host policy between a call's started item and its operation: `around` runs the operation (given as
 * the outcome it ends with) or not, and gives the outcome the completed item shows. Provided by the
 * policy path (internal/policy.ts) only; without it a call runs its operation as is.
 */
export class Gate extends Context.Tag("@mcp-resources/tool-handlers/internal/Gate")<
  Gate,
  {
    readonly around: (invocation: Invocation, operation: Effect.Effect<Outcome>) => Effect.Effect<Outcome, EmitError>
  }
>() {}

/** The result of a tool call as a host gives it to the model. */
export interface ToolOutput {
  readonly output: string
  readonly success: boolean
  readonly contentItems?: ReadonlyArray<AppServer.ContentItem>
}

/** The caller's view of an outcome: `contentItems` only when the outcome has them. */
const toolOutput = (outcome: Outcome): ToolOutput =>
  outcome.contentItems === undefined
    ? { output: outcome.output, success: outcome.success }
    : { output: outcome.output, success: outcome.success, contentItems: outcome.contentItems }

/** A failure: `status:"failed"`, `result:null`, `error:{message}`; the message is the output. */
export const failure = (message: string): Outcome => ({
  status: "failed",
  result: null,
  error: { message },
  output: message,
  success: false
})

/**
 * The message of a cancelled call's completed item. This runner is the one place that completes an
 * interrupted call's item: hosts (the app-server) only store what the sink receives.
 */
export const cancelledMessage = AppServer.messages.callCancelled

const item = (
  invocation: Invocation,
  fields: Pick<ToolCallItem.McpToolCallItem, "status" | "result" | "error" | "durationMs">,
  resourceRead?: ToolCallItem.ResourceRead
): ToolCallItem.McpToolCallItem => {
  const item: { -readonly [K in keyof ToolCallItem.McpToolCallItem]: ToolCallItem.McpToolCallItem[K] } = {
    type: "mcpToolCall",
    id: invocation.callId,
    server: invocation.server,
    tool: invocation.tool,
    arguments: invocation.arguments,
    status: fields.status,
    result: fields.result,
    error: fields.error,
    durationMs: fields.durationMs
  }
  const app = invocation.app
  if (app !== undefined) {
    if (app.connectorId !== undefined) item.connectorId = app.connectorId
    if (app.linkId !== undefined) item.linkId = app.linkId
    if (app.mcpAppResourceUri !== undefined) item.mcpAppResourceUri = app.mcpAppResourceUri
  }
  if (invocation.widget !== undefined) {
    item.initiator = "widget"
    item.originCallId = invocation.widget.originCallId
  }
  if (resourceRead !== undefined) item.resourceRead = resourceRead
  return item
}

/**
 * Emits the started item, runs the operation, emits the completed item with the elapsed whole
 * milliseconds (from Clock), and returns the output. The operation's success and typed failure are
 * turned into the outcome by `onSuccess` and `onFailure`. An interrupted operation completes its item
 * as failed with message `cancelled` before the interruption goes on. With a {@link Gate} (the policy
 * path), the gate runs between the started item and the operation, and decides the outcome.
 */
export const runWith = <A, E>(
  invocation: Invocation,
  operation: Effect.Effect<A, E>,
  onSuccess: (value: A) => Outcome,
  onFailure: (error: E) => Outcome
): Effect.Effect<ToolOutput, EmitError, LifecycleSink> =>
  Effect.uninterruptibleMask((restore) =>
    // the sink and the clock in one step, read from the fiber
    Effect.withFiberRuntime<ToolOutput, EmitError, LifecycleSink>((fiber) => {
      const sink = Context.unsafeGet(fiber.currentContext, LifecycleSink)
      const clock = Context.get(fiber.currentDefaultServices, Clock.Clock)
      const started = sink.emit({
        phase: "started",
        item: item(invocation, { status: "inProgress", result: null, error: null, durationMs: null })
      })
      let start = 0
      const complete = <B, E2>(outcome: Outcome, then: Effect.Effect<B, E2>): Effect.Effect<B, E2 | EmitError> =>
        andThen(
          sink.emit({
            phase: "completed",
            item: item(
              invocation,
              {
                status: outcome.status,
                result: outcome.result,
                error: outcome.error,
                durationMs: Math.max(0, Math.floor(clock.unsafeCurrentTimeMillis() - start))
              },
              outcome.resourceRead
            )
          }),
          then
        )
      const handlers = {
        onSuccess: (value: A) => {
          const outcome = onSuccess(value)
          return complete(outcome, Effect.succeed<ToolOutput>(toolOutput(outcome)))
        },
        onFailure: (cause: Cause.Cause<E>) => {
          const failed = Cause.failureOrCause(cause)
          if (Either.isLeft(failed)) {
            const outcome = onFailure(failed.left)
            return complete(outcome, Effect.succeed<ToolOutput>(toolOutput(outcome)))
          }
          // interrupted: the item completes as cancelled before the interruption goes on
          return Cause.isInterruptedOnly(cause)
            ? complete(failure(cancelledMessage), Effect.failCause(failed.right))
            : Effect.failCause(failed.right)
        }
      }
      const gate = fiber.currentContext.unsafeMap.get(Gate.key) as Gate["Type"] | undefined
      const body =
        gate === undefined
          ? () => Effect.matchCauseEffect(restore(operation), handlers)
          : () =>
              Effect.matchCauseEffect(
                restore(
                  gate.around(
                    invocation,
                    Effect.matchEffect(operation, {
                      onSuccess: (value) => Effect.succeed(onSuccess(value)),
                      onFailure: (error) => Effect.succeed(onFailure(error))
                    })
                  )
                ),
                {
                  onSuccess: (outcome: Outcome) => complete(outcome, Effect.succeed<ToolOutput>(toolOutput(outcome))),
                  onFailure: (cause: Cause.Cause<EmitError>) =>
                    Cause.isInterruptedOnly(cause)
                      ? complete(failure(cancelledMessage), Effect.failCause(cause))
                      : Effect.failCause(cause)
                }
              )
      // the elapsed time starts once the started item is out
      return andThenSuspend(started, () => {
        start = clock.unsafeCurrentTimeMillis()
        return body()
      })
    })
  )

const identity = <A>(a: A): A => a
const absurd = (never: never): Outcome => never

/**
 * Emits the started item, runs the operation, emits the completed item with the elapsed whole
 * milliseconds (from Clock), and returns the output. An interrupted operation completes its item as
 * failed with message `cancelled` before the interruption goes on.
 */
export const run = (
  invocation: Invocation,
  operation: Effect.Effect<Outcome>
): Effect.Effect<ToolOutput, EmitError, LifecycleSink> => runWith(invocation, operation, identity, absurd)
