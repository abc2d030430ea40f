import { assert, describe, it } from "@effect/vitest"
import { Effect, Queue } from "effect"
import { AppServerClient } from "../src/index.js"
import { appServer } from "./utils/peers.js"

describe("the README example", () => {
  it.scopedLive("starts a thread and a turn and receives turn/started", () =>
    Effect.gen(function* () {
      // The README's program, with the bin replaced by the built server of this checkout.
      const options = yield* appServer()
      const program = Effect.scoped(
        Effect.gen(function* () {
          const client = yield* AppServerClient.stdio(options)
          yield* client.initialize({ name: "my-host" })
          const notifications = yield* client.subscribe
          const { thread } = yield* client.request("thread/start", { ephemeral: true })
          yield* client.request("turn/start", { threadId: thread.id, turnId: "turn-1" })
          return { thread: thread.id, notification: yield* Queue.take(notifications) }
        })
      )
      const { thread, notification } = yield* Effect.timeout(program, "20 seconds")
      assert.deepStrictEqual(notification, { method: "turn/started", params: { threadId: thread, turnId: "turn-1" } })
    })
  )
})
