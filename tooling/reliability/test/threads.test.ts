/**
 * Threads and the thread store under careless or hostile use: unknown thread ids hold no memory; a
 * tool result survives a lost race and a full disk, and a call cut off by SIGKILL is closed as
 * `interrupted`; one app-server per SQLite data directory, another process's write lock never stalls
 * the event loop, a newer schema is refused; idle threads unload (their MCP children with them);
 * loading a large thread leaves other requests answered. Each test records the figure it measures.
 */
import { execFileSync } from "node:child_process"
import { writeFileSync } from "node:fs"
import { createRequire } from "node:module"
import { join } from "node:path"
import { stdioCommand, widgetAppsSpec } from "@mcp-resources/fixtures"
import type { ThreadEvent } from "@mcp-resources/protocol"
import { ThreadStore } from "@mcp-resources/thread-store"
import { Effect, Layer, ManagedRuntime } from "effect"
import { afterAll, describe, expect, inject, it } from "vitest"
import { AppServerProcess, Figures, Misbehave } from "../src/index.js"
import { repoDir } from "../src/Figures.js"
import type { Message } from "../src/AppServerProcess.js"
import { freePort, readStore, tempDir, writeConfig } from "./utils/app.js"
import { startInProcess, wsClient } from "./utils/clients.js"

const section = "threads"
const temps: Array<{ remove: () => void }> = []
const temp = (prefix: string) => {
  const t = tempDir(prefix)
  temps.push(t)
  return t.dir
}
afterAll(() => {
  for (const t of temps) t.remove()
})

const mib = (kib: number | undefined) => Math.round((kib ?? 0) / 1024)

/** better-sqlite3, as the thread store resolves it (raw access to the database, like another process would have). */
interface RawDatabase {
  exec(sql: string): void
  close(): void
}
const Sqlite = createRequire(join(repoDir, "packages", "thread-store", "package.json"))("better-sqlite3") as new (
  file: string
) => RawDatabase

/** A store of this process on the given SQLite file, for seeding and reading threads. */
const storeRuntime = (filename: string) => ManagedRuntime.make(ThreadStore.layerSqlite({ filename }))

const threadIdOf = (m: Message) => (m.result!.thread as { id: string }).id
const threadIds = (m: Message) => ((m.result?.threads ?? []) as Array<{ id: string }>).map((t) => t.id)

describe("threads and the thread store", () => {
  it("rollbacks on 24 unknown 2 MiB thread ids are answered `thread not found` and hold no memory (48 MiB heap)", async () => {
    // The bundled app-server's own heap is about 15 MiB after start: 48 MiB leaves room for a request
    // in flight but never for the 48 MiB of ids sent.
    const server = await AppServerProcess.startInitialized({
      dataDir: temp("unknown"),
      env: { NODE_OPTIONS: "--max-old-space-size=48" }
    })
    try {
      const before = server.rssKiB()
      const count = 24
      for (let i = 0; i < count; i++) {
        const threadId = `unknown-${i}-${"x".repeat(2 * 2 ** 20)}`
        const answer = await server.request("thread/rollback", { threadId, numTurns: 1 }, 30_000)
        expect(answer.error?.code).toBe(-32600)
        expect(answer.error?.message === `thread not found: ${threadId}`, `answer ${i}`).toBe(true)
      }
      // Still serving, in a heap that could never hold 48 MiB of ids besides its own.
      expect((await server.request("thread/list", {})).result).toEqual({ threads: [] })
      const after = server.rssKiB()
      Figures.add(section, {
        "unknown thread ids sent (2 MiB each, 48 MiB heap)": count,
        "app-server RSS before the unknown ids (MiB)": mib(before),
        "app-server RSS after the unknown ids (MiB)": mib(after)
      })
    } finally {
      await server.close()
    }
  }, 120_000)

  it("a second app-server on the same data dir is refused naming it; a schema from a newer release is refused naming both versions", async () => {
    const dataDir = temp("lock")
    const first = await AppServerProcess.startInitialized({ dataDir })
    let refusals = 0
    try {
      const second = await AppServerProcess.start({ dataDir })
      const exit = await Promise.race([
        second.exited,
        new Promise<never>((_, reject) => setTimeout(() => reject(new Error("second server did not exit")), 20_000))
      ]).finally(() => second.close("SIGKILL"))
      expect(exit.code).not.toBe(0)
      expect(second.stderr()).toContain(
        `the data directory ${dataDir} is in use by another app-server (pid ${first.pid}); stop it, or give this one another --data-dir`
      )
      refusals++
    } finally {
      await first.close()
    }
    // Released with the first server: a new one starts, and SIGKILL leaves a stale lock that is taken over.
    const again = await AppServerProcess.startInitialized({ dataDir })
    again.child.kill("SIGKILL")
    await again.exited
    const afterKill = await AppServerProcess.startInitialized({ dataDir })
    await afterKill.close()

    const db = new Sqlite(join(dataDir, "state.sqlite"))
    db.exec("INSERT INTO thread_store_migrations (version, name) VALUES (9, 'from_a_newer_release')")
    db.close()
    const newer = await AppServerProcess.start({ dataDir })
    try {
      const exit = await Promise.race([
        newer.exited,
        new Promise<never>((_, reject) => setTimeout(() => reject(new Error("server did not exit")), 20_000))
      ])
      expect(exit.code).not.toBe(0)
      expect(newer.stderr()).toContain(
        "its schema is at version 9, newer than version 2, the newest this version of mcp-resources knows"
      )
      refusals++
    } finally {
      await newer.close("SIGKILL")
    }
    Figures.add(section, { "start-ups refused (data dir in use, newer schema)": refusals })
  }, 90_000)

  it("another process holding the SQLite write lock does not stall other requests; the write goes through once it is released", async () => {
    const dataDir = temp("busy")
    const server = await AppServerProcess.startInitialized({ dataDir })
    const db = new Sqlite(join(dataDir, "state.sqlite"))
    let locked = false
    try {
      const threadId = threadIdOf(await server.request("thread/start", {}))
      db.exec("BEGIN IMMEDIATE")
      locked = true
      const sent = Date.now()
      const turn = server.send("turn/start", { threadId, turnId: "t1" })
      const list = server.send("thread/list", {})
      const listed = await server.response(list, 20_000)
      const listedAfterMs = Date.now() - sent
      expect(listed.result).toBeDefined()
      db.exec("COMMIT")
      locked = false
      const turned = await server.response(turn, 20_000)
      expect(turned.result, JSON.stringify(turned.error)).toEqual({ turn: { id: "t1" } })
      // The read was answered while the write waited for the lock: it did not queue behind it.
      expect(server.messages.indexOf(listed)).toBeLessThan(server.messages.indexOf(turned))
      Figures.add(section, {
        "unrelated request answered while another process held the write lock (ms)": listedAfterMs
      })
    } finally {
      if (locked) db.exec("COMMIT")
      db.close()
      await server.close()
    }
  }, 60_000)

  it("SQLite: a call in flight at SIGKILL is closed as failed `interrupted` when its thread loads", async () => {
    const dataDir = temp("interrupted")
    const config = writeConfig(dataDir, { bad: Misbehave.command("hang") })
    const first = await AppServerProcess.startInitialized({ config, dataDir })
    let threadId = ""
    try {
      threadId = threadIdOf(await first.request("thread/start", {}))
      await first.request("turn/start", { threadId, turnId: "t1" })
      first.send("tool/call", { threadId, turnId: "t1", callId: "c1", name: "mcp__bad__work", arguments: "{}" })
      await first.waitFor((m) => m.method === "item/started", 20_000)
      first.child.kill("SIGKILL")
      await first.exited
    } finally {
      await first.close("SIGKILL")
    }
    const second = await AppServerProcess.startInitialized({ config, dataDir })
    try {
      expect((await second.request("thread/resume", { threadId }, 20_000)).result).toEqual({
        thread: { id: threadId, ephemeral: false }
      })
      // The spec's rule stays: a new attempt takes a new callId.
      const again = await second.request("tool/call", {
        threadId,
        turnId: "t1",
        callId: "c1",
        name: "mcp__bad__work",
        arguments: "{}"
      })
      expect(again.error).toEqual({ code: -32600, message: "duplicate callId: c1" })
    } finally {
      await second.close()
    }
    const records = (await readStore({ driver: "sqlite", filename: join(dataDir, "state.sqlite") }, [threadId])).get(
      threadId
    )!
    const completed = records.flatMap((r) => (r.event._tag === "itemCompleted" ? [r.event.item] : []))
    expect(completed).toHaveLength(1)
    expect(completed[0]).toMatchObject({ id: "c1", status: "failed", result: null, error: { message: "interrupted" } })
    Figures.add(section, { "calls cut off by SIGKILL closed as interrupted at load (SQLite)": completed.length })
  }, 90_000)

  const cluster = inject("pgCluster")
  if ("skipped" in cluster) {
    process.stderr.write(`SKIPPED PostgreSQL interrupted-item test: ${cluster.skipped}\n`)
    Figures.note(section, `PostgreSQL interrupted-item test skipped: ${cluster.skipped}`)
  }
  it.skipIf("skipped" in cluster)(
    "PostgreSQL: a started item another instance may still be running is left open at load",
    async () => {
      const url = (cluster as { url: string }).url
      const dataDir = temp("interrupted-pg")
      const config = writeConfig(
        dataDir,
        { bad: Misbehave.command("hang") },
        `[persistence]\ndriver = "postgres"\nurl = ${JSON.stringify(url)}\n`
      )
      const running = await AppServerProcess.startInitialized({ config, dataDir })
      const loader = await AppServerProcess.startInitialized({ config, dataDir: temp("interrupted-pg-2") })
      try {
        const threadId = threadIdOf(await running.request("thread/start", {}))
        await running.request("turn/start", { threadId, turnId: "t1" })
        running.send("tool/call", { threadId, turnId: "t1", callId: "c1", name: "mcp__bad__work", arguments: "{}" })
        await running.waitFor((m) => m.method === "item/started", 20_000)
        expect((await loader.request("thread/resume", { threadId }, 20_000)).result).toEqual({
          thread: { id: threadId, ephemeral: false }
        })
        // The loading instance appended nothing: its next turn is the thread's next record.
        await loader.request("turn/start", { threadId, turnId: "t2" })
        const records = (await readStore({ driver: "postgres", url }, [threadId])).get(threadId)!
        expect(records.map((r) => r.event._tag)).toEqual(["turnStarted", "itemStarted", "turnStarted"])
        Figures.add(section, { "open items of another instance left alone at load (PostgreSQL)": 1 })
      } finally {
        await Promise.all([running.close(), loader.close()])
      }
    },
    90_000
  )

  it("the completed append of a tool that ran survives a lost race with another process, and a full disk records a failed item once writes are accepted again", async () => {
    const dataDir = temp("lost-result")
    const configPath = writeConfig(dataDir, { codex_apps: stdioCommand(widgetAppsSpec()) })
    const filename = join(dataDir, "state.sqlite")
    const other = storeRuntime(filename)
    let mode: "race" | "full" | "ok" = "ok"
    let raced = 0
    let refusedWrites = 0
    const diskFull = (id: string) =>
      new ThreadStore.ThreadStoreError({
        reason: "storage",
        message: `cannot append to thread ${id}: SQLITE_FULL: database or disk is full`
      })
    const isCompleted = (event: ThreadEvent.ThreadEvent) => event._tag === "itemCompleted"
    // The store layer wrapper: another process appends just before the completed item (the race), or
    // every append fails as on a full disk from the completed item on.
    const store = Layer.effect(
      ThreadStore.ThreadStore,
      Effect.map(ThreadStore.ThreadStore, (inner) => ({
        ...inner,
        append: (id: string, expectedSeq: number, event: ThreadEvent.ThreadEvent) =>
          Effect.gen(function* () {
            if (mode === "race" && isCompleted(event)) {
              mode = "ok"
              raced++
              yield* Effect.promise(() =>
                other.runPromise(
                  Effect.flatMap(ThreadStore.ThreadStore, (s) =>
                    Effect.flatMap(s.lastSeq(id), (seq) =>
                      s.append(id, seq, { _tag: "turnStarted", turnId: "elsewhere" })
                    )
                  )
                )
              )
            }
            if (mode === "full" && isCompleted(event)) {
              refusedWrites++
              return yield* Effect.fail(diskFull(id))
            }
            return yield* inner.append(id, expectedSeq, event)
          })
      }))
    ).pipe(Layer.provide(ThreadStore.layerSqlite({ filename })))
    const previousLog = process.env.MCP_RESOURCES_LOG
    process.env.MCP_RESOURCES_LOG = "error"
    const server = await startInProcess({ configPath, dataDir, store })
    try {
      const threadId = threadIdOf(await server.request("thread/start", {}))
      await server.request("turn/start", { threadId, turnId: "t1" })
      const call = (callId: string) =>
        server.request(
          "tool/call",
          {
            threadId,
            turnId: "t1",
            callId,
            name: "mcp__codex_apps__best_buy_product_search",
            arguments: '{"query":"tv"}'
          },
          20_000
        )

      mode = "race"
      const won = await call("c-race")
      expect(won.error, JSON.stringify(won.error)).toBeUndefined()
      expect(won.result).toMatchObject({ callId: "c-race", success: true })
      expect(raced).toBe(1)

      mode = "full"
      const lost = await call("c-full")
      expect(lost.error?.code).toBe(-32603)
      expect(lost.error?.message).toBe(`cannot append to thread ${threadId}: SQLITE_FULL: database or disk is full`)
      mode = "ok"
      const failed = await server.waitFor(
        (m) => m.method === "item/completed" && m.params?.item?.id === "c-full",
        20_000
      )
      expect(failed.params?.item).toMatchObject({
        status: "failed",
        result: null,
        error: {
          message: `the result could not be stored: cannot append to thread ${threadId}: SQLITE_FULL: database or disk is full`
        }
      })
      expect((await call("c-full")).error).toEqual({ code: -32600, message: "duplicate callId: c-full" })
      expect((await call("c-full-2")).result).toMatchObject({ success: true })

      const records = (await readStore({ driver: "sqlite", filename }, [threadId])).get(threadId)!
      const items = records.flatMap((r) =>
        r.event._tag === "itemCompleted" ? [`${r.event.item.id}:${r.event.item.status}`] : []
      )
      expect(items).toEqual(["c-race:completed", "c-full:failed", "c-full-2:completed"])
      expect(records.some((r) => r.event._tag === "turnStarted" && r.event.turnId === "elsewhere")).toBe(true)
      Figures.add(section, {
        "completed appends that lost a race to another process and were kept": raced,
        "appends refused as on a full disk before the failed item was stored": refusedWrites
      })
    } finally {
      await server.close()
      await other.dispose()
      if (previousLog === undefined) delete process.env.MCP_RESOURCES_LOG
      else process.env.MCP_RESOURCES_LOG = previousLog
    }
  }, 90_000)

  it("idle threads unload: ephemeral threads end with their connection, idle persistent threads release their MCP children, resume loads them again", async () => {
    const dataDir = temp("unload")
    const config = writeConfig(dataDir, { codex_apps: stdioCommand(widgetAppsSpec()) })
    const port = await freePort()
    const server = await AppServerProcess.startInitialized({
      config,
      dataDir,
      args: ["--listen", `ws://127.0.0.1:${port}`, "--thread-idle-timeout", "0.2"],
      env: { MCP_RESOURCES_LOG: "info" }
    })
    await server.waitForStderr(/listening on ws:/, 1, 20_000)
    const children = () => {
      try {
        return execFileSync("ps", ["-o", "pid=", "--ppid", String(server.pid)], { encoding: "utf8" })
          .split("\n")
          .filter((line) => line.trim() !== "").length
      } catch {
        return 0 // ps exits 1 when there is none
      }
    }
    try {
      // One connection holds five threads, each bound to the set of its turn, across five reloads.
      const rounds = 5
      const threads: Array<string> = []
      const holder = await wsClient(`ws://127.0.0.1:${port}`)
      let held = 0
      try {
        for (let round = 0; round < rounds; round++) {
          const threadId = threadIdOf(await holder.request("thread/start", {}))
          threads.push(threadId)
          expect((await holder.request("turn/start", { threadId })).result).toBeDefined()
          expect((await server.request("config/mcpServer/reload", {}, 20_000)).result).toEqual({})
        }
        // Held threads keep their bindings until their next turn, as before.
        held = children()
        expect(held, "MCP children while a connection holds the threads").toBeGreaterThanOrEqual(rounds)
      } finally {
        await holder.close()
      }
      // The connection closed: after the idle time every thread unloads and its binding is released.
      await server.waitForStderr(/thread unloaded.*reason=idle/, rounds, 30_000)
      const deadline = Date.now() + 15_000
      let after = children()
      while (after > 1 && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 100))
        after = children()
      }
      expect(after, `MCP children after ${rounds} reloads with every thread idle`).toBeLessThanOrEqual(1)

      // Resume loads an unloaded thread again; its next turn binds the latest set.
      const threadId = threads[0]!
      expect((await server.request("thread/resume", { threadId }, 20_000)).result).toEqual({
        thread: { id: threadId, ephemeral: false }
      })
      expect((await server.request("turn/start", { threadId })).result).toBeDefined()
      const tools = await server.request("tool/list", { threadId }, 20_000)
      expect(((tools.result?.tools ?? []) as Array<{ name: string }>).map((t) => t.name)).toContain(
        "mcp__codex_apps__best_buy_product_search"
      )

      const client = await wsClient(`ws://127.0.0.1:${port}`)
      let ephemeralId = ""
      try {
        ephemeralId = threadIdOf(await client.request("thread/start", { ephemeral: true }))
        const listed = await server.request("thread/list", {})
        expect(threadIds(listed)).toContain(ephemeralId)
      } finally {
        await client.close()
      }
      await server.waitForStderr(/thread unloaded.*reason=ephemeral/, 1, 20_000)
      const listed = await server.request("thread/list", {})
      expect(threadIds(listed)).not.toContain(ephemeralId)
      Figures.add(section, {
        [`MCP children after ${rounds} reloads, a connection holding the threads`]: held,
        [`MCP children after ${rounds} reloads, the connection closed and every idle thread unloaded`]: after,
        "ephemeral threads ended with their connection": 1
      })
    } finally {
      await server.close()
    }
  }, 120_000)

  it("loading a 75 MiB thread leaves other requests answered while it loads, another thread's first request included", async () => {
    const dataDir = temp("large")
    const filename = join(dataDir, "state.sqlite")
    // 600 records of 128 KiB: the 78 MB thread of issue 46 (item 15).
    const records = 600
    const text = "y".repeat(128 * 1024)
    const seeded = storeRuntime(filename)
    const threadId = "large-thread"
    try {
      await seeded.runPromise(
        Effect.gen(function* () {
          const store = yield* ThreadStore.ThreadStore
          for (const id of ["warm-thread", "other-thread"]) {
            yield* store.create({ id, createdAt: "2026-01-01T00:00:00.000Z", config: null })
            yield* store.append(id, 0, { _tag: "turnStarted", turnId: "t1" })
          }
          yield* store.create({ id: threadId, createdAt: "2026-01-01T00:00:00.000Z", config: null })
          let seq = yield* store.append(threadId, 0, { _tag: "turnStarted", turnId: "t1" })
          for (let i = 0; i < records; i++) {
            seq = yield* store.append(threadId, seq, {
              _tag: "itemCompleted",
              turnId: "t1",
              item: {
                type: "mcpToolCall",
                id: `c${i}`,
                server: "s",
                tool: "t",
                arguments: {},
                status: "completed",
                result: { content: [{ type: "text", text }], isError: false },
                error: null,
                durationMs: 1
              }
            })
          }
        })
      )
    } finally {
      await seeded.dispose()
    }
    writeFileSync(join(dataDir, "empty.toml"), "")
    const server = await AppServerProcess.startInitialized({
      config: join(dataDir, "empty.toml"),
      dataDir,
      env: { MCP_RESOURCES_LOG: "info" }
    })
    try {
      // A first tool/list before the load, so that the one measured during it pays no start-up cost.
      expect((await server.request("tool/list", { threadId: "warm-thread" }, 20_000)).result).toEqual({ tools: [] })
      const started = Date.now()
      const resume = server.send("thread/resume", { threadId })
      await server.waitForStderr(/loading thread/, 1, 30_000)
      const list = server.send("thread/list", {})
      // Another thread, not loaded yet: its first request loads it beside the large one.
      const otherSent = Date.now()
      const tools = server.send("tool/list", { threadId: "other-thread" })
      const otherTools = await server.response(tools, 60_000)
      const otherMs = Date.now() - otherSent
      const [resumed, listed] = await Promise.all([server.response(resume, 60_000), server.response(list, 60_000)])
      const loadMs = Date.now() - started
      expect(resumed.result).toEqual({ thread: { id: threadId, ephemeral: false } })
      expect(listed.result).toBeDefined()
      expect(otherTools.result).toEqual({ tools: [] })
      // Ordering, not time: the requests sent after the load began were answered before the load ended.
      expect(server.messages.indexOf(listed)).toBeLessThan(server.messages.indexOf(resumed))
      expect(server.messages.indexOf(otherTools)).toBeLessThan(server.messages.indexOf(resumed))
      Figures.add(section, {
        "records of the large thread (128 KiB each)": records + 1,
        "large thread load, whole (ms, informative)": loadMs,
        "another thread's first tool/list during the large load (ms, informative)": otherMs
      })
      Figures.note(
        section,
        `large load: while a thread of ${records + 1} records (${Math.round((records * text.length) / 1e6)} MB) loaded in ${loadMs} ms, another thread's first \`tool/list\` was answered in ${otherMs} ms (issue 46 measured 824 ms: every load waited for the one before it, and a read's first page was 128 records, 16 MB here)`
      )
    } finally {
      await server.close()
    }
  }, 180_000)
})
