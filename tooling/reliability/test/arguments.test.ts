/**
 * Bad input on raw tool arguments: 10,000 fast-check cases for each of the three resource tools and for
 * MCP tool calls, through `ToolHandlers.callTool` against in-memory fixture servers. Every case ends
 * within its timeout with `{output, success}`: a success, or a failure the model reads. Never a defect,
 * never a hang, and items come in matched pairs (none, or one started and one completed).
 */
import { connectInMemory, type FixtureSpec, widgetAppsSpec } from "@mcp-resources/fixtures"
import { Config } from "@mcp-resources/protocol"
import { ResourceClient, ServerEntry } from "@mcp-resources/resource-client"
import { LifecycleSink, ToolHandlers } from "@mcp-resources/tool-handlers"
import { Cause, Duration, Effect, Exit, Layer, Logger, LogLevel, ManagedRuntime } from "effect"
import fc from "fast-check"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Figures } from "../src/index.js"
import { rawArguments } from "./utils/arbitraries.js"

const numRuns = 10_000
const caseTimeout = Duration.seconds(5)

const srvSpec: FixtureSpec = {
  name: "srv",
  resourcePages: [
    { result: { resources: [{ uri: "test://x", name: "x" }], nextCursor: "p2" } },
    { cursor: "p2", result: { resources: [{ uri: "test://y", name: "y" }] } }
  ],
  templatePages: [{ result: { resourceTemplates: [{ uriTemplate: "test://{id}", name: "t" }] } }],
  reads: [{ uri: "test://x", result: { contents: [{ uri: "test://x", mimeType: "text/plain", text: "hi" }] } }],
  tools: [{ name: "echo", inputSchema: { type: "object", properties: { query: { type: "string" } } } }]
}
const betaSpec: FixtureSpec = {
  name: "beta",
  resourcePages: [{ error: { code: -32603, message: "boom" } }],
  templatePages: [{ error: { code: -32603, message: "boom" } }],
  tools: [{ name: "fails", error: { code: -32603, message: "tool boom" } }]
}

const fixtures = [
  ["srv", connectInMemory(srvSpec)],
  ["beta", connectInMemory(betaSpec)],
  ["codex_apps", connectInMemory(widgetAppsSpec())]
] as const

const servers = ["srv", "beta", "codex_apps", "nope", " srv ", "", "   ", "SRV"]
const uris = ["test://x", " test://x ", "test://missing", "ui://widget/checkout-session.html", "", "  "]
const cursors = ["p2", "  p2  ", "nope", "", " "]

/** Failures a model may read: the exact message families of resource-tools.md sections 5–11. */
const modelFacingFailure = [
  /^failed to parse function arguments: (arguments are not valid JSON|expected a JSON object, got (null|boolean|number|string|array)|field "(server|cursor|uri)" must be a string, got (null|boolean|number|string|array|object)|missing required field "(server|uri)"|arguments are nested deeper than 128 levels)$/,
  /^(server|uri) must be provided$/,
  /^cursor can only be used when a server is specified$/,
  /^resources\/list failed: /,
  /^resources\/templates\/list failed: /,
  /^resources\/read failed: /,
  /^tools\/call failed: /,
  /^MCP server '.*' is disabled by `orchestrator\.mcp\.enabled`$/s,
  /^unsupported call: /s
]

const isModelFacing = (output: string): boolean => {
  if (modelFacingFailure.some((re) => re.test(output))) return true
  // An MCP tool result with isError: true is its JSON text (success false).
  try {
    return (JSON.parse(output) as { isError?: unknown }).isError === true
  } catch {
    return false
  }
}

let runtime: ManagedRuntime.ManagedRuntime<ResourceClient.ResourceClient, never>
let ctx: ToolHandlers.ToolContext

beforeAll(async () => {
  const config = Config.empty
  runtime = ManagedRuntime.make(
    ResourceClient.layer({
      config,
      servers: fixtures.map(([name, fixture]) => ServerEntry.memory(name, fixture.connect, { toolTimeoutSec: 5 }))
    }).pipe(Layer.provideMerge(Logger.minimumLogLevel(LogLevel.None)))
  )
  const set = await runtime.runPromise(
    Effect.flatMap(ResourceClient.ResourceClient, (client) => client.latest).pipe(
      Effect.tap((set) => set.awaitAllSettled)
    )
  )
  ctx = { set, config, orchestratorMcpEnabled: true, truncation: config.truncation }
})

afterAll(async () => {
  await runtime?.dispose()
  await Promise.all(fixtures.map(([, fixture]) => fixture.closeAll()))
})

interface Outcome {
  readonly output: string
  readonly success: boolean
  readonly items: ReadonlyArray<LifecycleSink.LifecycleEvent>
}

let callCounter = 0

/** One call, bounded by `caseTimeout`; rejects on a defect, a hang or an unmatched item. */
const call = async (name: string, args: string): Promise<Outcome> => {
  const items: Array<LifecycleSink.LifecycleEvent> = []
  const callId = `c-${++callCounter}`
  const exit = await runtime.runPromiseExit(
    ToolHandlers.callTool(ctx, { callId, name, arguments: args }).pipe(
      Effect.timeoutFail({ duration: caseTimeout, onTimeout: () => new Error(`no answer within 5s`) }),
      Effect.provide(
        Layer.succeed(LifecycleSink.LifecycleSink, { emit: (event) => Effect.sync(() => items.push(event)) })
      )
    )
  )
  if (Exit.isFailure(exit))
    throw new Error(`${name} ${JSON.stringify(args.slice(0, 200))}: ${Cause.pretty(exit.cause)}`)
  const { output, success } = exit.value
  return { output, success, items }
}

const checkOutcome = (name: string, args: string, outcome: Outcome): void => {
  const where = `${name}(${JSON.stringify(args.slice(0, 120))}) → ${JSON.stringify(outcome.output.slice(0, 200))}`
  expect(typeof outcome.output, where).toBe("string")
  expect(typeof outcome.success, where).toBe("boolean")
  if (!outcome.success) expect(isModelFacing(outcome.output), where).toBe(true)
  else expect(outcome.output.length, where).toBeGreaterThan(0)
  // Items: none (phase 1 refusal or unknown name) or exactly started then completed, same id.
  if (outcome.items.length > 0) {
    expect(
      outcome.items.map((e) => e.phase),
      where
    ).toEqual(["started", "completed"])
    expect(outcome.items[0]!.item.id, where).toBe(outcome.items[1]!.item.id)
    const completed = outcome.items[1]!.item
    if (!outcome.success && completed.error !== null) expect(completed.error.message, where).toBe(outcome.output)
  }
}

const fuzz = async (label: string, names: fc.Arbitrary<string>, args: fc.Arbitrary<string>) => {
  const tally = { success: 0, failure: 0 }
  const started = Date.now()
  await fc.assert(
    fc.asyncProperty(names, args, async (name, raw) => {
      const outcome = await call(name, raw)
      checkOutcome(name, raw, outcome)
      tally[outcome.success ? "success" : "failure"]++
    }),
    { numRuns }
  )
  Figures.add("arguments", {
    [`cases ${label}`]: numRuns,
    [`${label}: successes`]: tally.success,
    [`${label}: model-facing failures`]: tally.failure
  })
  Figures.note(
    "arguments",
    `${label}: ${numRuns} cases in ${((Date.now() - started) / 1000).toFixed(1)} s, each bounded by 5 s`
  )
  // Both outcomes must actually be exercised, or the generator is not doing its job.
  expect(tally.success).toBeGreaterThan(numRuns / 100)
  expect(tally.failure).toBeGreaterThan(numRuns / 100)
}

describe("raw tool arguments never throw or hang", () => {
  it("list_mcp_resources: 10,000 cases are each a success or a model-facing failure", async () => {
    await fuzz(
      "list_mcp_resources",
      fc.constant("list_mcp_resources"),
      rawArguments({ server: servers, cursor: cursors })
    )
  }, 180_000)

  it("list_mcp_resource_templates: 10,000 cases are each a success or a model-facing failure", async () => {
    await fuzz(
      "list_mcp_resource_templates",
      fc.constant("list_mcp_resource_templates"),
      rawArguments({ server: servers, cursor: cursors })
    )
  }, 180_000)

  it("read_mcp_resource: 10,000 cases are each a success or a model-facing failure", async () => {
    await fuzz("read_mcp_resource", fc.constant("read_mcp_resource"), rawArguments({ server: servers, uri: uris }))
  }, 180_000)

  it("MCP tools (mcp__server__tool): 10,000 cases are each a success or a model-facing failure", async () => {
    await fuzz(
      "mcp tools",
      fc.oneof(
        {
          weight: 8,
          arbitrary: fc.constantFrom(
            "mcp__srv__echo",
            "mcp__beta__fails",
            "mcp__codex_apps__best_buy_product_search",
            "mcp__codex_apps__walmart_product_search"
          )
        },
        { weight: 1, arbitrary: fc.constantFrom("mcp__srv__nope", "mcp__nope__echo", "mcp__", "", "echo") },
        { weight: 1, arbitrary: fc.string({ unit: "binary", maxLength: 70 }) }
      ),
      rawArguments({ query: ["tv", "fail", ""] })
    )
  }, 180_000)
})
