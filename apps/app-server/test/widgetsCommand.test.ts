/**
 * `mcp-resources widgets` as a user runs it (issue 46, item 8): the token it hands its app-server is
 * removed from the app-server's environment once read, so that no MCP server (the real
 * `@modelcontextprotocol/server-everything`, whose `get-env` prints its environment) and no command hook
 * inherits it; and the page's servers answer only loopback `Host` names.
 */
import { request } from "node:http"
import { everythingCommand } from "@mcp-resources/fixtures"
import { afterAll, assert, describe, it } from "vitest"
import { tempDir, writeConfig } from "./utils/AppServerProcess.js"
import { connectClient, killHosts, startHost, timeout } from "./utils/WidgetBrowser.js"

afterAll(killHosts)

const tokenVariable = "MCP_RESOURCES_WIDGETS_TOKEN"

/** A `before_tool` hook that denies the call when it inherited the token's variable. */
const hookScript = `process.stdout.write(JSON.stringify(process.env.${tokenVariable} === undefined ? { decision: "allow" } : { decision: "deny", reason: "the hook inherited ${tokenVariable}" }))`

const statusFor = (url: string, host: string) =>
  new Promise<number>((resolve, reject) => {
    const { hostname, port, pathname } = new URL(url)
    const req = request({ host: hostname, port, path: pathname, headers: { host } }, (res) => {
      res.resume()
      resolve(res.statusCode ?? 0)
    })
    req.on("error", reject)
    req.end()
  })

describe(
  "mcp-resources widgets",
  () => {
    it("hands its token to the app-server only: no MCP server or hook inherits it", { timeout: 200_000 }, async () => {
      const everything = everythingCommand()
      const toml = [
        "[mcp_servers.everything]",
        `command = ${JSON.stringify(everything.command)}`,
        `args = ${JSON.stringify(everything.args)}`,
        "startup_timeout_sec = 60",
        "",
        "[[hooks.before_tool]]",
        `command = ${JSON.stringify(process.execPath)}`,
        `args = ["-e", ${JSON.stringify(hookScript)}]`,
        "timeout_sec = 60",
        ""
      ].join("\n")
      const config = writeConfig(tempDir("widgets-command-test-"), toml)
      const host = await startHost(config, tempDir("widgets-command-data-"))
      const client = await connectClient(host)
      try {
        const token = new URLSearchParams(new URL(host.pageUrl).hash.slice(1)).get("token")!
        const threadId = (await client.request("thread/start", {})).thread.id
        await client.request("turn/start", { threadId, turnId: "t1" })
        const result = await client.request("tool/call", {
          threadId,
          turnId: "t1",
          callId: "env",
          name: "mcp__everything__get-env",
          arguments: "{}"
        })
        // the hook allowed the call, and the server's environment holds neither the variable nor the token
        assert.isTrue(result.success, result.output)
        assert.include(result.output, "PATH")
        assert.notInclude(result.output, tokenVariable)
        assert.notInclude(result.output, token)

        // the page's server answers its loopback names only (a DNS-rebound name is refused)
        assert.strictEqual(await statusFor(host.pageUrl, new URL(host.pageUrl).host), 200)
        assert.strictEqual(await statusFor(host.pageUrl, `rebound.example:${new URL(host.pageUrl).port}`), 421)
      } finally {
        await client.close()
        await host.stop()
      }
    })
  },
  timeout
)
