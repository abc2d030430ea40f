/**
 * One owner of the resource rules (docs/policy.md, `ResourcePolicy.access` / `guardRead`): every path
 * that lists or reads a resource — the model's list and read tools, the direct read on a thread, the
 * threadless read, the widget reads, the skills reads — hides or refuses the same rule-denied resource,
 * with the same message, before any request reaches the server. In process, one table.
 */
import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { cartWidgetUri, readLog, shopDataUri, shopWidgetSpec, skillsSpec, stdioCommand } from "@mcp-resources/fixtures"
import { Messages } from "@mcp-resources/protocol"
import { Effect } from "effect"
import { tempDir, writeConfig } from "./utils/AppServerProcess.js"
import { type Message, resultOf, startInProcess, threadIdOf, waitSettled } from "./utils/InProcess.js"

process.env.MCP_RESOURCES_LOG = "error"

const guideUri = "skill://plugin_demo/deploy/references/guide.md"
const mainUri = "skill://plugin_demo/deploy/SKILL.md"

/** How a path answered a read: its refusal text, or `"answered"`. */
const refusalOf = (message: Message): string => {
  if (message.error !== undefined) return message.error.message
  const result = message.result as Record<string, unknown>
  // a model tool answers a refusal as a failed output
  if (result.success === false) return String(result.output)
  return "answered"
}

describe("resource rules: one owner for every path", () => {
  it.scopedLive("each path hides or refuses the same denied resource, with the same message, before any request", () =>
    Effect.gen(function* () {
      const dataDir = tempDir()
      const shopLog = join(dataDir, "shop.log")
      const appsLog = join(dataDir, "apps.log")
      const server = yield* startInProcess({
        dataDir,
        configPath: writeConfig(dataDir, {
          resources: { deny: [cartWidgetUri, "skill://plugin_demo/deploy/references/**"] },
          mcp_servers: {
            shop: stdioCommand(shopWidgetSpec(), { logFile: shopLog }),
            codex_apps: stdioCommand(skillsSpec(), { logFile: appsLog })
          }
        })
      })
      yield* waitSettled(server)
      // the thread adds its own deny pattern: it applies to every read on the thread, skills reads included
      const threadId = threadIdOf(yield* server.request("thread/start", { config: { resources: { deny: [mainUri] } } }))
      resultOf(yield* server.request("turn/start", { threadId, turnId: "t1" }))
      const tool = (callId: string, name: string, args: unknown) =>
        server.request("tool/call", { threadId, turnId: "t1", callId, name, arguments: JSON.stringify(args) })
      // the originating call of the widget reads: its widget is the denied cart
      assert.isTrue(resultOf(yield* tool("cart-call", "mcp__shop__show_cart", {})).success as boolean)

      // the model's list leaves the denied entry out and keeps the allowed one
      const listed = String(resultOf(yield* tool("l1", "list_mcp_resources", { server: "shop" })).output)
      assert.notInclude(listed, cartWidgetUri)
      assert.include(listed, shopDataUri)

      const paths: ReadonlyArray<{
        readonly path: string
        readonly uri: string
        readonly ask: () => Effect.Effect<Message, unknown>
      }> = [
        {
          path: "model read",
          uri: cartWidgetUri,
          ask: () => tool("r1", "read_mcp_resource", { server: "shop", uri: cartWidgetUri })
        },
        {
          path: "direct read on a thread",
          uri: cartWidgetUri,
          ask: () => server.request("mcp/resource/read", { threadId, server: "shop", uri: cartWidgetUri })
        },
        {
          path: "threadless read",
          uri: cartWidgetUri,
          ask: () => server.request("mcp/resource/read", { server: "shop", uri: cartWidgetUri })
        },
        {
          path: "widget read",
          uri: cartWidgetUri,
          ask: () => server.request("mcp/widget/read", { threadId, callId: "cart-call" })
        },
        {
          path: "widget's own read",
          uri: cartWidgetUri,
          ask: () => server.request("mcp/widget/readResource", { threadId, callId: "cart-call", uri: cartWidgetUri })
        },
        {
          path: "skills read",
          uri: guideUri,
          ask: () =>
            server.request("skills/read", { threadId, package: "skill://plugin_demo/deploy", resource: guideUri })
        },
        {
          path: "skills read (the thread's own deny)",
          uri: mainUri,
          ask: () =>
            server.request("skills/read", { threadId, package: "skill://plugin_demo/deploy", resource: mainUri })
        },
        {
          path: "skills extension read",
          uri: guideUri,
          ask: () => server.request("skills/extension/read", { server: "codex_apps", uri: guideUri })
        },
        {
          path: "model read of a skill file",
          uri: guideUri,
          ask: () => tool("r2", "read_mcp_resource", { server: "codex_apps", uri: guideUri })
        }
      ]
      for (const { path, uri, ask } of paths) {
        assert.strictEqual(refusalOf(yield* ask()), Messages.policy.readDenied(uri), path)
      }
      // the same thread-denied skill file is readable without the thread (the thread's rule is its own)
      assert.strictEqual(
        refusalOf(yield* server.request("mcp/resource/read", { server: "codex_apps", uri: mainUri })),
        "answered"
      )
      // no denied URI ever reached a server
      const reads = (log: string) =>
        readLog(log)
          .filter((r) => r.method === "resources/read")
          .map((r) => (r.params as { uri: string }).uri)
      assert.deepStrictEqual(reads(shopLog), [])
      assert.deepStrictEqual(reads(appsLog), [mainUri])
    })
  )
})
