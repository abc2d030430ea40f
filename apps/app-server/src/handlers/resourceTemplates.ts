/**
 * `mcp/resource/complete`: the extended profile's `complete_mcp_resource_argument` for UIs (`@`-mention
 * pickers): one `completion/complete` for a variable of a template the server lists, on a thread's
 * binding or on the latest set. No items, no history. A refusal (no completions, a template the
 * server does not list, a name that is not one of its variables, a server kept from the resource tools)
 * is `-32600`; a failed request is `-32603` with its message chain.
 */
import { ResourceClient } from "@mcp-resources/resource-client"
import { Extended, ToolHandlers } from "@mcp-resources/tool-handlers"
import { Effect } from "effect"
import type { AppServer } from "@mcp-resources/protocol"
import { codes, invalidRequest, MethodError, method } from "../Method.js"
import { Threads } from "../Threads.js"

type CompleteParams = AppServer.Params<"mcp/resource/complete">

const question = (p: CompleteParams): Extended.CompleteQuestion => ({
  uriTemplate: p.uriTemplate,
  argument: p.argument,
  value: p.value,
  context: p.context ?? {}
})

/** Completes on a tool context: the access gate of the resource tools, then the completion. */
const completeOn = (context: ToolHandlers.ToolContext, p: CompleteParams) =>
  ToolHandlers.canAccess(context, p.server)
    ? Extended.completeValues(context.set, p.server, question(p))
    : Effect.fail<Extended.CompleteFailure>({ reason: "refused", message: ToolHandlers.disabledMessage(p.server) })

/** The template methods. */
export const resourceTemplateMethods = {
  "mcp/resource/complete": method("mcp/resource/complete", {
    run: (p, { connection }) =>
      Effect.gen(function* () {
        const threadId = p.threadId ?? null
        const answer =
          threadId === null
            ? yield* Effect.gen(function* () {
                const client = yield* ResourceClient.ResourceClient
                const set = yield* client.latest
                const config = yield* client.config
                return yield* completeOn(
                  {
                    set,
                    config,
                    orchestratorMcpEnabled: config.orchestrator.mcpEnabled,
                    truncation: config.truncation
                  },
                  p
                ).pipe(Effect.either)
              })
            : yield* Effect.gen(function* () {
                const threads = yield* Threads
                const thread = yield* threads.get(connection, threadId)
                return yield* threads.withToolContext(thread, (context) => Effect.either(completeOn(context, p)))
              })
        if (answer._tag === "Left") {
          const { reason, message } = answer.left
          return yield* Effect.fail(
            reason === "refused" ? invalidRequest(message) : new MethodError({ code: codes.internalError, message })
          )
        }
        return answer.right
      })
  })
}
