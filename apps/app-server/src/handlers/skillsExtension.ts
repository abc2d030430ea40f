/**
 * Skills over MCP (skills.md, "Skills over MCP"): `skills/extension/list`, `skills/extension/read`
 * and the notification `skills/extension/changed`, over `ExtensionSkills`. The Codex `skills/list`
 * and `skills/read` (skills.ts) are a separate catalog and do not change.
 */
import { ExtensionSkills } from "@mcp-resources/skills"
import { Context, Effect, Layer, Queue } from "effect"
import { Connections } from "../Connections.js"
import { method } from "../Method.js"

/** The connections told about `skills/extension/changed`: each that called a `skills/extension/*` method. */
export class SkillsExtensionSubscribers extends Context.Tag("@mcp-resources/app-server/SkillsExtensionSubscribers")<
  SkillsExtensionSubscribers,
  { readonly add: (connectionId: number) => Effect.Effect<void> }
>() {}

/**
 * The subscribers and the fiber that forwards every change of `ExtensionSkills` as
 * `skills/extension/changed {server, uri}` to them; a closed connection leaves the set.
 */
export const subscribersLayer: Layer.Layer<
  SkillsExtensionSubscribers,
  never,
  ExtensionSkills.ExtensionSkills | Connections
> = Layer.scoped(
  SkillsExtensionSubscribers,
  Effect.gen(function* () {
    const connections = yield* Connections
    const skills = yield* ExtensionSkills.ExtensionSkills
    const ids = new Set<number>()
    yield* connections.onClose((id) => Effect.sync(() => void ids.delete(id)))
    const changes = yield* skills.changes
    yield* Effect.forkScoped(
      Effect.forever(
        Effect.flatMap(Queue.take(changes), (change) =>
          connections.notify([...ids], "skills/extension/changed", { server: change.server, uri: change.uri })
        )
      )
    )
    return SkillsExtensionSubscribers.of({ add: (id) => Effect.sync(() => void ids.add(id)) })
  })
)

/** The skills extension methods. */
export const skillsExtensionMethods = {
  "skills/extension/list": method("skills/extension/list", {
    run: (_p, { connection }) =>
      Effect.gen(function* () {
        yield* (yield* SkillsExtensionSubscribers).add(connection.id)
        const catalog = yield* (yield* ExtensionSkills.ExtensionSkills).list
        return { skills: catalog.skills, warnings: catalog.warnings }
      })
  }),
  "skills/extension/read": method("skills/extension/read", {
    run: (p, { connection }) =>
      Effect.gen(function* () {
        yield* (yield* SkillsExtensionSubscribers).add(connection.id)
        return yield* (yield* ExtensionSkills.ExtensionSkills).read(p.server, p.uri)
      })
  })
}
