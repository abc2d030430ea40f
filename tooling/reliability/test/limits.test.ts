/**
 * Limits (hardening items 6, 17, 18): many stdio servers starting at once start at most
 * `[mcp] startup_concurrency` at a time and all become ready; a burst of threadless reads never has
 * more than `[mcp] threadless_concurrency` throw-away children; one server's flood of
 * `resources/updated` notifications is coalesced, drops nothing, and leaves the other servers' reads
 * answering, also while a server floods without end over stdio or a streamable HTTP event stream (#46
 * item 13: the quiet server's reads timed with and without the flood, side by side). Real stdio
 * children (`src/limitsServer.ts`), counted through marker files.
 */
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { floodStdioCommand, startFloodHttp } from "@mcp-resources/fixtures"
import { Config } from "@mcp-resources/protocol"
import { ResourceClient, type ServerEntry } from "@mcp-resources/resource-client"
import { Duration, Effect, Layer, Logger, LogLevel } from "effect"
import { describe, expect, it } from "vitest"
import { Figures, Limits } from "../src/index.js"

const stdioEntry = (name: string, command: { command: string; args: Array<string> }): ServerEntry.ServerEntry => ({
  name,
  transport: { _tag: "stdio", command: command.command, args: command.args, env: {} },
  enabled: true,
  startupTimeoutSec: 20,
  toolTimeoutSec: 20,
  maxMessageBytes: 1024 * 1024
})

const setupOf = (
  servers: ReadonlyArray<ServerEntry.ServerEntry>,
  mcp: Partial<Config.McpLimits>
): ServerEntry.Setup => ({
  config: { ...Config.empty, mcp: { ...Config.mcpDefaults, ...mcp } },
  servers
})

const run = <A, E>(setup: ServerEntry.Setup, body: (client: ResourceClient.Service) => Effect.Effect<A, E>) =>
  Effect.runPromise(
    Effect.flatMap(ResourceClient.ResourceClient, body).pipe(
      Effect.timeoutFail({ duration: Duration.seconds(100), onTimeout: () => new Error("no answer within 100s") }),
      Effect.provide(ResourceClient.layer(setup).pipe(Layer.provideMerge(Logger.minimumLogLevel(LogLevel.None))))
    )
  )

const tempDir = (prefix: string) => mkdtempSync(join(tmpdir(), `reliability-limits-${prefix}-`))

describe("limits on MCP connections", () => {
  it("40 stdio servers with [mcp] startup_concurrency = 4: at most 4 initialize at once, and every one becomes ready", async () => {
    const dir = tempDir("startup")
    const servers = Array.from({ length: 40 }, (_, i) =>
      stdioEntry(`s${String(i).padStart(2, "0")}`, Limits.command({ dir, initDelayMs: 50 }))
    )
    const started = Date.now()
    const statuses = await run(setupOf(servers, { startupConcurrency: 4 }), (client) =>
      Effect.gen(function* () {
        const set = yield* client.latest
        yield* set.awaitAllSettled
        return set.servers().map((s) => s.status)
      })
    )
    const elapsed = Date.now() - started
    const peak = Limits.peaks(dir)
    expect(statuses.filter((s) => s === "ready")).toHaveLength(40)
    expect(peak.init).toBeGreaterThanOrEqual(1)
    expect(peak.init).toBeLessThanOrEqual(4)
    Figures.add("limits", {
      "startup: stdio servers started": 40,
      "startup: servers ready": statuses.filter((s) => s === "ready").length,
      "startup: concurrency cap": 4,
      "startup: most initializing at once (observed)": peak.init
    })
    Figures.note("limits", `startup: 40 servers (50 ms initialize each) ready in ${elapsed} ms with 4 at a time`)
  }, 120_000)

  it("30 threadless reads at once with [mcp] threadless_concurrency = 4: never more than 4 throw-away children, every read answered", async () => {
    const dir = tempDir("threadless")
    const servers = [stdioEntry("srv", Limits.command({ dir }))]
    const results = await run(setupOf(servers, { threadlessConcurrency: 4 }), (client) =>
      Effect.gen(function* () {
        yield* Effect.flatMap(client.latest, (set) => set.awaitAllSettled)
        return yield* Effect.all(
          Array.from({ length: 30 }, (_, i) =>
            client.withServerConnection("srv", (connection) => connection.readResource(`memo://${i}`))
          ),
          { concurrency: "unbounded" }
        )
      })
    )
    const peak = Limits.peaks(dir)
    expect(results).toHaveLength(30)
    expect(results[7]).toEqual({ contents: [{ uri: "memo://7", text: "body of memo://7" }] })
    // the set's own connection to `srv` is one more child, alive throughout
    expect(peak.alive - 1).toBeLessThanOrEqual(4)
    Figures.add("limits", {
      "threadless: reads at once": 30,
      "threadless: reads answered": results.length,
      "threadless: cap": 4,
      "threadless: most throw-away children alive at once (observed)": peak.alive - 1
    })
  }, 120_000)

  it("a flood of 20,000 resources/updated from one server is coalesced, drops no change, and the other server keeps answering", async () => {
    const dir = tempDir("flood")
    const logFile = join(dir, "flooder.log")
    const servers = [
      stdioEntry("flooder", Limits.command({ dir, ttlMs: 600_000, flood: 20_000, logFile })),
      stdioEntry("healthy", Limits.command({ dir }))
    ]
    const reads = (uri: string) => Limits.requests(logFile).filter((line) => line === `resources/read ${uri}`).length
    const observed = await run(setupOf(servers, {}), (client) =>
      Effect.gen(function* () {
        yield* Effect.flatMap(client.latest, (set) => set.awaitAllSettled)
        // cached for ten minutes
        yield* client.readResource("flooder", "flood://3")
        yield* client.readResource("flooder", "flood://3")
        const cachedReads = reads("flood://3")
        const heapBefore = process.memoryUsage().heapUsed
        const [, healthy] = yield* Effect.all(
          [
            client.readResource("flooder", "flood://go"),
            Effect.forEach(Array.from({ length: 50 }), (_, i) =>
              Effect.timed(client.readResource("healthy", `memo://${i}`))
            )
          ],
          { concurrency: "unbounded" }
        )
        const heapAfter = process.memoryUsage().heapUsed
        // the update of flood://3 was not dropped: the cached read is sent again (the invalidation
        // runs on its own fiber; bounded retries)
        for (let i = 0; i < 200 && reads("flood://3") === cachedReads; i++) {
          yield* client.readResource("flooder", "flood://3")
          yield* Effect.sleep("10 millis")
        }
        return {
          cachedReads,
          readsAfter: reads("flood://3"),
          healthy: healthy.map(([duration]) => Duration.toMillis(duration)),
          heapGrowth: heapAfter - heapBefore
        }
      })
    )
    expect(observed.cachedReads).toBe(1)
    expect(observed.readsAfter).toBe(2)
    expect(observed.healthy).toHaveLength(50)
    const slowest = Math.max(...observed.healthy)
    Figures.add("limits", {
      "flood: resources/updated notifications sent": 20_000,
      "flood: healthy reads answered during the flood": observed.healthy.length,
      "flood: flooded uri re-read after its update (not dropped)": observed.readsAfter - observed.cachedReads
    })
    Figures.note(
      "limits",
      `flood: slowest healthy read during the flood ${Math.round(slowest)} ms; heap growth ${Math.round(observed.heapGrowth / 2 ** 20)} MiB`
    )
  }, 120_000)

  const median = (values: ReadonlyArray<number>) => {
    const sorted = [...values].sort((a, b) => a - b)
    return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN
  }

  for (const transport of ["stdio", "streamable HTTP"] as const) {
    it(`a server flooding without end over ${transport} leaves another server's reads answered: timed with and without the flood`, async () => {
      const http = transport === "stdio" ? undefined : await startFloodHttp()
      try {
        const dir = tempDir("flood-isolation")
        const flooder: ServerEntry.ServerEntry = {
          ...stdioEntry("flooder", floodStdioCommand()),
          ...(http !== undefined ? { transport: { _tag: "http", url: http.url, httpHeaders: {} } } : {}),
          protocolVersion: "legacy"
        }
        const rounds = 5
        const readsPerRound = 8
        const observed = await run(setupOf([flooder, stdioEntry("quiet", Limits.command({ dir }))], {}), (client) =>
          Effect.gen(function* () {
            yield* Effect.flatMap(client.latest, (set) => set.awaitAllSettled)
            const timedReads = (round: number, phase: string) =>
              Effect.forEach(Array.from({ length: readsPerRound }), (_, i) =>
                Effect.map(Effect.timed(client.readResource("quiet", `memo://${phase}-${round}-${i}`)), ([d]) =>
                  Duration.toMillis(d)
                )
              )
            const quiet: Array<number> = []
            const flooded: Array<number> = []
            let sent = 0
            // interleaved rounds, so that the machine's load falls on both alike
            for (let round = 0; round < rounds; round++) {
              quiet.push(...(yield* timedReads(round, "quiet")))
              yield* client.readResource("flooder", "flood://start")
              // under way: the flooder's own answers come behind the notifications it sent before them
              yield* client.readResource("flooder", `flood://first-${round}`)
              yield* client.readResource("flooder", `flood://second-${round}`)
              flooded.push(...(yield* timedReads(round, "flood")))
              const stop = yield* client.readResource("flooder", "flood://stop")
              const text = (stop.contents[0] as { readonly text: string }).text
              sent = (JSON.parse(text) as { sent: number }).sent
            }
            return { quiet, flooded, sent }
          })
        )
        expect(observed.quiet).toHaveLength(rounds * readsPerRound)
        expect(observed.flooded).toHaveLength(rounds * readsPerRound)
        expect(observed.sent).toBeGreaterThan(1000)
        const name = transport === "stdio" ? "stdio" : "HTTP"
        Figures.add("limits", {
          [`flood isolation (${name}): notifications sent while the other server was read`]: observed.sent,
          [`flood isolation (${name}): reads of the other server answered during the flood`]: observed.flooded.length
        })
        const ms = (values: ReadonlyArray<number>) =>
          `median ${median(values).toFixed(1)} ms, slowest ${Math.max(...values).toFixed(1)} ms`
        Figures.note(
          "limits",
          `flood isolation (${name}): ${rounds} rounds of ${readsPerRound} reads of another server, alternating without and during a flood without end (\`resources/updated\` for ever new uris, \`list_changed\`, log messages): without ${ms(observed.quiet)}; during ${ms(observed.flooded)}`
        )
      } finally {
        await http?.close()
      }
    }, 180_000)
  }
})
