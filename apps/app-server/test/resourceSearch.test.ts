/**
 * `mcp/resource/search` in process against stdio catalog servers: ranked matches on the latest set and
 * on a thread's binding (its resource rules apply), argument refusals as `-32600`, and the result
 * valid against the published JSON Schema; the model tool `search_mcp_resources` on an extended
 * thread (listed after the other resource tools, not on codex), with its items and the thread's rules.
 */
import { readFileSync } from "node:fs"
import { assert, describe, it } from "@effect/vitest"
import { catalogSpec, searchCatalog, stdioCommand } from "@mcp-resources/fixtures"
import { Ajv } from "ajv"
import { Effect } from "effect"
import { tempDir, writeConfig } from "./utils/AppServerProcess.js"
import { resultOf, startInProcess, threadIdOf } from "./utils/InProcess.js"

process.env.MCP_RESOURCES_LOG = "error"

const document = JSON.parse(readFileSync(new URL("../schemas/app-server.schema.json", import.meta.url), "utf8")) as {
  "x-methods": Record<string, { params: { $ref: string }; result: { $ref: string } }>
}
const ajv = new Ajv({ strict: true, allErrors: true })
ajv.addVocabulary(["x-protocolVersion", "x-methods", "x-notifications", "x-clientNotifications", "x-serverRequests"])
ajv.addSchema(document, "app-server")
const valid = (kind: "params" | "result", value: unknown): boolean =>
  ajv.getSchema(`app-server${document["x-methods"]["mcp/resource/search"]![kind].$ref}`)!(value) === true

const catalog = searchCatalog(45, 0.05)

describe("mcp/resource/search", () => {
  it.scopedLive("ranks every server's resources; a thread's rules hide what they deny; bad arguments are -32600", () =>
    Effect.gen(function* () {
      const dataDir = tempDir()
      const server = yield* startInProcess({
        dataDir,
        configPath: writeConfig(dataDir, {
          mcp_servers: {
            docs: stdioCommand(catalogSpec("docs", catalog.docs!, 20)),
            metrics: stdioCommand(catalogSpec("metrics", catalog.metrics!, 20))
          }
        })
      })
      const latest = resultOf(yield* server.request("mcp/resource/search", { query: "disk space alerts", limit: 3 }))
      const matches = latest.matches as Array<Record<string, unknown>>
      assert.strictEqual(matches[0]?.uri, "runbook://ops/disk-space-alerts")
      assert.strictEqual(matches[0]?.server, "docs")
      assert.isAtMost(matches.length, 3)
      assert.deepStrictEqual(latest.indexing, [])
      assert.isTrue(valid("result", latest))

      const template = resultOf(yield* server.request("mcp/resource/search", { query: "forcast", server: "metrics" }))
      assert.strictEqual(
        (template.matches as Array<Record<string, unknown>>)[0]?.uriTemplate,
        "weather://forecast/{city}?days={days}"
      )

      const threadId = threadIdOf(
        yield* server.request("thread/start", { config: { resources: { deny: ["runbook://ops/**"] } } })
      )
      resultOf(yield* server.request("turn/start", { threadId, turnId: "t1" }))
      const onThread = resultOf(
        yield* server.request("mcp/resource/search", { threadId, query: "disk space alerts", limit: 50 })
      )
      assert.isFalse(
        (onThread.matches as Array<Record<string, unknown>>).some((m) => String(m.uri).startsWith("runbook://ops/"))
      )

      const empty = yield* server.request("mcp/resource/search", { query: " " })
      assert.deepStrictEqual(empty.error, { code: -32600, message: "query must be provided" })
      const limit = yield* server.request("mcp/resource/search", { query: "disk", limit: 51 })
      assert.deepStrictEqual(limit.error, { code: -32600, message: "limit must be a whole number from 1 to 50" })
      const unknown = yield* server.request("mcp/resource/search", { query: "disk", server: "nope" })
      assert.deepStrictEqual(unknown.error, { code: -32600, message: "unknown MCP server 'nope'" })
      assert.isFalse(valid("params", { server: "docs" }))
    })
  )

  it.scopedLive("search_mcp_resources: listed on extended threads only, ranks, keeps the thread's rules", () =>
    Effect.gen(function* () {
      const dataDir = tempDir()
      const server = yield* startInProcess({
        dataDir,
        configPath: writeConfig(dataDir, {
          mcp_servers: {
            docs: stdioCommand(catalogSpec("docs", catalog.docs!, 20)),
            metrics: stdioCommand(catalogSpec("metrics", catalog.metrics!, 20))
          }
        })
      })
      const thread = (config: Record<string, unknown>) =>
        Effect.gen(function* () {
          const threadId = threadIdOf(yield* server.request("thread/start", { config }))
          resultOf(yield* server.request("turn/start", { threadId, turnId: "t1" }))
          return threadId
        })
      const names = (threadId: string) =>
        Effect.map(server.request("tool/list", { threadId }), (m) =>
          (resultOf(m).tools as Array<{ name: string }>).map((t) => t.name)
        )
      const extended = yield* thread({ toolProfile: "extended" })
      const codex = yield* thread({})
      assert.deepStrictEqual((yield* names(extended)).slice(0, 4), [
        "list_mcp_resources",
        "list_mcp_resource_templates",
        "read_mcp_resource",
        "search_mcp_resources"
      ])
      assert.notInclude(yield* names(codex), "search_mcp_resources")

      const call = (threadId: string, callId: string, args: unknown) =>
        Effect.map(
          server.request("tool/call", {
            threadId,
            turnId: "t1",
            callId,
            name: "search_mcp_resources",
            arguments: JSON.stringify(args)
          }),
          resultOf
        )
      const found = yield* call(extended, "s1", { query: "disk space alerts", limit: 2 })
      assert.isTrue(found.success)
      const output = JSON.parse(found.output as string) as { matches: Array<Record<string, unknown>>; indexing: [] }
      assert.strictEqual(output.matches[0]?.uri, "runbook://ops/disk-space-alerts")
      assert.isAtMost(output.matches.length, 2)
      assert.deepStrictEqual(output.indexing, [])
      const completed = yield* server.waitFor(
        (m) => m.method === "item/completed" && (m.params as { item: { id: string } }).item.id === "s1",
        "the search's completed item"
      )
      assert.strictEqual((completed.params as { item: { tool: string } }).item.tool, "search_mcp_resources")

      const refused = yield* call(extended, "s2", { query: "disk", limit: 51 })
      assert.deepStrictEqual(
        { output: refused.output, success: refused.success },
        { output: "limit must be a whole number from 1 to 50", success: false }
      )
      const codexCall = yield* call(codex, "s3", { query: "disk" })
      assert.deepStrictEqual(
        { output: codexCall.output, success: codexCall.success },
        { output: "unsupported call: search_mcp_resources", success: false }
      )

      const denied = yield* thread({ toolProfile: "extended", resources: { deny: ["runbook://ops/**"] } })
      const hidden = yield* call(denied, "s4", { query: "disk space alerts", limit: 50 })
      const hiddenMatches = (JSON.parse(hidden.output as string) as { matches: Array<Record<string, unknown>> }).matches
      assert.isFalse(hiddenMatches.some((m) => String(m.uri).startsWith("runbook://ops/")))
    })
  )
})
