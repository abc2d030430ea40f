/**
 * Issue #41's bound on the tool-call path: one in-process extended `read_mcp_resource` through
 * `tool/call` runs functions in at most {@link maxFiles} of our source files, counted with V8 coverage
 * by `src/callPathFiles.ts` (over the built `dist` of the packages and the app). A change that makes the
 * call enter another module fails here, with the list of files that ran; lower the bound when the path
 * gets shorter.
 */
import { spawnSync } from "node:child_process"
import { fileURLToPath } from "node:url"
import { assert, describe, it } from "vitest"

/**
 * The bound: the files the call ran when it was last lowered (37), plus the seven issue #44's read
 * path brought (digests, the kept-body store, `since`, the change tracker, polling's base).
 */
const maxFiles = 44

const script = fileURLToPath(new URL("../dist/callPathFiles.js", import.meta.url))

describe("the tool-call path", () => {
  it(`one extended read_mcp_resource through tool/call runs functions in at most ${maxFiles} of our files`, {
    timeout: 120_000
  }, () => {
    const run = spawnSync(process.execPath, [script, "--max", String(maxFiles)], {
      encoding: "utf8",
      timeout: 110_000,
      env: { ...process.env, MCP_RESOURCES_LOG: "error" }
    })
    const counted = /ran functions in (\d+) of our files/.exec(run.stdout)
    assert.isNotNull(counted, `no count in the output: ${run.stdout}${run.stderr}`)
    const files = Number(counted?.[1])
    assert.isAtMost(files, maxFiles, `the call ran functions in ${files} files:\n${run.stdout}`)
    assert.strictEqual(run.status, 0, run.stderr)
  })
})
