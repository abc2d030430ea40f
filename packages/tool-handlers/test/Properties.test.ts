import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import fc from "fast-check"
import { LifecycleSink, ToolHandlers } from "../src/index.js"
import { harness, resources } from "./utils/harness.js"

const rawText = fc.oneof(
  fc.string({ unit: "binary" }),
  fc.json(),
  fc.constantFrom("", "null", "{}", "[]", `{"server":"srv"}`, `{"server":"srv","cursor":"c"}`),
  fc
    .record(
      {
        server: fc.oneof(fc.constantFrom("srv", " srv ", "nope", "", "codex_apps"), fc.jsonValue()),
        cursor: fc.oneof(fc.string(), fc.jsonValue()),
        uri: fc.oneof(fc.constantFrom("test://x", " test://x ", "test://missing"), fc.jsonValue())
      },
      { requiredKeys: [] }
    )
    .map((o) => JSON.stringify(o))
)
const toolName = fc.constantFrom(
  "list_mcp_resources",
  "list_mcp_resource_templates",
  "read_mcp_resource",
  "mcp__srv__echo",
  "mcp__srv__nope",
  "other"
)

describe("handler properties", () => {
  it.live("any raw argument text yields an output with a success flag, never a thrown error or a hang", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const { ctx } = yield* harness(
          {
            srv: {
              spec: {
                ...resources([{ uri: "memo://id", name: "memo" }]),
                reads: [{ uri: "test://x", result: { contents: [{ uri: "test://x", text: "hi" }] } }],
                tools: [{ name: "echo" }]
              }
            },
            codex_apps: { spec: resources([]) }
          },
          { orchestratorMcpEnabled: false }
        )
        const runtime = yield* Layer.toRuntime(LifecycleSink.layerRecorder)
        yield* Effect.promise(() =>
          fc.assert(
            fc.asyncProperty(toolName, rawText, async (name, text) => {
              const result = await Effect.runPromise(
                ToolHandlers.callTool(ctx, { callId: "p", name, arguments: text }).pipe(
                  Effect.provide(runtime),
                  Effect.timeoutFail({ duration: "5 seconds", onTimeout: () => new Error("the call hung") })
                )
              )
              assert.isString(result.output)
              assert.isBoolean(result.success)
              if (!result.success) assert.notStrictEqual(result.output, "")
            }),
            { numRuns: 300 }
          )
        )
      })
    )
  )

  it.live("aggregate output is sorted by server whatever order the servers answer in", () =>
    Effect.promise(() =>
      fc.assert(
        fc.asyncProperty(
          fc.uniqueArray(fc.stringMatching(/^[A-Za-z0-9_-]{1,8}$/), { minLength: 1, maxLength: 5 }),
          fc.array(fc.nat({ max: 15 }), { minLength: 5, maxLength: 5 }),
          async (names, delays) => {
            const servers = Object.fromEntries(
              names.map((name, i) => [
                name,
                {
                  spec: {
                    resourcePages: [
                      {
                        delayMs: delays[i]!,
                        result: {
                          resources: [
                            { uri: `memo://${name}/1`, name: "1" },
                            { uri: `memo://${name}/2`, name: "2" }
                          ]
                        }
                      }
                    ]
                  }
                }
              ])
            )
            const output = await Effect.runPromise(
              Effect.scoped(
                Effect.flatMap(harness(servers), ({ ctx }) =>
                  ToolHandlers.callTool(ctx, { callId: "p", name: "list_mcp_resources", arguments: "{}" })
                )
              ).pipe(Effect.provide(LifecycleSink.layerNoop))
            )
            const entries: Array<{ server: string; uri: string }> = JSON.parse(output.output).resources
            const sorted = [...names].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)))
            assert.deepStrictEqual(
              entries.map((e) => e.uri),
              sorted.flatMap((name) => [`memo://${name}/1`, `memo://${name}/2`])
            )
          }
        ),
        { numRuns: 25 }
      )
    )
  )
})
