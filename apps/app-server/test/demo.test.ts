import { execFile } from "node:child_process"
import { fileURLToPath } from "node:url"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { tempDir, WaitTimeout } from "./utils/AppServerProcess.js"

/** The built demo (`pnpm demo`). */
const demoJs = fileURLToPath(new URL("../dist/cli/demo.js", import.meta.url))

/** Runs the demo to completion (killed after 90 s); its temp files go to a fresh TMPDIR. */
const runDemo = Effect.async<{ code: number | null; stdout: string; stderr: string }, WaitTimeout>((resume) => {
  const child = execFile(
    process.execPath,
    [demoJs],
    { cwd: tempDir(), timeout: 90_000, encoding: "utf8", env: { ...process.env, TMPDIR: tempDir("demo-test-") } },
    (error, stdout, stderr) => {
      if (error?.killed) {
        return resume(
          Effect.fail(new WaitTimeout({ message: `the demo timed out; stdout: ${stdout}; stderr: ${stderr}` }))
        )
      }
      resume(Effect.succeed({ code: error ? (typeof error.code === "number" ? error.code : null) : 0, stdout, stderr }))
    }
  )
  return Effect.sync(() => {
    child.kill("SIGKILL")
  })
})

describe("demo", () => {
  it.live(
    "the scripted session lists every server, reads the widget before and after a restart, shows the refusal, and the CLI's commands",
    () =>
      Effect.gen(function* () {
        const { code, stdout, stderr } = yield* runDemo
        assert.strictEqual(code, 0, `stdout: ${stdout}\nstderr: ${stderr}`)
        assert.strictEqual(stderr, "")
        // The aggregate list reached both servers.
        assert.match(stdout, /The model lists resources of every server/)
        assert.match(stdout, /\(per server: codex_apps \d+, everything \d+\)/)
        const restart = stdout.indexOf("Restart the app-server on the same data dir")
        assert.isAbove(restart, 0)
        const widget = "ui://widget/example-app.html: <html>example_app</html>\n      (originCallId app-call)"
        const before = stdout.indexOf(widget)
        const after = stdout.indexOf(widget, restart)
        assert.isTrue(before !== -1 && before < restart, "the widget read before the restart")
        assert.isAbove(after, restart, "the widget read after the restart")
        const refusal = stdout.indexOf(
          "error -32603: originating MCP tool call was not found or did not complete successfully"
        )
        assert.isTrue(refusal > before && refusal < restart, "the refusal between the two reads")
        // the extended profile on its own thread: a window with its continuation note, an image as an image part
        assert.match(stdout, /\[window: bytes 0-40 of 78; to continue, call read_mcp_resource with offset 40\]/)
        assert.match(stdout, /\(content item: image image\/png, \d+ base64 characters\)/)
        // a search across every server's resources finds the read document by its words
        assert.match(
          stdout,
          /searches every server's resources by their words[\s\S]*?\{"matches":\[\{"server":"codex_apps","uri":"example:\/\/docs\/readme\.md"/
        )
        // capabilities at initialize; templates with variables, a completion and a read through a template
        assert.match(stdout, /capabilities: toolProfiles \["codex","extended"\].*widgets/)
        assert.match(
          stdout,
          /"uriTemplate":"demo:\/\/resource\/dynamic\/text\/\{resourceId\}","variables":\["resourceId"\]/
        )
        assert.match(stdout, /\{"values":\[[^\]]*"1[^"]*"/)
        assert.match(stdout, /expanded per RFC 6570\)[\s\S]*?demo:\/\/resource\/dynamic\/text\/1[\s\S]*?Resource 1: /)
        // a read document changes on the 2026-07-28 server: the host is told, and the next turn hands it over
        assert.match(
          stdout,
          /⇠ mcp\/resource\/changed \{"threadId":"[^"]+","server":"docs","uri":"changes:\/\/doc\/long-plan","readInCallId":"call-\d+","changedAt":"[^"]+","sizeBefore":\d+,"sizeAfter":null,"digestBefore":"[0-9a-f]{64}","digestAfter":null,"diffAvailable":true\}/
        )
        assert.match(
          stdout,
          /have changed\n[\s\S]*?The resource changes:\/\/doc\/long-plan of MCP server docs, read in call call-\d+, changed at \d{4}-/
        )
        // read again with since "last": the one changed line as a unified diff
        assert.match(
          stdout,
          /changed since call call-\d+; what follows is a unified diff[\s\S]*?@@ -97,7 \+97,7 @@[\s\S]*?-changes:\/\/doc\/long-plan read 1 times\n\s*\+changes:\/\/doc\/long-plan read 2 times/
        )
        // the tools a widget page offers, with the name tool/call takes
        assert.match(
          stdout,
          /codex_apps · \S+ → ui:\/\/widget\/example-app\.html \(tool\/call name mcp__codex_apps__\S+\)/
        )
        // the widget method with the UI metadata; a read refused by host policy
        assert.match(stdout, /ui:\/\/widget\/example-app\.html \(text\/html[^,]*, \d+ characters of HTML\), ui \{/)
        assert.match(stdout, /resources\/read failed: access to example:\/\/docs\/readme\.md is denied by host policy/)
        assert.match(stdout, /← exited with code 0; starting again/)
        // the CLI on the same config: a read at the note's offset, a template read, a completion, a tool call
        const cli = stdout.indexOf("$ mcp-resources read codex_apps example://docs/readme.md --offset 40")
        assert.isAbove(cli, restart, "the CLI section after the app-server's steps")
        assert.match(stdout.slice(cli), /^[^\n]*\n[\s\S]*?\[window: bytes 40-78 of 78; this is the end\]\n/)
        assert.match(
          stdout,
          /\$ mcp-resources read everything --template 'demo:\/\/resource\/dynamic\/text\/\{resourceId\}' --arg resourceId=1\n {6}\[resource demo:\/\/resource\/dynamic\/text\/1 of MCP server everything: [\s\S]*?Resource 1: /
        )
        assert.match(
          stdout,
          /\$ mcp-resources complete everything --template 'demo:\/\/resource\/dynamic\/text\/\{resourceId\}' --var resourceId --value 1\n {6}1\n/
        )
        assert.match(
          stdout,
          /\$ mcp-resources call everything get-sum --arg a=2 --arg b=3\n {6}The sum of 2 and 3 is 5\.\n/
        )
        assert.match(
          stdout,
          /Demo finished: the steps above went through the JSON-RPC app-server, the last ones through the mcp-resources CLI\.\n$/
        )
      }),
    120_000
  )
})
