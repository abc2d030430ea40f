/**
 * Resource templates through the app-server: the extended thread's `tool/list` offers
 * `complete_mcp_resource_argument`, a read through a template, and `mcp/resource/complete` for UIs
 * (on a thread's binding and on the latest set), against real v2 template servers over stdio.
 */
import { readFileSync } from "node:fs"
import { assert, describe, it } from "@effect/vitest"
import { templateStdioCommand, templateVectors } from "@mcp-resources/fixtures"
import { Ajv } from "ajv"
import { Effect } from "effect"
import { errorOf, resultOf, startInitialized, tempDir, threadWithTurn, writeConfig } from "./utils/AppServerProcess.js"

/** The published JSON Schema of the method, as a client in another language would load it. */
const document = JSON.parse(readFileSync(new URL("../schemas/app-server.schema.json", import.meta.url), "utf8")) as {
  "x-methods": Record<string, { params: { $ref: string }; result: { $ref: string } }>
}
const ajv = new Ajv({ strict: true, allErrors: true })
ajv.addVocabulary(["x-protocolVersion", "x-methods", "x-notifications", "x-clientNotifications", "x-serverRequests"])
ajv.addSchema(document, "app-server")
const valid = (kind: "params" | "result", value: unknown): boolean =>
  ajv.getSchema(`app-server${document["x-methods"]["mcp/resource/complete"]![kind].$ref}`)!(value) === true

describe("resource templates over the app-server", () => {
  it.scopedLive("an extended thread reads through a template and completes its arguments; codex sees none of it", () =>
    Effect.gen(function* () {
      const config = writeConfig(tempDir(), {
        mcp_servers: { tmpl: templateStdioCommand(), plain: templateStdioCommand({ completions: false }) }
      })
      const app = yield* startInitialized({ config })
      const extended = yield* threadWithTurn(app, { config: { toolProfile: "extended" } })
      const codex = yield* threadWithTurn(app)

      const names = (threadId: string) =>
        Effect.map(app.request("tool/list", { threadId }), (m) =>
          (resultOf(m).tools as Array<{ name: string }>).map((t) => t.name)
        )
      assert.deepStrictEqual((yield* names(extended.threadId)).slice(0, 5), [
        "list_mcp_resources",
        "list_mcp_resource_templates",
        "read_mcp_resource",
        "search_mcp_resources",
        "complete_mcp_resource_argument"
      ])
      assert.notInclude(yield* names(codex.threadId), "complete_mcp_resource_argument")

      const vector = templateVectors.find((v) => v.name === "query")!
      const read = resultOf(
        yield* app.request("tool/call", {
          threadId: extended.threadId,
          turnId: "t1",
          callId: "c1",
          name: "read_mcp_resource",
          arguments: JSON.stringify({ server: "tmpl", uriTemplate: vector.uriTemplate, arguments: vector.values })
        })
      )
      assert.isTrue(read.success)
      assert.include(read.output as string, `expanded as expected: ${vector.uri}`)

      const onThread = resultOf(
        yield* app.request("mcp/resource/complete", {
          threadId: extended.threadId,
          server: "tmpl",
          uriTemplate: "tmpl://query{?q,lang}",
          argument: "lang",
          value: "e"
        })
      )
      assert.deepStrictEqual(onThread, { values: ["en", "en-GB"], total: 3, hasMore: true })
      assert.isTrue(valid("result", onThread))
      assert.isTrue(valid("params", { threadId: null, server: "s", uriTemplate: "t", argument: "a", value: "" }))
      assert.isFalse(valid("params", { server: "s", uriTemplate: "t", argument: "a", value: "", context: { a: 1 } }))
      const latest = resultOf(
        yield* app.request("mcp/resource/complete", {
          server: "tmpl",
          uriTemplate: "tmpl://path{/a,b}",
          argument: "b",
          value: "",
          context: { a: "q" }
        })
      )
      assert.deepStrictEqual(latest, { values: ["q-1", "q-2"], total: 2, hasMore: false })
      assert.isTrue(valid("result", latest))

      const refused = errorOf(
        yield* app.request("mcp/resource/complete", {
          server: "plain",
          uriTemplate: "tmpl://simple/{id}",
          argument: "id",
          value: ""
        })
      )
      assert.deepStrictEqual(refused, {
        code: -32600,
        message: "MCP server 'plain' does not offer argument completion"
      })
      const unknown = errorOf(
        yield* app.request("mcp/resource/complete", {
          threadId: "nope",
          server: "tmpl",
          uriTemplate: "tmpl://simple/{id}",
          argument: "id",
          value: ""
        })
      )
      assert.strictEqual(unknown.code, -32600)
    })
  )
})
