/** `thread/start`, `thread/resume`, `thread/list`, `thread/delete`, `thread/rollback`, `thread/compact`. */
import { OriginStore } from "@mcp-resources/resource-origins"
import { Effect, Option } from "effect"
import { method } from "../Method.js"
import { Threads } from "../Threads.js"

const byThread = (p: { readonly threadId: string }) => p.threadId

/** The thread methods. */
export const threadMethods = {
  "thread/start": method("thread/start", {
    run: (p, { connection }) =>
      Effect.gen(function* () {
        const threads = yield* Threads
        const thread = yield* threads.start(connection, { ephemeral: p.ephemeral ?? false, config: p.config ?? {} })
        return { thread: { id: thread.id, ephemeral: thread.ephemeral } }
      })
  }),
  "thread/resume": method("thread/resume", {
    run: (p, { connection }) =>
      Effect.gen(function* () {
        const thread = yield* (yield* Threads).resume(connection, p.threadId)
        return { thread: { id: thread.id, ephemeral: thread.ephemeral } }
      })
  }),
  "thread/list": method("thread/list", {
    run: () =>
      Effect.map(
        Effect.flatMap(Threads, (threads) => threads.list),
        (threads) => ({ threads })
      )
  }),
  "thread/delete": method("thread/delete", {
    ordering: "exclusive",
    threadId: byThread,
    owner: byThread,
    run: (p) =>
      Effect.as(
        Effect.flatMap(Threads, (threads) => threads.remove(p.threadId)),
        {}
      )
  }),
  "thread/rollback": method("thread/rollback", {
    ordering: "exclusive",
    threadId: byThread,
    owner: byThread,
    run: (p, { connection }) =>
      Effect.gen(function* () {
        const threads = yield* Threads
        const thread = yield* threads.get(connection, p.threadId)
        yield* threads.record(
          thread,
          { _tag: "threadRolledBack", numTurns: p.numTurns },
          { method: "thread/rolledBack", params: { threadId: thread.id, numTurns: p.numTurns } }
        )
        return { thread: { id: thread.id } }
      })
  }),
  "thread/compact": method("thread/compact", {
    ordering: "exclusive",
    threadId: byThread,
    owner: byThread,
    run: (p, { connection }) =>
      Effect.gen(function* () {
        const threads = yield* Threads
        const origins = yield* OriginStore.OriginStore
        const thread = yield* threads.get(connection, p.threadId)
        yield* threads.refresh(thread)
        const checkpoint = yield* origins.checkpoint(thread.id)
        yield* threads.record(thread, {
          _tag: "compacted",
          state: Option.isSome(checkpoint) ? { mcp_resource_origins: checkpoint.value } : {}
        })
        return {}
      })
  })
}
