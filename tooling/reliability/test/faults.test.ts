/**
 * Faults: MCP servers that crash mid-request, hang, send malformed JSON-RPC, oversized or invalid
 * results, or flood notifications (src/misbehavingServer.ts, real stdio children). Each fault affects
 * only the misbehaving server's own calls, with a clear message naming it; the aggregate list still
 * answers with the healthy servers' items and a `failedServers` entry for the bad one; the healthy
 * servers keep answering afterwards.
 */
import { mkdtempSync, readFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { connectInMemory, stdioCommand } from "@mcp-resources/fixtures"
import { Config } from "@mcp-resources/protocol"
import { ResourceClient, ServerEntry } from "@mcp-resources/resource-client"
import { LifecycleSink, ToolHandlers } from "@mcp-resources/tool-handlers"
import { Duration, Effect, Layer, Logger, LogLevel } from "effect"
import { describe, expect, it } from "vitest"
import { Figures, Misbehave } from "../src/index.js"

const alpha = connectInMemory({
  name: "alpha",
  resourcePages: [{ result: { resources: [{ uri: "memo://a-1", name: "a-1" }] } }],
  reads: [{ uri: "memo://a-1", result: { contents: [{ uri: "memo://a-1", text: "a" }] } }]
})
const zetaSpec = {
  name: "zeta",
  resourcePages: [{ result: { resources: [{ uri: "memo://z-1", name: "z-1" }] } }],
  reads: [{ uri: "memo://z-1", result: { contents: [{ uri: "memo://z-1", text: "z" }] } }]
}

const maxMessageBytes = 1024 * 1024

const stdioEntry = (name: string, command: { command: string; args: Array<string> }): ServerEntry.ServerEntry => ({
  name,
  transport: { _tag: "stdio", command: command.command, args: command.args, env: {} },
  enabled: true,
  startupTimeoutSec: 10,
  toolTimeoutSec: 1,
  maxMessageBytes
})

/** What each fault must look like to the model (after `{op} failed for \`bad\`…: `). */
const expectedCause: Record<Misbehave.Mode, RegExp> = {
  crash: /connection closed|exited|closed/i,
  hang: /^timed out awaiting (resources\/list|resources\/read|tools\/call) after 1s$/,
  malformed: /timed out awaiting .* after 1s|malformed|invalid|parse/i,
  oversized: /^message exceeds 1048576 bytes$/,
  invalid: /expected|invalid|schema|must be/i,
  flood: /$^/
}

interface Observed {
  aggregate: {
    resources: Array<{ server: string; uri: string }>
    failedServers?: Array<{ server: string; error: string }>
  }
  single: ToolHandlers.ToolOutput
  healthyDuring: ToolHandlers.ToolOutput
  read: ToolHandlers.ToolOutput
  tool: ToolHandlers.ToolOutput
  healthyAfter: Array<ToolHandlers.ToolOutput>
  requests: Array<string>
  /** Latencies (ms) of the other server's reads while the fault's aggregate list ran. */
  latencies: Array<number>
}

const runMode = (mode: Misbehave.Mode, logFile: string) =>
  Effect.gen(function* () {
    const client = yield* ResourceClient.ResourceClient
    const set = yield* client.acquire
    yield* set.awaitAllSettled
    const config = Config.empty
    const ctx: ToolHandlers.ToolContext = { set, config, orchestratorMcpEnabled: true, truncation: config.truncation }
    const call = (callId: string, name: string, args: string) =>
      ToolHandlers.callTool(ctx, { callId, name, arguments: args })
    // The aggregate list and a healthy single-server list run at the same time as the fault, and
    // reads of another (stdio) server follow one another until the aggregate list has answered: their
    // latencies are what the fault costs the other servers.
    let faultDone = false
    const otherReads = Effect.gen(function* () {
      const latencies: Array<number> = []
      for (let i = 0; i < 2000 && !faultDone; i++) {
        const [duration, output] = yield* Effect.timed(
          call(`zeta-during-${i}`, "read_mcp_resource", '{"server":"zeta","uri":"memo://z-1"}')
        )
        expect(output.success, output.output).toBe(true)
        latencies.push(Duration.toMillis(duration))
      }
      return latencies
    })
    const [aggregate, healthyDuring, latencies] = yield* Effect.all(
      [
        Effect.ensuring(
          call("agg", "list_mcp_resources", "{}"),
          Effect.sync(() => {
            faultDone = true
          })
        ),
        call("alpha-during", "list_mcp_resources", '{"server":"zeta"}'),
        otherReads
      ],
      { concurrency: "unbounded" }
    )
    const single = yield* call("single", "list_mcp_resources", '{"server":"bad"}')
    const read = yield* call("read", "read_mcp_resource", '{"server":"bad","uri":"bad://one"}')
    const tool = yield* call("tool", "mcp__bad__work", '{"x":1}')
    const healthyAfter = yield* Effect.all([
      call("alpha-read", "read_mcp_resource", '{"server":"alpha","uri":"memo://a-1"}'),
      call("zeta-read", "read_mcp_resource", '{"server":"zeta","uri":"memo://z-1"}')
    ])
    let requests: Array<string> = []
    try {
      requests = readFileSync(logFile, "utf8")
        .split("\n")
        .filter((l) => l !== "")
    } catch {
      requests = []
    }
    expect(aggregate.success).toBe(true)
    const observed: Observed = {
      aggregate: JSON.parse(aggregate.output) as Observed["aggregate"],
      single,
      healthyDuring,
      read,
      tool,
      healthyAfter,
      requests,
      latencies
    }
    return observed
  }).pipe(
    Effect.scoped,
    Effect.timeoutFail({ duration: Duration.seconds(40), onTimeout: () => new Error(`${mode}: no answer within 40s`) })
  )

describe("misbehaving MCP servers affect only their own calls", () => {
  for (const mode of Misbehave.modes) {
    it(`${mode}: only the bad server's calls are affected and the aggregate list still answers from the others`, async () => {
      const dir = mkdtempSync(join(tmpdir(), "reliability-faults-"))
      const logFile = join(dir, "requests.log")
      const servers = [
        ServerEntry.memory("alpha", alpha.connect, { toolTimeoutSec: 5 }),
        // the ordinary deadline for every mode: a flood is answered correctly within it
        stdioEntry("bad", Misbehave.command(mode, { logFile, bytes: 2 * maxMessageBytes, flood: 20_000 })),
        { ...stdioEntry("zeta", stdioCommand(zetaSpec)), toolTimeoutSec: 5 }
      ]
      const layer = Layer.mergeAll(
        ResourceClient.layer({ config: Config.empty, servers }),
        LifecycleSink.layerNoop
      ).pipe(Layer.provideMerge(Logger.minimumLogLevel(LogLevel.None)))
      const started = Date.now()
      const observed = await Effect.runPromise(runMode(mode, logFile).pipe(Effect.provide(layer)))
      const elapsed = Date.now() - started
      const summary = JSON.stringify({
        ...observed,
        requests: observed.requests.length,
        latencies: observed.latencies.length
      }).slice(0, 3000)

      // Healthy servers: listed in the aggregate, answering during and after the fault.
      const uris = observed.aggregate.resources.map((r) => r.uri)
      expect(uris, summary).toEqual(expect.arrayContaining(["memo://a-1", "memo://z-1"]))
      expect(observed.healthyDuring.success, summary).toBe(true)
      for (const after of observed.healthyAfter) expect(after.success, summary).toBe(true)

      if (mode === "flood") {
        // A flood of notifications is not a failure: the answer behind it still arrives.
        expect(observed.aggregate.failedServers, summary).toBeUndefined()
        expect(uris, summary).toContain("bad://one")
        expect(observed.single.success, summary).toBe(true)
        expect(observed.read.success, summary).toBe(true)
        expect(observed.tool.success, summary).toBe(true)
        const toolsLists = observed.requests.filter((m) => m === "tools/list").length
        const sorted = [...observed.latencies].sort((a, b) => a - b)
        const median = sorted[Math.floor(sorted.length / 2)] ?? 0
        const slowest = sorted.at(-1) ?? 0
        Figures.note(
          "faults",
          `flood: 4 × 20,000 notifications (2,000 tools/list_changed each) answered within the ordinary 1 s deadline; the server saw ${toolsLists} tools/list requests; another server's reads during the flood: ${sorted.length} reads, median ${median.toFixed(1)} ms, slowest ${slowest.toFixed(1)} ms`
        )
      } else {
        expect(observed.aggregate.failedServers, summary).toHaveLength(1)
        const failure = observed.aggregate.failedServers![0]!
        expect(failure.server).toBe("bad")
        const prefix = "resources/list failed for `bad`: "
        const failedClient = "failed to get client: "
        if (mode === "hang") {
          // The page timeout and the collection deadline are both tool_timeout_sec: the deadline's
          // message wins (resource-tools.md 2.1).
          expect(failure.error).toBe("resources/list pagination timed out after 1s")
        } else if (mode === "malformed") {
          // an answer with the request's id and a malformed body fails at once, naming what is wrong
          expect(failure.error).toBe(
            "resources/list failed for `bad`: invalid resources/list response: it carries neither a result nor an error"
          )
        } else {
          expect(failure.error.startsWith(prefix) || failure.error.startsWith(failedClient), failure.error).toBe(true)
          const cause = failure.error.startsWith(prefix)
            ? failure.error.slice(prefix.length)
            : failure.error.slice(failedClient.length)
          expect(cause, failure.error).toMatch(expectedCause[mode])
        }
        expect(bad(uris)).toEqual([])
        // Single-server calls fail with their own chains, never as a defect.
        expect(observed.single.success, summary).toBe(false)
        expect(observed.single.output, summary).toMatch(
          /^resources\/list failed: (resources\/list failed for `bad`|failed to get client): /
        )
        expect(observed.read.success, summary).toBe(false)
        expect(observed.read.output, summary).toMatch(
          /^resources\/read failed: (resources\/read failed for `bad` \(bad:\/\/one\)|failed to get client): /
        )
        expect(observed.tool.success, summary).toBe(false)
        expect(observed.tool.output, summary).toMatch(
          /^(tools\/call failed: (tools\/call failed for `bad`|failed to get client): |unsupported call: mcp__bad__work$)/
        )
        Figures.note(
          "faults",
          `${mode}: aggregate failedServers error ${JSON.stringify(failure.error)}; read ${JSON.stringify(observed.read.output)}; tool ${JSON.stringify(observed.tool.output)}`
        )
      }
      // Four calls reach the misbehaving server (aggregate, single list, read, tool); three healthy calls.
      Figures.add("faults", {
        "faults injected": 4,
        [`${mode}: faulty calls`]: 4,
        "healthy calls answered alongside": 4
      })
      Figures.note("faults", `${mode}: whole scenario in ${elapsed} ms`)
    }, 60_000)
  }
})

const bad = (uris: Array<string>) => uris.filter((u) => u.startsWith("bad://"))
