/** The app-server source: what only a thread of a real app-server shows (turns, refusals, refresh). */
import { assert, describe, it } from "@effect/vitest"
import { AppServer, Messages } from "@mcp-resources/protocol"
import { Effect } from "effect"
import * as AiSdk from "../src/AiSdk.js"
import * as AppServerBinding from "../src/AppServerBinding.js"
import { spec, waitFor, withAppServer } from "./utils.js"

const names = async (source: AppServerBinding.AppServerBinding) =>
  (await AppServerBinding.listTools(source)).map((tool) => tool.name)

describe("an app-server thread as the source", () => {
  it.live(
    "calls run in the binding's turn; the app-server's refusal reaches the model as a failed call",
    () =>
      withAppServer("codex", async ({ binding, events }) => {
        const source = binding as AppServerBinding.AppServerBinding
        const { client, threadId } = source
        const service = "service" in client ? client.service : client
        const { turn } = await Effect.runPromise(service.request("turn/start", { threadId, turnId: "turn-a" }))
        let current = turn.id
        const inTurn: AppServerBinding.AppServerBinding = { ...source, turnId: () => current }
        const { tools } = await AiSdk.resourceTools(inTurn)
        const echo = (await AppServerBinding.listTools(inTurn)).find((tool) => tool.name === "mcp__srv__echo")!
        assert.deepStrictEqual(Object.keys(tools).slice(3), ["mcp__srv__echo", "mcp__srv__slow"])
        const ok = await echo.call(`{"text":"hi"}`, { callId: "a1" })
        assert.isTrue(ok.success)
        assert.deepStrictEqual(
          events.map((event) => [event.phase, event.item.id]),
          [
            ["started", "a1"],
            ["completed", "a1"]
          ]
        )
        // the same call id again in the thread's history: the app-server refuses the request itself
        assert.deepStrictEqual(await echo.call("{}", { callId: "a1" }), {
          output: AppServer.messages.duplicateCallId("a1"),
          success: false
        })
        current = "no-such-turn"
        assert.deepStrictEqual(await echo.call("{}", { callId: "a2" }), {
          output: AppServer.messages.turnNotFound("no-such-turn"),
          success: false
        })
        // an unknown tool is a normal failed result of tool/call, with the exact message
        current = turn.id
        const read = (await AppServerBinding.listTools(inTurn)).find((tool) => tool.name === "read_mcp_resource")!
        assert.deepStrictEqual(await AppServerBinding.callTool(inTurn, current, "no_such_tool", "{}"), {
          output: Messages.unsupportedCall("no_such_tool"),
          success: false
        })
        // broken argument text reaches the app-server as the model wrote it
        assert.deepStrictEqual(await read.call(`{"server":`, { callId: "a3" }), {
          output: Messages.args.invalidJson,
          success: false
        })
      }),
    60000
  )

  it.live(
    "a tool the server adds appears in the next listing (a new turn binds the refreshed catalog)",
    () => {
      const fixtureSpec = spec()
      return withAppServer(
        "codex",
        async ({ binding, fixture }) => {
          const source = binding as AppServerBinding.AppServerBinding
          assert.deepStrictEqual((await names(source)).slice(3), ["mcp__srv__echo", "mcp__srv__slow"])
          fixtureSpec.tools = [{ name: "second", description: "Second." }]
          await fixture.notify("notifications/tools/list_changed")
          let latest = await names(source)
          await waitFor(
            () => latest.includes("mcp__srv__second"),
            "the refreshed tool list",
            20000,
            async () => {
              latest = await names(source)
            }
          )
          assert.deepStrictEqual(latest.slice(3), ["mcp__srv__second"])
        },
        fixtureSpec
      )
    },
    60000
  )

  it.live(
    "an unknown thread: the listing rejects with the app-server's error",
    () =>
      withAppServer("codex", async ({ binding }) => {
        const error = await AppServerBinding.listTools({
          ...(binding as AppServerBinding.AppServerBinding),
          threadId: "nope"
        }).then(
          () => undefined,
          (e: unknown) => e
        )
        assert.instanceOf(error, Error)
        assert.strictEqual((error as Error).message, AppServer.messages.threadNotFound("nope"))
      }),
    60000
  )
})
