import { assert, describe, it } from "@effect/vitest"
import { stdioCommand, widgetAppsSpec, widgetUri } from "@mcp-resources/fixtures"
import { Effect } from "effect"
import { inject } from "vitest"
import {
  type AppServer,
  errorOf,
  resultOf,
  start,
  startInitialized,
  tempDir,
  threadWithTurn,
  writeConfig
} from "./utils/AppServerProcess.js"
import { awaitCount, freshDatabase, holdThreadRowLock, psql } from "./utils/pg.js"

const cluster = inject("pgCluster")
const clusterUrl = "url" in cluster ? cluster.url : undefined
if (clusterUrl === undefined && "skipped" in cluster) {
  console.warn(`PostgreSQL app-server tests skipped: ${cluster.skipped}`)
}

/** A config with the widget apps server and `[persistence] driver = "postgres"` (with `url` when given). */
const postgresConfig = (url?: string) =>
  writeConfig(tempDir(), {
    mcp_servers: { codex_apps: stdioCommand(widgetAppsSpec()) },
    persistence: { driver: "postgres", ...(url !== undefined ? { url } : {}) }
  })

const toolCall = (app: AppServer, threadId: string, turnId: string, callId: string, tool: string) =>
  app.request("tool/call", {
    threadId,
    turnId,
    callId,
    name: `mcp__codex_apps__${tool}`,
    arguments: JSON.stringify({ query: "tv" })
  })

const widgetRead = (app: AppServer, threadId: string, originCallId: string) =>
  app.request("mcp/resource/read", { threadId, originCallId, server: "codex_apps", uri: widgetUri })

const bestBuyWidget = (originCallId: string) => ({
  contents: [{ uri: widgetUri, mimeType: "text/html", text: "<html>best_buy</html>" }],
  originCallId
})

const isJsonRpc = (line: string): boolean => {
  try {
    return (JSON.parse(line) as Record<string, unknown>).jsonrpc === "2.0"
  } catch {
    return false
  }
}

/** Two processes (each with its own data dir) on one fresh database; a persistent thread started on A with turn t1. */
const twoProcesses = Effect.gen(function* () {
  const url = yield* freshDatabase(clusterUrl!)
  const config = postgresConfig(url)
  const a = yield* startInitialized({ config })
  const b = yield* startInitialized({ config })
  const { threadId } = yield* threadWithTurn(a)
  return { url, a, b, threadId }
})

describe.skipIf(clusterUrl === undefined)("two app-server processes on one PostgreSQL database", () => {
  it.scopedLive(
    "a thread started on the first is listed, resumed and its widget read on the second",
    () =>
      Effect.gen(function* () {
        const { a, b, threadId } = yield* twoProcesses
        const called = resultOf(yield* toolCall(a, threadId, "t1", "best-buy-call", "best_buy_product_search"))
        assert.strictEqual(called.success, true)

        const listedOnA = resultOf(yield* a.request("thread/list", {}))
        const listedOnB = resultOf(yield* b.request("thread/list", {}))
        const threads = listedOnB.threads as Array<{ id: string; ephemeral: boolean; createdAt: string }>
        assert.deepStrictEqual(
          threads.map((t) => [t.id, t.ephemeral]),
          [[threadId, false]]
        )
        assert.deepStrictEqual(listedOnB, listedOnA)

        assert.deepStrictEqual(resultOf(yield* b.request("thread/resume", { threadId })), {
          thread: { id: threadId, ephemeral: false }
        })
        assert.deepStrictEqual(
          resultOf(yield* widgetRead(b, threadId, "best-buy-call")),
          bestBuyWidget("best-buy-call")
        )
        // The origin state came from the shared records: a call that never happened is still refused.
        assert.deepStrictEqual(errorOf(yield* widgetRead(b, threadId, "no-such-call")), {
          code: -32603,
          message: "originating MCP tool call was not found or did not complete successfully"
        })
        for (const server of [a, b])
          assert.deepStrictEqual(
            server.lines.filter((l) => !isJsonRpc(l)),
            []
          )
      }),
    90_000
  )

  it.scopedLive(
    "each process applies the other's records before its next state-changing request",
    () =>
      Effect.gen(function* () {
        const { a, b, threadId } = yield* twoProcesses
        assert.strictEqual(resultOf(yield* toolCall(a, threadId, "t1", "c1", "best_buy_product_search")).success, true)
        resultOf(yield* b.request("thread/resume", { threadId }))

        // B records a turn; A's next tool/call names it and succeeds instead of `turn not found`.
        assert.deepStrictEqual(resultOf(yield* b.request("turn/start", { threadId, turnId: "t2" })), {
          turn: { id: "t2" }
        })
        const onB = resultOf(yield* toolCall(a, threadId, "t2", "c2", "best_buy_product_search"))
        assert.deepStrictEqual([onB.callId, onB.success], ["c2", true])
        const completed = a.notifications("item/completed").map((m) => m.params as Record<string, unknown>)
        assert.deepStrictEqual(
          completed.map((p) => [p.turnId, (p.item as { id: string }).id]),
          [
            ["t1", "c1"],
            ["t2", "c2"]
          ]
        )

        // A's call is in B's history once B catches up: the same call id is a duplicate there.
        assert.deepStrictEqual(errorOf(yield* toolCall(b, threadId, "t2", "c2", "best_buy_product_search")), {
          code: -32600,
          message: "duplicate callId: c2"
        })

        // B rolls t2 back; A sees that before its next call.
        resultOf(yield* b.request("thread/rollback", { threadId, numTurns: 1 }))
        assert.deepStrictEqual(errorOf(yield* toolCall(a, threadId, "t2", "c3", "best_buy_product_search")), {
          code: -32600,
          message: "turn not found: t2"
        })
        assert.strictEqual(resultOf(yield* toolCall(a, threadId, "t1", "c3", "walmart_product_search")).success, true)
      }),
    90_000
  )

  it.scopedLive(
    "an append that loses a race is `thread {threadId} was modified concurrently`, and the next request succeeds",
    () =>
      Effect.gen(function* () {
        const { url, a, b, threadId } = yield* twoProcesses
        resultOf(yield* b.request("thread/resume", { threadId }))
        // Both appends read the same last seq, then wait on the thread row held by a third session; once
        // it is released one claims the seq and the other finds it taken.
        const release = yield* holdThreadRowLock(url, threadId)
        const fromA = yield* a.send("turn/start", { threadId, turnId: "tA" })
        const fromB = yield* b.send("turn/start", { threadId, turnId: "tB" })
        yield* awaitCount(
          url,
          "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = current_database()",
          2
        )
        yield* release
        const answers = [yield* a.response(fromA), yield* b.response(fromB)]
        const failed = answers.filter((m) => m.error !== undefined)
        assert.strictEqual(failed.length, 1, JSON.stringify(answers))
        assert.deepStrictEqual(errorOf(failed[0]!), {
          code: -32603,
          message: `thread ${threadId} was modified concurrently`
        })
        const [loser, loserTurn, winnerTurn] = answers[0]!.error !== undefined ? [a, "tA", "tB"] : [b, "tB", "tA"]
        // The loser applies the winner's record first, then its retry appends after it.
        assert.deepStrictEqual(resultOf(yield* loser.request("turn/start", { threadId, turnId: loserTurn })), {
          turn: { id: loserTurn }
        })
        assert.strictEqual(
          resultOf(yield* toolCall(loser, threadId, winnerTurn, "c-race", "best_buy_product_search")).success,
          true
        )
        const kinds = yield* psql(
          url,
          `SELECT string_agg(kind, ',' ORDER BY seq) FROM thread_records WHERE thread_id = '${threadId}'`
        )
        assert.strictEqual(kinds, "turnStarted,turnStarted,turnStarted,itemStarted,itemCompleted")
      }),
    90_000
  )

  it.scopedLive(
    "a thread deleted by one process is `thread not found` at the other's next request, which unloads it",
    () =>
      Effect.gen(function* () {
        const { a, b, threadId } = yield* twoProcesses
        resultOf(yield* b.request("thread/resume", { threadId }))
        assert.deepStrictEqual(resultOf(yield* b.request("thread/delete", { threadId })), {})
        const notFound = { code: -32600, message: `thread not found: ${threadId}` }
        assert.deepStrictEqual(errorOf(yield* toolCall(a, threadId, "t1", "c1", "best_buy_product_search")), notFound)
        assert.deepStrictEqual(errorOf(yield* a.request("thread/resume", { threadId })), notFound)
        assert.deepStrictEqual(errorOf(yield* a.request("turn/start", { threadId, turnId: "t2" })), notFound)
        assert.deepStrictEqual(resultOf(yield* a.request("thread/list", {})), { threads: [] })
      }),
    90_000
  )

  it.scopedLive(
    "driver postgres without url uses DATABASE_URL; with neither the server refuses to start",
    () =>
      Effect.gen(function* () {
        const url = yield* freshDatabase(clusterUrl!)
        const fromEnv = yield* startInitialized({ config: postgresConfig(), env: { DATABASE_URL: url } })
        const started = resultOf(yield* fromEnv.request("thread/start", {}))
        const threadId = (started.thread as { id: string }).id
        assert.strictEqual(yield* psql(url, "SELECT id FROM threads"), threadId)
        const other = yield* startInitialized({ config: postgresConfig(url) })
        const listed = resultOf(yield* other.request("thread/list", {})).threads as Array<{ id: string }>
        assert.deepStrictEqual(
          listed.map((t) => t.id),
          [threadId]
        )

        const refused = yield* start({
          args: ["--config", postgresConfig(), "--data-dir", tempDir()],
          env: { DATABASE_URL: "" }
        })
        assert.strictEqual(yield* refused.exited(), 1)
        assert.include(
          refused.stderr(),
          '[persistence] driver = "postgres" needs `url` or the DATABASE_URL environment variable'
        )
        assert.deepStrictEqual(refused.lines, [])
      }),
    90_000
  )
})
