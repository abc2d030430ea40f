/**
 * Scenario 5, resume: rebuilding a thread's origin state on SQLite from a checkpoint plus 10,000 later
 * events (10% turn starts, 80% completed items of which half are apps-server tool calls, 10% rollbacks
 * of one turn), as the app-server resumes a thread: `ThreadStore.sincePages` into `OriginState.replayer`,
 * a page at a time, against a `SELECT` of the same rows and a `JSON.parse` of each (better-sqlite3, the
 * driver the store itself runs on). Rows for information: the same SELECT and parse with the parsed
 * events kept, and `ThreadStore.load` + `OriginState.rebuild` (the whole record list held at once).
 */
import * as Fs from "node:fs"
import { createRequire } from "node:module"
import * as Os from "node:os"
import * as Path from "node:path"
import type { ThreadEvent, ToolCallItem } from "@mcp-resources/protocol"
import { OriginState } from "@mcp-resources/resource-origins"
import { ThreadStore } from "@mcp-resources/thread-store"
import { Effect, ManagedRuntime, Random } from "effect"
import { interleaved, medianPeakMemory } from "../internal/harness.js"
import {
  type Output,
  type Result,
  type Row,
  atMostOverRuns,
  info,
  infoOverRuns,
  rowOf,
  spreadOf
} from "../internal/report.js"
import { profileTop } from "../internal/profile.js"
import type { Context } from "../internal/scenario.js"

const appsServerName = "codex_apps"
const laterEvents = 10_000

/** The part of better-sqlite3 this scenario uses (loaded from the thread store's own dependency). */
interface Database {
  prepare(sql: string): { all(...params: Array<unknown>): Array<{ seq: number; event: string }> }
  close(): void
}

const openDatabase = (filename: string): Database => {
  const require = createRequire(import.meta.resolve("@mcp-resources/thread-store"))
  const BetterSqlite3 = require("better-sqlite3") as new (filename: string, options: { readonly: boolean }) => Database
  return new BetterSqlite3(filename, { readonly: true })
}

const item = (callId: string, apps: boolean): ToolCallItem.McpToolCallItem =>
  apps
    ? {
        type: "mcpToolCall",
        id: callId,
        server: appsServerName,
        tool: "search_documents",
        arguments: { query: `query ${callId}`, link_id: "link_1" },
        status: "completed",
        result: { content: [{ type: "text", text: `found 3 documents for ${callId}` }], isError: false },
        error: null,
        durationMs: 42,
        connectorId: "connector_docs",
        linkId: "link_1",
        mcpAppResourceUri: "ui://widget/search.html"
      }
    : {
        type: "mcpToolCall",
        id: callId,
        server: "docs",
        tool: "read_mcp_resource",
        arguments: { server: "docs", uri: `memo://${callId}` },
        status: "completed",
        result: {
          content: [
            {
              type: "text",
              text: JSON.stringify({
                server: "docs",
                uri: `memo://${callId}`,
                contents: [{ uri: `memo://${callId}`, text: "x".repeat(200) }]
              })
            }
          ],
          isError: false
        },
        error: null,
        durationMs: 7
      }

/** The checkpoint and the 10,000 later events, in a seeded shuffled order (the first later event starts a turn). */
const makeEvents = (): Array<ThreadEvent.ThreadEvent> => {
  const origins = Array.from({ length: 32 }, (_, i) => ({
    call_id: `old-call-${i}`,
    turn_id: `old-turn-${i % 8}`,
    tool: "search_documents",
    connector_id: "connector_docs",
    link_id: "link_1",
    uri: "ui://widget/search.html"
  }))
  const turns = Array.from({ length: 8 }, (_, i) => `old-turn-${i}`)
  const compacted: ThreadEvent.ThreadEvent = {
    _tag: "compacted",
    state: { mcp_resource_origins: { origins, turns, current_turn_id: "old-turn-7" } }
  }
  const kinds: Array<"turn" | "item" | "rollback"> = [
    ...Array<"turn">(laterEvents / 10 - 1).fill("turn"),
    ...Array<"item">((laterEvents * 8) / 10).fill("item"),
    ...Array<"rollback">(laterEvents / 10).fill("rollback")
  ]
  // A seeded Fisher-Yates shuffle (effect's Random), so that every run replays the same thread.
  const shuffled = Effect.runSync(Random.shuffle(kinds).pipe(Effect.withRandom(Random.make("bench-resume"))))
  const order = ["turn" as const, ...shuffled]
  const events: Array<ThreadEvent.ThreadEvent> = [compacted]
  let turn = 0
  let items = 0
  for (const kind of order) {
    if (kind === "turn") events.push({ _tag: "turnStarted", turnId: `turn-${++turn}` })
    else if (kind === "rollback") events.push({ _tag: "threadRolledBack", numTurns: 1 })
    else {
      const callId = `call-${++items}`
      events.push({ _tag: "itemCompleted", turnId: `turn-${turn}`, item: item(callId, items % 2 === 0) })
    }
  }
  return events
}

export const run = async (ctx: Context): Promise<Output> => {
  const dir = Fs.mkdtempSync(Path.join(Os.tmpdir(), "mcp-bench-resume-"))
  const filename = Path.join(dir, "state.sqlite")
  const runtime = ManagedRuntime.make(ThreadStore.layerSqlite({ filename }))
  const threadId = "bench-thread"
  const events = makeEvents()
  let db: Database | undefined
  try {
    const setupStarted = performance.now()
    await runtime.runPromise(
      Effect.gen(function* () {
        const store = yield* ThreadStore.ThreadStore
        yield* store.create({ id: threadId, createdAt: new Date(0).toISOString(), config: null })
        let seq = 0
        for (const event of events) seq = yield* store.append(threadId, seq, event)
      })
    )
    ctx.log(`   set-up: ${events.length} appends in ${((performance.now() - setupStarted) / 1000).toFixed(1)} s`)
    const database = openDatabase(filename)
    db = database
    const select = database.prepare(`SELECT seq, event FROM thread_records
      WHERE thread_id = ? AND seq >= COALESCE(
        (SELECT MAX(seq) FROM thread_records WHERE thread_id = ? AND kind = 'compacted'), 0)
      ORDER BY seq`)
    const options = { appsServerName }
    const expected = OriginState.rebuild(events, options)
    // Resume as the app-server does it: the records a page at a time into the origin state's replayer,
    // no page kept.
    const ours = async () => {
      const state = await runtime.runPromise(
        Effect.flatMap(ThreadStore.ThreadStore, (store) => {
          const replayer = OriginState.replayer(options)
          return store
            .sincePages(threadId, 0, (page) =>
              Effect.sync(() => {
                for (const record of page) replayer.add(record.event)
              })
            )
            .pipe(Effect.map(() => replayer.result().state))
        })
      )
      if (state.origins.length !== expected.origins.length) throw new Error("rebuild gave a different state")
    }
    // The whole record list first (`load`), then `OriginState.rebuild` over it.
    const loaded = async () => {
      const state = await runtime.runPromise(
        Effect.flatMap(ThreadStore.ThreadStore, (store) => store.load(threadId)).pipe(
          Effect.map((loaded) =>
            OriginState.rebuild(
              loaded.records.map((r) => r.event),
              options
            )
          )
        )
      )
      if (state.origins.length !== expected.origins.length) throw new Error("rebuild gave a different state")
    }
    const baseline = () => {
      const rows = select.all(threadId, threadId)
      let n = 0
      for (const row of rows) if (JSON.parse(row.event) !== null) n++
      if (n !== events.length) throw new Error(`baseline read ${n} rows, expected ${events.length}`)
    }
    // The floor of any loader that returns the events: the same SELECT and parse, the parsed events
    // kept (as a load must) until the state is rebuilt from them. Kept objects survive young-generation
    // collections and are copied; the baseline's die young.
    const kept = () => {
      const rows = select.all(threadId, threadId)
      const out: Array<unknown> = []
      for (const row of rows) out.push({ seq: row.seq, event: JSON.parse(row.event) })
      if (out.length !== events.length) throw new Error(`kept baseline read ${out.length} rows`)
      return out.length
    }
    const perRun: Array<{ base: number; kept: number; ours: number; loaded: number }> = []
    let last: Awaited<ReturnType<typeof interleaved>> = []
    for (let r = 0; r < ctx.runs; r++) {
      last = await interleaved(
        [
          { name: "SELECT + JSON.parse", fn: baseline, sync: true },
          { name: "sincePages + OriginState.replayer", fn: ours },
          { name: "SELECT + JSON.parse, events kept", fn: kept, sync: true },
          { name: "load + OriginState.rebuild", fn: loaded }
        ],
        { iterations: ctx.quick ? 6 : 24, rounds: ctx.quick ? 2 : 4, warmupIterations: ctx.quick ? 1 : r === 0 ? 5 : 2 }
      )
      perRun.push({
        base: last[0]!.summary.median,
        ours: last[1]!.summary.median,
        kept: last[2]!.summary.median,
        loaded: last[3]!.summary.median
      })
      ctx.log(
        `   run ${r + 1}: ours ${perRun[r]!.ours.toFixed(1)} ms, SELECT+parse ${perRun[r]!.base.toFixed(1)} ms, kept ${perRun[r]!.kept.toFixed(1)} ms, load+rebuild ${perRun[r]!.loaded.toFixed(1)} ms`
      )
    }
    const [b, o, k, l] = last
    const scenario = "5. resume: checkpoint + 10k events"
    const base = b!.summary.median
    const memRuns = ctx.quick ? 1 : 5
    const ratios = perRun.map((x) => x.ours / x.base)
    const rows: Array<Row> = [
      rowOf(scenario, b!, base, { memory: await medianPeakMemory(baseline, memRuns) }),
      {
        ...rowOf(scenario, o!, base, {
          ratioLabel: "vs SELECT+parse",
          memory: await medianPeakMemory(ours, memRuns),
          extra: `final state: ${expected.origins.length} origins, ${expected.turns.length} turns`
        }),
        spread: spreadOf(ratios)
      },
      {
        ...rowOf(scenario, k!, base, { ratioLabel: "vs SELECT+parse", memory: await medianPeakMemory(kept, memRuns) }),
        spread: spreadOf(perRun.map((x) => x.kept / x.base))
      },
      {
        ...rowOf(scenario, l!, base, {
          ratioLabel: "vs SELECT+parse",
          memory: await medianPeakMemory(loaded, memRuns)
        }),
        spread: spreadOf(perRun.map((x) => x.loaded / x.base))
      }
    ]
    const check = atMostOverRuns(
      "resume 10k events (SQLite)",
      "ratio of medians vs SELECT + JSON.parse (sincePages + replayer)",
      ratios,
      2
    )
    const results: Array<Result> = [
      check,
      infoOverRuns(
        "resume 10k events (SQLite)",
        "ratio of medians vs SELECT + JSON.parse with the events kept",
        perRun.map((x) => x.ours / x.kept)
      ),
      infoOverRuns(
        "resume 10k events (SQLite)",
        "load + OriginState.rebuild (the whole list kept), ratio vs SELECT + JSON.parse",
        perRun.map((x) => x.loaded / x.base)
      ),
      info("resume 10k events (SQLite)", "median ms", o!.summary.median)
    ]
    const notes: Array<string> = []
    if (check.met === false)
      notes.push(`missed; profile of sincePages + replayer: ${await profileTop(ours, ctx.quick ? 5 : 40)}`)
    ctx.log(`   ours ${o!.summary.median.toFixed(2)} ms, baseline ${base.toFixed(2)} ms`)
    return { rows, results, notes }
  } finally {
    db?.close()
    await runtime.dispose()
    Fs.rmSync(dir, { recursive: true, force: true })
  }
}
