/**
 * `mcp/resource/search` (issue #45): the search of `ResourceSearch` for UIs, on a thread's binding
 * (its access gate and resource rules) or on the latest set. No items, no history. A refused argument
 * (empty query, a limit outside 1..50, an unknown or gated server) is `-32600` with its message.
 */
import type { AppServer } from "@mcp-resources/protocol"
import { ResourceClient } from "@mcp-resources/resource-client"
import { ResourceSearch, type ToolHandlers } from "@mcp-resources/tool-handlers"
import { Effect } from "effect"
import { invalidRequest, method } from "../Method.js"
import { Threads } from "../Threads.js"

type SearchParams = AppServer.Params<"mcp/resource/search">

const requestOf = (p: SearchParams): ResourceSearch.Request => ({
  query: p.query,
  ...(p.server === undefined ? {} : { server: p.server }),
  ...(p.mimeType === undefined ? {} : { mimeType: p.mimeType }),
  ...(p.limit === undefined ? {} : { limit: p.limit })
})

/** The result on the wire: `failures` and `truncated` only when some. */
const resultOf = (result: ResourceSearch.Result): AppServer.Result<"mcp/resource/search"> => ({
  matches: result.matches,
  indexing: result.indexing,
  ...(result.failures.length === 0 ? {} : { failures: result.failures }),
  ...(result.truncated.length === 0 ? {} : { truncated: result.truncated })
})

/** The search methods. */
export const resourceSearchMethods = {
  "mcp/resource/search": method("mcp/resource/search", {
    run: (p, { connection }) =>
      Effect.gen(function* () {
        const search = yield* ResourceSearch.ResourceSearch
        const on = (context: ToolHandlers.ToolContext) => Effect.either(search.search(context, requestOf(p)))
        const threadId = p.threadId ?? null
        const answer =
          threadId === null
            ? yield* Effect.gen(function* () {
                const client = yield* ResourceClient.ResourceClient
                const set = yield* client.latest
                const config = yield* client.config
                return yield* on({
                  set,
                  config,
                  orchestratorMcpEnabled: config.orchestrator.mcpEnabled,
                  truncation: config.truncation
                })
              })
            : yield* Effect.gen(function* () {
                const threads = yield* Threads
                const thread = yield* threads.get(connection, threadId)
                return yield* threads.withToolContext(thread, on)
              })
        if (answer._tag === "Left") return yield* Effect.fail(invalidRequest(answer.left.message))
        return resultOf(answer.right)
      })
  })
}
