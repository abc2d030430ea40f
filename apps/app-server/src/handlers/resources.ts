/** `mcp/resource/read` (alias `mcpServer/resource/read`): plain, call-scoped and threadless reads. No items, no history. */
import { ResourceClient } from "@mcp-resources/resource-client"
import { CallScopedRead } from "@mcp-resources/resource-origins"
import { Effect } from "effect"
import { ResourceReadParams } from "../internal/params.js"
import { invalidRequest, messages, method } from "../Method.js"
import { Threads } from "../Threads.js"

const read = method({
  params: ResourceReadParams,
  run: (p, { connection }) =>
    Effect.gen(function* () {
      const client = yield* ResourceClient.ResourceClient
      const threadId = p.threadId ?? null
      const originCallId = p.originCallId ?? null
      const connectorId = p.connectorId ?? null
      if (threadId === null) {
        if (originCallId !== null) return yield* Effect.fail(invalidRequest(messages.originCallIdRequiresThreadId))
        const result = yield* client.withServerConnection(p.server, (server) =>
          connectorId === null
            ? server.readResource(p.uri)
            : server.readResource(p.uri, CallScopedRead.plainReadMeta(connectorId))
        )
        return { contents: result.contents, originCallId: null }
      }
      const thread = yield* (yield* Threads).get(connection, threadId)
      const config = yield* client.config
      if (originCallId !== null && p.server === config.apps.serverName) {
        const contents = yield* CallScopedRead.readForCall({ threadId: thread.id, callId: originCallId, uri: p.uri })
        return { contents, originCallId }
      }
      const result =
        connectorId === null
          ? yield* client.readResource(p.server, p.uri)
          : yield* client.readResource(p.server, p.uri, CallScopedRead.plainReadMeta(connectorId))
      return { contents: result.contents, originCallId: null }
    })
})

/** The resource methods. */
export const resourceMethods = {
  "mcp/resource/read": read,
  "mcpServer/resource/read": read
}
