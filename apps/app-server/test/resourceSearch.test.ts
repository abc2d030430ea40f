/**
 * `mcp/resource/search` in process against stdio catalog servers: ranked matches on the latest set and
 * on a thread's binding (its resource rules apply), argument refusals as `-32600`, and the result
 * valid against the published JSON Schema.
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
})
