/**
 * Issue 46 item 6 through the app-server: a server URL whose query carries a secret, and a server
 * that fails quoting its request target, as many error pages do. Neither `mcpServer/list`, nor the
 * model's `failedServers` (extended profile), nor any other line of the app-server, its log or its
 * thread store holds the secret.
 */
import { readdirSync, readFileSync } from "node:fs"
import * as NodeHttp from "node:http"
import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import {
  resultOf,
  startInitialized,
  tempDir,
  threadWithTurn,
  waitSettled,
  writeConfig
} from "./utils/AppServerProcess.js"

const secret = "query-secret-46"

/** A loopback server that answers every request 500 with a page quoting the request line. */
const echoServer = Effect.acquireRelease(
  Effect.async<NodeHttp.Server>((resume) => {
    const server = NodeHttp.createServer((request, response) => {
      request.resume()
      response.writeHead(500, { "content-type": "text/plain" }).end(`cannot handle ${request.method} ${request.url}`)
    })
    server.listen(0, "127.0.0.1", () => resume(Effect.succeed(server)))
  }),
  (server) =>
    Effect.async<void>((resume) => {
      server.close(() => resume(Effect.void))
      server.closeAllConnections()
    })
)

/** Every file under `dir`, as text. */
const filesOf = (dir: string): Array<string> =>
  readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile())
    .map((entry) => readFileSync(join(entry.parentPath, entry.name), "latin1"))

describe("server URL secrets through the app-server", () => {
  it.scopedLive("a failing server's ?token= value is in no listing, model output, log line or record", () =>
    Effect.gen(function* () {
      const server = yield* echoServer
      const port = (server.address() as { port: number }).port
      const dir = tempDir()
      const dataDir = tempDir()
      const config = writeConfig(dir, {
        mcp_servers: {
          echo: {
            url: `http://127.0.0.1:${port}/mcp?token=${secret}`,
            http_headers: { Authorization: "Bearer static" }
          }
        }
      })
      const app = yield* startInitialized({ config, dataDir })
      const servers = yield* waitSettled(app)
      assert.deepStrictEqual(servers, [
        {
          name: "echo",
          status: "failed",
          transport: "http",
          httpTransport: "streamable",
          auth: "none",
          error: "HTTP 500: cannot handle POST /mcp?token=REDACTED"
        }
      ])
      const { threadId, turnId } = yield* threadWithTurn(app, { config: { toolProfile: "extended" } })
      const listed = resultOf(
        yield* app.request("tool/call", { threadId, turnId, callId: "c1", name: "list_mcp_resources", arguments: "{}" })
      )
      assert.include(listed.output as string, "failedServers")
      assert.include(listed.output as string, "token=REDACTED")
      const read = resultOf(
        yield* app.request("tool/call", {
          threadId,
          turnId,
          callId: "c2",
          name: "read_mcp_resource",
          arguments: '{"server":"echo","uri":"x://y"}'
        })
      )
      assert.strictEqual(read.success, false)
      const records = resultOf(yield* app.request("thread/resume", { threadId }))
      for (const text of [...app.lines, app.stderr(), JSON.stringify(records), ...filesOf(dataDir)]) {
        assert.notInclude(text, secret)
      }
    })
  )
})
