/** `skills/list` and `skills/read` (skills.md section 6). */
import { Skills } from "@mcp-resources/skills"
import { Effect } from "effect"
import { method } from "../Method.js"
import { Threads } from "../Threads.js"

/** The skills methods. */
export const skillMethods = {
  "skills/list": method("skills/list", {
    run: (p, { connection }) =>
      Effect.gen(function* () {
        const thread = yield* (yield* Threads).get(connection, p.threadId)
        const catalog = yield* (yield* Skills.Skills).list(thread.id)
        return { skills: catalog.skills, warnings: catalog.warnings, truncated: catalog.truncated }
      })
  }),
  "skills/read": method("skills/read", {
    run: (p, { connection }) =>
      Effect.gen(function* () {
        const thread = yield* (yield* Threads).get(connection, p.threadId)
        return yield* (yield* Skills.Skills).read(thread.id, p.package, p.resource, thread.config.resources?.deny)
      })
  })
}
