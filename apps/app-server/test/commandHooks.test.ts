import { assert, describe, it } from "@effect/vitest"
import type { Config } from "@mcp-resources/protocol"
import { ToolHooks } from "@mcp-resources/tool-handlers"
import { Effect } from "effect"
import * as CommandHooks from "../src/CommandHooks.js"

const config: Config.HooksConfig = {
  beforeTool: [{ command: "true", args: [], timeoutSec: 1 }],
  afterTool: []
}

describe("CommandHooks", () => {
  it.effect("a config's hooks are built once per service; no config or no hooks: none", () =>
    Effect.gen(function* () {
      const hooks = yield* CommandHooks.CommandHooks
      const built = hooks.forConfig(config)
      assert.strictEqual(hooks.forConfig(config), built)
      assert.isDefined(built.before)
      assert.isUndefined(built.after)
      assert.strictEqual(hooks.forConfig(undefined), ToolHooks.none)
      assert.strictEqual(hooks.forConfig({ beforeTool: [], afterTool: [] }), ToolHooks.none)
      // another service (another server in the process) keeps its own: nothing is module-level
      const other = yield* CommandHooks.make
      assert.notStrictEqual(other.forConfig(config), built)
    }).pipe(Effect.provide(CommandHooks.layer))
  )
})
