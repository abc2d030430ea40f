/** ToolHooks in code around the model tools, over real in-memory fixture servers (docs/policy.md). */
import { assert, describe, it } from "@effect/vitest"
import { AppServer, Messages, type ToolHook } from "@mcp-resources/protocol"
import { Deferred, Effect, Fiber, Layer, Ref } from "effect"
import fc from "fast-check"
import { LifecycleSink, ToolHandlers, ToolHooks } from "../src/index.js"
import { harness } from "./utils/harness.js"

const spec = {
  resourcePages: [
    {
      result: {
        resources: [
          { uri: "mem://a", name: "a" },
          { uri: "mem://secret", name: "s" }
        ]
      }
    }
  ],
  reads: [
    { uri: "mem://a", result: { contents: [{ uri: "mem://a", text: "token=hunter2 ok" }] } },
    { uri: "mem://b", result: { contents: [{ uri: "mem://b", text: "B" }] } }
  ],
  tools: [
    { name: "echo", result: { content: [{ type: "text", text: "echo hunter2" }] } },
    {
      name: "card",
      _meta: { ui: { resourceUri: "ui://srv/card.html" } },
      result: {
        content: [{ type: "text", text: "card for hunter2" }],
        structuredContent: { owner: "ann", token: "hunter2", items: ["x", "hunter2 y"] }
      }
    }
  ]
}

/** A resource whose secret straddles the byte 3000: a window ending there shows half of it. */
const secret = "SECRET-123"
const windowSpec = {
  reads: [
    {
      uri: "mem://long",
      result: { contents: [{ uri: "mem://long", text: `${"a".repeat(2995)}${secret}${"b".repeat(3000)}` }] }
    }
  ]
}

const run = (ctx: ToolHandlers.ToolContext, hooks: ToolHooks.Service, name: string, args: unknown) =>
  Effect.gen(function* () {
    const audits = yield* Ref.make<ReadonlyArray<ToolHook.ToolAudit>>([])
    const output = yield* ToolHandlers.callTool(ctx, {
      callId: "c1",
      name,
      arguments: typeof args === "string" ? args : JSON.stringify(args)
    }).pipe(
      Effect.provide(
        Layer.mergeAll(
          ToolHooks.layer(hooks),
          Layer.succeed(ToolHooks.ToolAuditLog, { record: (a) => Ref.update(audits, (all) => [...all, a]) })
        )
      )
    )
    const events = yield* LifecycleSink.recorded
    return { output, events, audits: yield* Ref.get(audits) }
  }).pipe(Effect.provide(LifecycleSink.layerRecorder))

describe("ToolHooks", () => {
  it.scoped("the default layer (no hooks) changes nothing", () =>
    Effect.gen(function* () {
      const { ctx } = yield* harness({ srv: { spec } })
      const plain = yield* ToolHandlers.callTool(ctx, {
        callId: "c1",
        name: "read_mcp_resource",
        arguments: JSON.stringify({ server: "srv", uri: "mem://a" })
      }).pipe(Effect.provide(LifecycleSink.layerNoop))
      const hooked = yield* ToolHandlers.callTool(ctx, {
        callId: "c1",
        name: "read_mcp_resource",
        arguments: JSON.stringify({ server: "srv", uri: "mem://a" })
      }).pipe(Effect.provide(Layer.merge(LifecycleSink.layerNoop, ToolHooks.layerNone)))
      assert.deepStrictEqual(hooked, plain)
    })
  )

  it.scoped("deny: the reason is the output, no request, started and failed completed items recorded", () =>
    Effect.gen(function* () {
      const { ctx, fixtures } = yield* harness({ srv: { spec } })
      const before = fixtures.srv!.requests.length
      const { output, events, audits } = yield* run(
        ctx,
        { before: () => Effect.succeed({ decision: "deny", reason: "no reads today" }) },
        "read_mcp_resource",
        { server: "srv", uri: "mem://a" }
      )
      assert.deepStrictEqual(output, { output: Messages.policy.hookDenied("no reads today"), success: false })
      assert.strictEqual(fixtures.srv!.requests.length, before)
      assert.deepStrictEqual(
        events.map((e) => [e.phase, e.item.status, e.item.server, e.item.arguments]),
        [
          ["started", "inProgress", "srv", { server: "srv", uri: "mem://a" }],
          ["completed", "failed", "srv", { server: "srv", uri: "mem://a" }]
        ]
      )
      assert.strictEqual(audits.length, 1)
      assert.strictEqual(audits[0]!.serverRequest, false)
      assert.deepStrictEqual(audits[0]!.before, [{ hook: "hook", decision: "deny", reason: "no reads today" }])
    })
  )

  it.scoped(
    "rewrite: the call goes on with the new arguments, the item keeps the model's, the audit has the rewrite",
    () =>
      Effect.gen(function* () {
        const { ctx } = yield* harness({ srv: { spec } })
        const { output, events, audits } = yield* run(
          ctx,
          { before: () => Effect.succeed({ decision: "rewrite", arguments: { server: "srv", uri: "mem://b" } }) },
          "read_mcp_resource",
          { server: "srv", uri: "mem://a" }
        )
        assert.isTrue(output.success)
        assert.include(output.output, '"text":"B"')
        assert.deepStrictEqual(
          events.map((e) => e.item.arguments),
          [
            { server: "srv", uri: "mem://a" },
            { server: "srv", uri: "mem://a" }
          ]
        )
        assert.deepStrictEqual(audits[0]!.before, [
          { hook: "hook", decision: "rewrite", arguments: { server: "srv", uri: "mem://b" } }
        ])
        assert.isTrue(audits[0]!.serverRequest)
      })
  )

  it.scoped("after: redact replaces the strings in the output and the stored item; replace sets the output", () =>
    Effect.gen(function* () {
      const { ctx } = yield* harness({ srv: { spec } })
      const redacted = yield* run(
        ctx,
        { after: () => Effect.succeed({ decision: "redact", redact: ["hunter2"] }) },
        "mcp__srv__echo",
        {}
      )
      assert.deepStrictEqual(redacted.output.success, true)
      assert.notInclude(redacted.output.output, "hunter2")
      assert.include(redacted.output.output, "[redacted]")
      const completed = redacted.events.find((e) => e.phase === "completed")!
      assert.notInclude(JSON.stringify(completed.item), "hunter2")
      assert.deepStrictEqual(redacted.audits[0]!.after, [{ hook: "after", decision: "redact", redactions: 1 }])
      const replaced = yield* run(
        ctx,
        { after: () => Effect.succeed({ decision: "replace", output: "nothing to see", success: false }) },
        "read_mcp_resource",
        { server: "srv", uri: "mem://a" }
      )
      assert.deepStrictEqual(replaced.output, { output: "nothing to see", success: false })
      assert.strictEqual(replaced.events.find((e) => e.phase === "completed")!.item.status, "failed")
    })
  )

  it.scoped("a failing before hook refuses the call; a failing after hook withholds the output", () =>
    Effect.gen(function* () {
      const { ctx } = yield* harness({ srv: { spec } })
      const refused = yield* run(
        ctx,
        { before: () => Effect.fail(new ToolHooks.HookError({ message: "boom" })) },
        "list_mcp_resources",
        {}
      )
      assert.deepStrictEqual(refused.output, { output: Messages.policy.beforeHookFailed("boom"), success: false })
      const died = yield* run(ctx, { before: () => Effect.die(new Error("defect")) }, "list_mcp_resources", {})
      assert.deepStrictEqual(died.output, { output: Messages.policy.beforeHookFailed("defect"), success: false })
      const withheld = yield* run(
        ctx,
        { after: () => Effect.fail(new ToolHooks.HookError({ message: "crashed" })) },
        "read_mcp_resource",
        { server: "srv", uri: "mem://a" }
      )
      assert.deepStrictEqual(withheld.output, { output: Messages.policy.afterHookFailed("crashed"), success: false })
      const item = withheld.events.find((e) => e.phase === "completed")!.item
      assert.deepStrictEqual(
        [item.status, item.result, item.error],
        ["failed", null, { message: Messages.policy.afterHookFailed("crashed") }]
      )
      assert.notInclude(JSON.stringify(withheld.events), "hunter2")
    })
  )

  it.scoped("a deny without a reason is a deny with one, never a failure of the hook", () =>
    Effect.gen(function* () {
      const { ctx } = yield* harness({ srv: { spec } })
      const { output, audits } = yield* run(
        ctx,
        { before: () => Effect.succeed({ decision: "deny" }) },
        "read_mcp_resource",
        { server: "srv", uri: "mem://a" }
      )
      assert.deepStrictEqual(output, {
        output: Messages.policy.hookDenied("the before hook denied the call"),
        success: false
      })
      assert.deepStrictEqual(audits[0]!.before, [
        { hook: "hook", decision: "deny", reason: "the before hook denied the call" }
      ])
    })
  )

  it.scoped("the hook sees the caller: the model's calls say model", () =>
    Effect.gen(function* () {
      const { ctx } = yield* harness({ srv: { spec } })
      const seen: Array<ToolHooks.HookCall> = []
      yield* run(
        ctx,
        { before: (call) => Effect.sync(() => seen.push(call)).pipe(Effect.as({ decision: "allow" as const })) },
        "mcp__srv__echo",
        {}
      )
      assert.deepStrictEqual(seen, [
        { callId: "c1", name: "mcp__srv__echo", server: "srv", caller: "model", arguments: {} }
      ])
    })
  )

  it.scoped("redaction keeps a widget result's structuredContent, with the strings redacted in it too", () =>
    Effect.gen(function* () {
      const { ctx } = yield* harness({ srv: { spec } })
      const { output, events } = yield* run(
        ctx,
        { after: () => Effect.succeed({ decision: "redact", redact: ["hunter2"] }) },
        "mcp__srv__card",
        {}
      )
      assert.notInclude(output.output, "hunter2")
      const item = events.find((e) => e.phase === "completed")!.item
      assert.strictEqual(item.mcpAppResourceUri, "ui://srv/card.html")
      assert.deepStrictEqual(item.result, {
        content: [{ type: "text", text: "card for [redacted]" }],
        structuredContent: { owner: "ann", token: "[redacted]", items: ["x", "[redacted] y"] }
      })
    })
  )

  it.scoped("windows are cut from the redacted text: a secret across a window's edge is not shown in halves", () =>
    Effect.gen(function* () {
      const { ctx } = yield* harness({ srv: { spec: windowSpec } })
      const extended = { ...ctx, profile: "extended" as const }
      const seen: Array<string> = []
      const hooks: ToolHooks.Service = {
        after: (_call, output) =>
          Effect.sync(() => seen.push(output.output)).pipe(Effect.as({ decision: "redact" as const, redact: [secret] }))
      }
      const first = yield* run(extended, hooks, "read_mcp_resource", {
        server: "srv",
        uri: "mem://long",
        offset: 2995,
        length: 5
      })
      const next = /call read_mcp_resource with offset (\d+)/.exec(first.output.output)
      assert.isNotNull(next, first.output.output)
      const second = yield* run(extended, hooks, "read_mcp_resource", {
        server: "srv",
        uri: "mem://long",
        offset: Number(next![1]),
        length: 10
      })
      const shown = [first, second].map((r) => r.output.output)
      for (const text of shown) {
        for (const half of ["SECRE", "ECRET", "T-123", "-123", "SEC"]) assert.notInclude(text, half, text)
      }
      assert.include(shown.join(""), "[reda")
      assert.include(shown.join(""), "cted]")
      // the hook judged the whole text, not the window
      assert.isTrue(seen.every((text) => text.includes(secret)))
      // the stored items do not have it either
      for (const { events } of [first, second]) assert.notInclude(JSON.stringify(events), "SECRE")
    })
  )

  it.scoped("a call cancelled while its before hook runs has its started item and a cancelled completion", () =>
    Effect.gen(function* () {
      const { ctx, fixtures } = yield* harness({ srv: { spec } })
      const requests = fixtures.srv!.requests.length
      const running = yield* Deferred.make<void>()
      const hooks: ToolHooks.Service = {
        before: () => Effect.zipRight(Deferred.succeed(running, undefined), Effect.never)
      }
      const fiber = yield* ToolHandlers.callTool(ctx, {
        callId: "c1",
        name: "read_mcp_resource",
        arguments: JSON.stringify({ server: "srv", uri: "mem://a" })
      }).pipe(Effect.provide(ToolHooks.layer(hooks)), Effect.fork)
      yield* Deferred.await(running)
      // the started item is out before the hook runs
      assert.deepStrictEqual(
        (yield* LifecycleSink.recorded).map((e) => e.phase),
        ["started"]
      )
      yield* Fiber.interrupt(fiber)
      const events = yield* LifecycleSink.recorded
      assert.deepStrictEqual(
        events.map((e) => [e.phase, e.item.status, e.item.error]),
        [
          ["started", "inProgress", null],
          ["completed", "failed", { message: AppServer.messages.callCancelled }]
        ]
      )
      assert.strictEqual(fixtures.srv!.requests.length, requests)
    }).pipe(Effect.provide(LifecycleSink.layerRecorder))
  )

  it.scoped("property: any hook decision or failure yields a model-facing output and two items", () =>
    Effect.gen(function* () {
      const { ctx } = yield* harness({ srv: { spec } })
      const before = fc.oneof(
        fc.constant({ decision: "allow" as const }),
        fc.record({ decision: fc.constant("deny" as const), reason: fc.string() }),
        fc.record({
          decision: fc.constant("rewrite" as const),
          arguments: fc.dictionary(fc.string(), fc.jsonValue())
        }),
        fc.constant("fail" as const),
        fc.constant("die" as const)
      )
      const after = fc.oneof(
        fc.constant({ decision: "pass" as const }),
        fc.record({ decision: fc.constant("redact" as const), redact: fc.array(fc.string({ minLength: 1 })) }),
        fc.record({ decision: fc.constant("replace" as const), output: fc.string() }),
        fc.constant("fail" as const)
      )
      const tool = fc.constantFrom("list_mcp_resources", "read_mcp_resource", "mcp__srv__echo")
      const samples = fc.sample(fc.tuple(before, after, tool, fc.jsonValue()), 60)
      for (const [b, a, name, args] of samples) {
        const hooks: ToolHooks.Service = {
          before: () =>
            b === "fail"
              ? Effect.fail(new ToolHooks.HookError({ message: "x" }))
              : b === "die"
                ? Effect.die("y")
                : Effect.succeed(b),
          after: () => (a === "fail" ? Effect.fail(new ToolHooks.HookError({ message: "z" })) : Effect.succeed(a))
        }
        const { output, events } = yield* run(ctx, hooks, name, JSON.stringify(args))
        assert.isString(output.output)
        assert.isBoolean(output.success)
        // a call that got past argument checks has exactly a started and a completed item
        assert.include([0, 2], events.length)
        if (events.length === 2)
          assert.deepStrictEqual(
            events.map((e) => e.phase),
            ["started", "completed"]
          )
      }
    })
  )
})
