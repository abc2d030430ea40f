/**
 * The MCP client SDK is loaded with the first connection, not with the package: a host whose config
 * names no server (or a CLI command that opens none) never evaluates it. Checked in a process of its
 * own (`utils/sdkLoading.mjs`) whose resolve hook logs every module of the SDK and of zod it loads.
 */
import { execFile } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { promisify } from "node:util"
import { stdioCommand } from "@mcp-resources/fixtures"
import { afterAll, describe, expect, it } from "vitest"

const script = fileURLToPath(new URL("./utils/sdkLoading.mjs", import.meta.url))
const dir = mkdtempSync(join(tmpdir(), "mcp-sdk-loading-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

interface Step {
  readonly step: string
  readonly sdkLoaded: boolean
  readonly status: ReadonlyArray<string>
}

describe("loading the MCP SDK", () => {
  it("waits for the first connection", async () => {
    const command = stdioCommand({
      name: "lazy",
      resourcePages: [{ cursor: null, result: { resources: [{ uri: "memo://lazy/a", name: "a" }] } }]
    })
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [script, join(dir, "resolved.log"), JSON.stringify(command)],
      { timeout: 60_000 }
    )
    const steps = stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as Step)
    expect(steps).toEqual([
      { step: "imported", sdkLoaded: false, status: [] },
      { step: "no servers", sdkLoaded: false, status: [] },
      { step: "one server", sdkLoaded: true, status: ["ready"] }
    ])
  })
})
