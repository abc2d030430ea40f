/** `turn/start`: rebinds the thread, records the turn and, on extended threads, hands over the resource changes. */
import { ResourceClient } from "@mcp-resources/resource-client"
import { Profile } from "@mcp-resources/tool-handlers"
import { Effect } from "effect"
import { randomUUID } from "node:crypto"
import { method } from "../Method.js"
import { ResourceSubscriptions } from "../ResourceSubscriptions.js"
import { profileOf, Threads } from "../Threads.js"

/** The turn methods. */
export const turnMethods = {
  "turn/start": method("turn/start", {
    ordering: "exclusive",
    threadId: (p) => p.threadId,
    owner: (p) => p.threadId,
    run: (p, { connection }) =>
      Effect.gen(function* () {
        const threads = yield* Threads
        const thread = yield* threads.get(connection, p.threadId)
        const turnId = p.turnId ?? randomUUID()
        yield* threads.rebind(thread)
        yield* threads.record(
          thread,
          { _tag: "turnStarted", turnId },
          { method: "turn/started", params: { threadId: thread.id, turnId } }
        )
        // extended threads: the resources they read that changed since the previous turn (none on codex)
        const config = yield* Effect.flatMap(ResourceClient.ResourceClient, (client) => client.config)
        if (!Profile.of(profileOf(thread, config)).followsReads) return { turn: { id: turnId } }
        const subscriptions = yield* ResourceSubscriptions
        yield* subscriptions.follow
        return { turn: { id: turnId }, resourceChanges: yield* subscriptions.take(thread.id) }
      })
  })
}
