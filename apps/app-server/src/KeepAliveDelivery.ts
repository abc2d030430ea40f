/**
 * The delivery of the stored messages that keep clustered thread entities alive (`Entity.keepAlive`,
 * Cluster.ts): each reaches the entity it keeps alive on this instance once.
 *
 * A thread holding subscriptions keeps its entity alive with one such message. It stays unanswered
 * while the thread holds them, so that after a stop or a death the instance taking the thread's shard
 * over starts the entity from it. `@effect/cluster` 0.60.2 answers a keep-alive message that reaches an
 * entity while another one waits there, and its storage reads a waiting message again:
 * - each time this instance acquires a shard (on PostgreSQL the acquisition reports every shard the
 *   instance holds, and the messages of all of them are read again);
 * - ten minutes after each read.
 *
 * Each read again answered the waiting message itself. The entity ran on, but nothing kept it alive any
 * more, so the next failover left the thread's changes undetected. Here a keep-alive message that
 * reached this instance before is left out of a read while its entity runs here. Once the entity stopped
 * here (its shard moved, or the instance's entity ended), the message is delivered again and starts it.
 */
import * as Entity from "@effect/cluster/Entity"
import * as MessageStorage from "@effect/cluster/MessageStorage"
import { Effect } from "effect"

/**
 * `storage` whose reads leave out a keep-alive message delivered before, while `runningHere` says its
 * entity runs on this instance. (Its reads come one after the other, and one waits until the entity a
 * message starts is built: an entity that a delivered message started runs here at the next read.)
 */
export const once = (
  storage: MessageStorage.MessageStorage["Type"],
  runningHere: (entityId: string) => boolean
): MessageStorage.MessageStorage["Type"] => {
  /** The keep-alive messages delivered here, by request id, with the id of the entity each keeps alive. */
  const delivered = new Map<bigint, string>()
  return MessageStorage.MessageStorage.of({
    ...storage,
    unprocessedMessages: (shardIds) =>
      Effect.map(storage.unprocessedMessages(shardIds), (messages) => {
        // an entity that stopped here is started again by its message
        for (const [requestId, entityId] of delivered) if (!runningHere(entityId)) delivered.delete(requestId)
        return messages.filter((message) => {
          if (message._tag !== "IncomingRequest" || message.envelope.tag !== Entity.KeepAliveRpc._tag) return true
          const requestId = message.envelope.requestId
          if (delivered.has(requestId)) return false
          delivered.set(requestId, message.envelope.address.entityId)
          return true
        })
      })
  })
}
