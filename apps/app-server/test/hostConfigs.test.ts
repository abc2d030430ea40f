// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the `${VAR}` references of another host's file are the subject here
/**
 * The app-server started on another host's config file, as a user points it at the file they have:
 * a Claude Code `.mcp.json` with `${VAR}` references, a legacy HTTP+SSE server (`"type": "sse"`), a
 * plain `url` of an HTTP+SSE-only server (the fallback) and a stdio server, with top-level keys of
 * its own. `mcpServer/list` shows `httpTransport` for each HTTP server (none for stdio), as the
 * published schema describes, and the unread keys are named once on standard error.
 */
import { assert, describe, it } from "@effect/vitest"
import { exampleCommand, exampleSpec, startSse } from "@mcp-resources/fixtures"
import { Effect } from "effect"
import { resultOf, startInitialized, tempDir, waitSettled, writeConfig } from "./utils/AppServerProcess.js"
import * as PublishedSchema from "./utils/PublishedSchema.js"

const sseFixture = Effect.acquireRelease(
  Effect.promise(() => startSse(exampleSpec())),
  (fixture) => Effect.promise(() => fixture.close())
)

describe("another host's config file", () => {
  it.scopedLive("a Claude Code .mcp.json: variables expanded, SSE servers connected, httpTransport listed", () =>
    Effect.gen(function* () {
      const configured = yield* sseFixture
      const fallback = yield* sseFixture
      const example = exampleCommand()
      const port = new URL(configured.url).port
      const config = writeConfig(
        tempDir(),
        {
          mcpServers: {
            local: { command: example.command, args: example.args, env: { DOCS_ROOT: "${DOCS_ROOT:-./docs}" } },
            legacy: {
              type: "sse",
              url: `http://127.0.0.1:\${LEGACY_PORT}/sse`,
              headers: { Authorization: "Bearer ${LEGACY_TOKEN}" }
            },
            plain: { type: "http", url: fallback.url }
          },
          projects: { "/home/alex/code": { allowedTools: [] } },
          numStartups: 12
        },
        ".mcp.json"
      )
      const server = yield* startInitialized({
        config,
        env: { LEGACY_PORT: port, LEGACY_TOKEN: "s3cret-token" }
      })
      yield* waitSettled(server)
      const listed = resultOf(yield* server.request("mcpServer/list", {}))
      assert.deepStrictEqual(PublishedSchema.resultProblems("mcpServer/list", listed), [])
      assert.deepStrictEqual(
        (listed.servers as Array<Record<string, unknown>>).map(({ name, status, transport, httpTransport }) => ({
          name,
          status,
          transport,
          httpTransport
        })),
        [
          { name: "legacy", status: "ready", transport: "http", httpTransport: "sse" },
          { name: "local", status: "ready", transport: "stdio", httpTransport: undefined },
          { name: "plain", status: "ready", transport: "http", httpTransport: "sse" }
        ]
      )
      // the configured one went straight to the stream, with the expanded token on the GET and every POST
      assert.strictEqual(configured.httpRequests[0], "GET /sse")
      assert.isTrue(configured.headers.every((h) => h.authorization === "Bearer s3cret-token"))
      assert.strictEqual(fallback.httpRequests[0], "POST /sse")
      const read = resultOf(
        yield* server.request("mcp/resource/read", { server: "legacy", uri: "example://docs/readme.md" })
      )
      assert.isArray(read.contents)
      const notes = server
        .stderr()
        .split("\n")
        .filter((line) => line.includes("another host's file"))
      assert.strictEqual(notes.length, 1, server.stderr())
      assert.include(notes[0], "ignored top-level keys: projects, numStartups")
      assert.notInclude(server.stderr(), "s3cret-token")
      assert.notInclude(server.lines.join("\n"), "s3cret-token")
    })
  )
})
