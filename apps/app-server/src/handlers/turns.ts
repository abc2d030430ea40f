/** `turn/start`. */
import { Effect } from "effect"
import { randomUUID } from "node:crypto"
import { method } from "../Method.js"
import { Threads } from "../Threads.js"

/** The turn methods. */
export const turnMethods = {
  "turn/start": method("turn/start", {
    ordering: "exclusive",
    threadId: (p) => p.threadId,
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
        return { turn: { id: turnId } }
      })
  })
}
