import { assert, describe, it } from "@effect/vitest"
import type { Config, ToolCallItem } from "@mcp-resources/protocol"
import { ResourceClient } from "@mcp-resources/resource-client"
import { ThreadStore } from "@mcp-resources/thread-store"
import { LifecycleSink, type ToolHandlers } from "@mcp-resources/tool-handlers"
import { Cause, Effect, Exit, Layer, Option } from "effect"
import * as CommandHooks from "../src/CommandHooks.js"
import { MethodError } from "../src/Method.js"
import { ResourceSubscriptions } from "../src/ResourceSubscriptions.js"
import { type Thread, Threads } from "../src/Threads.js"
import { ToolHost } from "../src/ToolHost.js"
import * as ToolHostModule from "../src/ToolHost.js"

const thread: Thread = { id: "t", ephemeral: true, createdAt: "2026-01-01T00:00:00.000Z", config: {} }

const item = { id: "c1", status: "inProgress" } as unknown as ToolCallItem.McpToolCallItem

const storeFull = new ThreadStore.ThreadStoreError({ reason: "storage", message: "disk full" })

/** The host over threads whose every append fails with `storeFull`, and whose history knows turn `u1` only. */
const host = (refreshed: Array<string>) =>
  ToolHostModule.layer.pipe(
    Layer.provide(
      Layer.mergeAll(
        CommandHooks.layer,
        Layer.succeed(Threads, {
          hasTurn: (_, turnId) => turnId === "u1",
          hasCall: () => false,
          refresh: (t) => Effect.sync(() => refreshed.push(t.id)),
          record: () => Effect.fail(storeFull),
          recordCompletion: () => Effect.fail(storeFull),
          withToolContext: (_, use) => use({} as ToolHandlers.ToolContext)
        } as Partial<Threads["Type"]> as Threads["Type"]),
        Layer.succeed(ResourceClient.ResourceClient, {
          config: Effect.succeed({} as Config.Config)
        } as Partial<ResourceClient.ResourceClient["Type"]> as ResourceClient.ResourceClient["Type"]),
        Layer.succeed(ResourceSubscriptions, {
          watch: () => ({}) as never
        } as Partial<ResourceSubscriptions["Type"]> as ResourceSubscriptions["Type"])
      )
    )
  )

const emitStarted = Effect.flatMap(LifecycleSink.LifecycleSink, (sink) => sink.emit({ phase: "started", item }))

describe("ToolHost", () => {
  it.effect("an item the store does not take fails the call with the store's error, typed (not a defect)", () => {
    const refreshed: Array<string> = []
    return Effect.gen(function* () {
      const tools = yield* ToolHost
      for (const run of [
        tools.toolCall(thread, { turnId: "u1", callId: "c1" }, () => emitStarted),
        tools.widgetCall(thread, "u1", () => emitStarted)
      ]) {
        const exit = yield* Effect.exit(run)
        assert.isTrue(Exit.isFailure(exit))
        if (Exit.isFailure(exit)) {
          assert.strictEqual(Option.getOrUndefined(Cause.failureOption(exit.cause)), storeFull)
          assert.isTrue(Option.isNone(Cause.dieOption(exit.cause)))
        }
      }
      assert.deepStrictEqual(refreshed, [])
    }).pipe(Effect.provide(host(refreshed)))
  })

  it.effect("a call of an unknown turn refreshes the thread once, then is refused before it runs", () => {
    const refreshed: Array<string> = []
    return Effect.gen(function* () {
      const tools = yield* ToolHost
      let ran = false
      const exit = yield* Effect.exit(
        tools.toolCall(thread, { turnId: "nope", callId: "c1" }, () => Effect.sync(() => (ran = true)))
      )
      assert.isFalse(ran)
      assert.deepStrictEqual(refreshed, ["t"])
      assert.isTrue(Exit.isFailure(exit))
      if (Exit.isFailure(exit)) {
        const error = Option.getOrUndefined(Cause.failureOption(exit.cause))
        assert.instanceOf(error, MethodError)
        assert.strictEqual(error?.message, "turn not found: nope")
      }
    }).pipe(Effect.provide(host(refreshed)))
  })
})
