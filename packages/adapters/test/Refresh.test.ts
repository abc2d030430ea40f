/** The tool list follows the servers' catalogs: a `tools/list_changed` shows up in the next listing of every adapter. */
import { assert, describe, it } from "@effect/vitest"
import { connectInMemory, type FixtureSpec } from "@mcp-resources/fixtures"
import { Config, Messages } from "@mcp-resources/protocol"
import { ServerEntry } from "@mcp-resources/resource-client"
import { Effect } from "effect"
import * as AiSdk from "../src/AiSdk.js"
import * as Bridge from "../src/Bridge.js"
import * as LangChain from "../src/LangChain.js"
import * as OpenAiAgents from "../src/OpenAiAgents.js"
import { waitFor } from "./utils.js"

describe("refresh and bindings", () => {
  it.live(
    "a tool added on the server appears after tools/list_changed; a removed one is refused by name",
    () =>
      Effect.acquireUseRelease(
        Effect.sync(() => {
          const spec: FixtureSpec = { tools: [{ name: "first", description: "First." }] }
          return { spec, fixture: connectInMemory(spec) }
        }),
        ({ spec, fixture }) =>
          Effect.promise(async () => {
            const thread = await Bridge.connect(Config.empty, { servers: [ServerEntry.memory("srv", fixture.connect)] })
            try {
              const names = async () => (await Bridge.listTools(thread)).map((tool) => tool.name)
              assert.deepStrictEqual((await names()).slice(3), ["mcp__srv__first"])
              spec.tools = [{ name: "second", description: "Second." }]
              await fixture.notify("notifications/tools/list_changed")
              let latest = await names()
              await waitFor(
                () => latest.includes("mcp__srv__second"),
                "the refreshed catalog",
                20000,
                async () => {
                  latest = await names()
                }
              )
              assert.deepStrictEqual(latest.slice(3), ["mcp__srv__second"])
              assert.deepStrictEqual(Object.keys((await AiSdk.resourceTools(thread)).tools).slice(3), [
                "mcp__srv__second"
              ])
              assert.deepStrictEqual((await OpenAiAgents.resourceTools(thread)).map((tool) => tool.name).slice(3), [
                "mcp__srv__second"
              ])
              assert.deepStrictEqual((await LangChain.resourceTools(thread)).map((tool) => tool.name).slice(3), [
                "mcp__srv__second"
              ])
              // a call the model makes to the tool that went away gets the unsupported-call message
              assert.deepStrictEqual(await Bridge.callTool(thread, "mcp__srv__first", "{}"), {
                output: Messages.unsupportedCall("mcp__srv__first"),
                success: false
              })
            } finally {
              await thread.close()
            }
          }),
        ({ fixture }) => Effect.promise(() => fixture.closeAll())
      ),
    60000
  )

  it.live("Bridge.connect rejects a config that is not valid, naming what is wrong", () =>
    Effect.promise(async () => {
      const error = await Bridge.connect("[mcp_servers.docs]\nurl = 7\n").then(
        () => undefined,
        (e: unknown) => e
      )
      assert.instanceOf(error, Error)
      assert.include((error as Error).message, "url")
    })
  )

  it.live("without an enabled server there are no tools", () =>
    Effect.promise(async () => {
      const thread = await Bridge.connect(Config.empty)
      try {
        assert.deepStrictEqual(await Bridge.listTools(thread), [])
        assert.deepStrictEqual((await AiSdk.resourceTools(thread)).tools, {})
      } finally {
        await thread.close()
      }
    })
  )
})
