/**
 * Server requests answered by the host (see `ServerRequests.ts`): which thread a server-to-client
 * request of the `initialize` era belongs to, the pausable tool timeout of the requests it belongs
 * to, and the fulfilment of a 2026-07-28 `input_required` result through the same handlers.
 */
import { Messages } from "@mcp-resources/protocol"
import { Cause, Clock, Effect } from "effect"
import type * as ServerRequests from "../ServerRequests.js"
import { transportError } from "./failures.js"
import { isRecord } from "@mcp-resources/protocol/Records"

/** The rounds of `input_required` one request may go through before it fails (as the SDK's driver). */
export const maxInputRounds = 10

/**
 * The tool timeout of one request that belongs to a context: paused while the host answers a server
 * request attributed to it, so that the user's time does not count against `tool_timeout_sec`.
 */
export class Budget {
  paused = 0
  extraMillis = 0
  pausedAt = 0
  /** Told when the budget pauses or resumes (the request's timer re-arms on it). */
  changed: (() => void) | undefined = undefined

  pause(now: number): void {
    if (this.paused++ === 0) {
      this.pausedAt = now
      this.changed?.()
    }
  }

  unpause(now: number): void {
    if (this.paused === 0) return
    if (--this.paused === 0) {
      this.extraMillis += now - this.pausedAt
      this.changed?.()
    }
  }
}

/** An in-flight request as attribution sees it. */
export interface Attributable {
  readonly context: ServerRequests.RequestContext | undefined
  readonly budget: Budget | undefined
}

/**
 * The context of a server-to-client request: the thread of the requests in flight on the connection
 * when it came, when they all belong to one thread (the call too when there is one); empty otherwise
 * (a stdio or HTTP request names no request of ours). The budgets to pause are those of that thread.
 */
export const attribute = (
  inFlight: Iterable<Attributable>
): { readonly context: ServerRequests.RequestContext; readonly budgets: ReadonlyArray<Budget> } => {
  let threadId: string | undefined
  let several = false
  const matching: Array<Attributable> = []
  for (const request of inFlight) {
    const thread = request.context?.threadId
    if (thread === undefined) continue
    if (threadId === undefined) threadId = thread
    else if (threadId !== thread) several = true
    matching.push(request)
  }
  if (threadId === undefined || several) return { context: {}, budgets: [] }
  const first = matching[0]!.context!
  const sameCall = matching.every(
    (request) => request.context?.callId === first.callId && request.context?.turnId === first.turnId
  )
  const context: ServerRequests.RequestContext = sameCall
    ? {
        threadId,
        ...(first.turnId === undefined ? {} : { turnId: first.turnId }),
        ...(first.callId === undefined ? {} : { callId: first.callId })
      }
    : { threadId }
  const budgets: Array<Budget> = []
  for (const request of matching) if (request.budget !== undefined) budgets.push(request.budget)
  return { context, budgets }
}

/** Runs `effect` with the budgets paused (from start to end, whatever the end). */
export const pausing = <A, E>(budgets: ReadonlyArray<Budget>, effect: Effect.Effect<A, E>): Effect.Effect<A, E> =>
  budgets.length === 0
    ? effect
    : Effect.acquireUseRelease(
        Effect.flatMap(Clock.currentTimeMillis, (now) =>
          Effect.sync(() => {
            for (const budget of budgets) budget.pause(now)
          })
        ),
        () => effect,
        () =>
          Effect.flatMap(Clock.currentTimeMillis, (now) =>
            Effect.sync(() => {
              for (const budget of budgets) budget.unpause(now)
            })
          )
      )

const validActions = new Set(["accept", "decline", "cancel"])

/**
 * The host's elicitation answer, or a decline when there is no handler, the handler failed or died,
 * or its answer is not one MCP knows.
 */
export const elicit = (
  handlers: ServerRequests.Service,
  server: string,
  params: Readonly<Record<string, unknown>>,
  context: ServerRequests.RequestContext
): Effect.Effect<ServerRequests.ElicitationResult> => {
  const handler = handlers.elicitation
  if (handler === undefined) return Effect.succeed({ action: "decline" })
  return handler.handle({ server, params, context }).pipe(
    Effect.map((result): ServerRequests.ElicitationResult => {
      if (!isRecord(result) || !validActions.has(result.action as string)) return { action: "decline" }
      if (result.action !== "accept") return { action: result.action }
      return result.content === undefined ? { action: "accept" } : { action: "accept", content: result.content }
    }),
    Effect.catchAllCause((cause) =>
      Cause.isInterruptedOnly(cause)
        ? Effect.failCause(cause)
        : Effect.as(
            Effect.logWarning(
              `MCP server '${server}': the elicitation handler failed, declining: ${Cause.pretty(cause)}`
            ),
            { action: "decline" as const }
          )
    )
  )
}

/** The inputs an `input_required` result asked for, as `key (method)`, for the failure message. */
const inputNames = (requests: Readonly<Record<string, unknown>>): Array<string> =>
  Object.keys(requests).map((key) => {
    const request = requests[key]
    return isRecord(request) && typeof request.method === "string" ? `${key} (${request.method})` : key
  })

/** Whether the handlers can answer an input request of this method. */
const canAnswer = (handlers: ServerRequests.Service, method: unknown): boolean =>
  (method === "elicitation/create" && handlers.elicitation !== undefined) ||
  (method === "sampling/createMessage" && handlers.sampling !== undefined) ||
  (method === "roots/list" && handlers.roots !== undefined)

/**
 * Fulfils an `input_required` result through the handlers: the retry fields (`inputResponses` keyed
 * as the server keyed `inputRequests`, and `requestState` echoed byte for byte). An input no handler
 * answers fails as before the handlers existed (the message names the inputs).
 */
export const fulfil = (
  handlers: ServerRequests.Service,
  server: string,
  method: string,
  raw: Readonly<Record<string, unknown>>,
  context: ServerRequests.RequestContext
) =>
  Effect.suspend(() => {
    const requests = isRecord(raw.inputRequests) ? raw.inputRequests : {}
    const keys = Object.keys(requests)
    const unanswerable = keys.some((key) => {
      const request = requests[key]
      return !isRecord(request) || !canAnswer(handlers, request.method)
    })
    if (unanswerable)
      return Effect.fail(transportError("invalidResult", Messages.inputRequired(method, inputNames(requests))))
    return Effect.forEach(
      keys,
      (key) => {
        const request = requests[key] as Readonly<Record<string, unknown>>
        const params = isRecord(request.params) ? request.params : {}
        const answer: Effect.Effect<unknown, Error> =
          request.method === "elicitation/create"
            ? elicit(handlers, server, params, context)
            : request.method === "sampling/createMessage"
              ? handlers.sampling!({ server, params, context })
              : handlers.roots!({ server, params, context })
        return Effect.map(answer, (result) => [key, result] as const)
      },
      { concurrency: "unbounded" }
    ).pipe(
      Effect.mapError((error) =>
        transportError("invalidResult", `${method}: the host could not answer: ${error.message}`)
      ),
      Effect.map((answers) => {
        const retry: Record<string, unknown> = {}
        if (answers.length > 0) retry.inputResponses = Object.fromEntries(answers)
        if (typeof raw.requestState === "string") retry.requestState = raw.requestState
        return retry
      })
    )
  })
