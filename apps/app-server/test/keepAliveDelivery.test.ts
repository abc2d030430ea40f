import * as Entity from "@effect/cluster/Entity"
import * as EntityAddress from "@effect/cluster/EntityAddress"
import * as EntityId from "@effect/cluster/EntityId"
import * as EntityType from "@effect/cluster/EntityType"
import * as Message from "@effect/cluster/Message"
import * as MessageStorage from "@effect/cluster/MessageStorage"
import * as ShardId from "@effect/cluster/ShardId"
import * as Snowflake from "@effect/cluster/Snowflake"
import * as Headers from "@effect/platform/Headers"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Option } from "effect"
import * as KeepAliveDelivery from "../src/KeepAliveDelivery.js"

const shard = ShardId.make("default", 7)

/** What a read of the storage returns. */
type Read = Effect.Effect.Success<ReturnType<MessageStorage.MessageStorage["Type"]["unprocessedMessages"]>>

/** A stored request to the thread entity `entityId`, as the storage reads it. */
const stored = (requestId: bigint, entityId: string, tag: string) =>
  new Message.IncomingRequest({
    envelope: {
      _tag: "Request",
      requestId: Snowflake.Snowflake(requestId),
      address: EntityAddress.make({
        shardId: shard,
        entityType: EntityType.EntityType.make("Thread"),
        entityId: EntityId.make(entityId)
      }),
      tag,
      payload: null,
      headers: Headers.empty
    },
    lastSentReply: Option.none(),
    respond: () => Effect.void
  })

/** A storage whose every read returns what `unprocessed` holds (as `@effect/cluster` reads a shard again after an acquisition). */
const rereading = (unprocessed: Read) =>
  MessageStorage.MessageStorage.of({ ...MessageStorage.noop, unprocessedMessages: () => Effect.succeed(unprocessed) })

const read = (storage: MessageStorage.MessageStorage["Type"]) =>
  Effect.map(storage.unprocessedMessages([shard]), (messages) =>
    messages.map((m) => `${(m.envelope as { tag: string }).tag}#${m.envelope.requestId}`)
  )

describe("the delivery of keep-alive messages", () => {
  it.effect("a keep-alive message read again while its entity runs here is left out; any other message is not", () =>
    Effect.gen(function* () {
      const keepAlive = Entity.KeepAliveRpc._tag
      const unprocessed: Read = [stored(1n, "t1", keepAlive), stored(2n, "t1", "Run")]
      const running = new Set<string>()
      const storage = KeepAliveDelivery.once(rereading(unprocessed), (id) => running.has(id))
      assert.deepStrictEqual(yield* read(storage), [`${keepAlive}#1`, "Run#2"])
      // the message started the entity: read again, it would be answered as a second keep-alive
      running.add("t1")
      assert.deepStrictEqual(yield* read(storage), ["Run#2"])
      // a new keep-alive message of the running entity (it asked to be kept alive again) reaches it once
      unprocessed.push(stored(3n, "t1", keepAlive), stored(4n, "t2", keepAlive))
      assert.deepStrictEqual(yield* read(storage), ["Run#2", `${keepAlive}#3`, `${keepAlive}#4`])
      running.add("t2")
      assert.deepStrictEqual(yield* read(storage), ["Run#2"])
      // the entity stopped here (its shard moved away and back): its messages start it again
      running.delete("t1")
      assert.deepStrictEqual(yield* read(storage), [`${keepAlive}#1`, "Run#2", `${keepAlive}#3`])
    })
  )
})
