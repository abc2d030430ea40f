/**
 * `mcp/resource/subscribe` and `mcp/resource/unsubscribe` (docs/templates-and-changes.md): a UI
 * subscribes an extended thread to a resource without a read; its changes come as
 * `mcp/resource/changed` and in `turn/start` like those of the resources the model read.
 */
import { Messages } from "@mcp-resources/protocol"
import { ResourceClient } from "@mcp-resources/resource-client"
import { Profile } from "@mcp-resources/tool-handlers"
import { Effect } from "effect"
import { invalidRequest, messages, method } from "../Method.js"
import { ResourceSubscriptions } from "../ResourceSubscriptions.js"
import { profileOf, type Thread, Threads } from "../Threads.js"

const byThread = (p: { readonly threadId: string }) => p.threadId

/** The thread of the request, on the extended profile, and a server of the latest set; else the refusal naming what is wrong. */
const target = (p: { readonly threadId: string; readonly server: string }, thread: Thread) =>
  Effect.gen(function* () {
    const client = yield* ResourceClient.ResourceClient
    const config = yield* client.config
    if (!Profile.of(profileOf(thread, config)).followsReads)
      return yield* Effect.fail(invalidRequest(messages.subscriptionsNeedExtended(thread.id)))
    const set = yield* client.latest
    if (!set.hasServer(p.server)) return yield* Effect.fail(invalidRequest(Messages.unknownServer(p.server)))
  })

/** The subscription methods. */
export const resourceSubscriptionMethods = {
  "mcp/resource/subscribe": method("mcp/resource/subscribe", {
    ordering: "exclusive",
    threadId: byThread,
    // on a cluster, the owner detects the thread's changes: it makes and ends its subscriptions
    owner: byThread,
    run: (p, { connection }) =>
      Effect.gen(function* () {
        const threads = yield* Threads
        const thread = yield* threads.get(connection, p.threadId)
        yield* target(p, thread)
        const status = yield* (yield* ResourceSubscriptions).subscribe(thread.id, p.server, p.uri, (event) =>
          threads.record(thread, event)
        )
        return { subscribed: status === "subscribed" }
      })
  }),
  "mcp/resource/unsubscribe": method("mcp/resource/unsubscribe", {
    ordering: "exclusive",
    threadId: byThread,
    // on a cluster, the owner detects the thread's changes: it makes and ends its subscriptions
    owner: byThread,
    run: (p, { connection }) =>
      Effect.gen(function* () {
        const threads = yield* Threads
        const thread = yield* threads.get(connection, p.threadId)
        yield* target(p, thread)
        yield* (yield* ResourceSubscriptions).unsubscribe(thread.id, p.server, p.uri, (event) =>
          threads.record(thread, event)
        )
        return {}
      })
  })
}
