/**
 * Concurrency: 200 tool calls across 20 threads sent at once. Every call is answered exactly once;
 * per thread, the started items come in arrival order and each completes exactly once after it started;
 * the stored history, read in a fresh process after `thread/resume`, holds each call once, in order.
 */
import { join } from "node:path"
import { stdioCommand } from "@mcp-resources/fixtures"
import { afterAll, describe, expect, it } from "vitest"
import { AppServerProcess, Figures } from "../src/index.js"
import { readStore, tempDir, writeConfig } from "./utils/app.js"

const threads = 20
const callsPerThread = 10
const temp = tempDir("concurrency")

afterAll(() => temp.remove())

describe("concurrent tool calls", () => {
  it("200 calls across 20 threads: per-thread order holds, nothing is lost or duplicated", async () => {
    const config = writeConfig(temp.dir, {
      srv: stdioCommand({
        name: "srv",
        resourcePages: [{ result: { resources: [{ uri: "test://x", name: "x" }] }, delayMs: 3 }],
        tools: [
          { name: "echo", delayMs: 5 },
          { name: "slow", delayMs: 40 }
        ]
      })
    })
    let server = await AppServerProcess.startInitialized({ config, dataDir: temp.dir })
    const ids: Array<string> = []
    try {
      for (let t = 0; t < threads; t++) {
        const id = ((await server.request("thread/start", {})).result!.thread as { id: string }).id
        ids.push(id)
        await server.request("turn/start", { threadId: id, turnId: "t1" })
      }
      // Interleave threads so that every thread's calls arrive between other threads' calls.
      const sent: Array<{ threadId: string; callId: string; rpc: string }> = []
      for (let c = 0; c < callsPerThread; c++) {
        for (const [t, threadId] of ids.entries()) {
          const callId = `th${t}-c${c}`
          const name = c % 3 === 0 ? "mcp__srv__slow" : c % 3 === 1 ? "mcp__srv__echo" : "list_mcp_resources"
          const args = name === "list_mcp_resources" ? '{"server":"srv"}' : `{"n":${c}}`
          sent.push({
            threadId,
            callId,
            rpc: server.send("tool/call", { threadId, turnId: "t1", callId, name, arguments: args })
          })
        }
      }
      const responses = await Promise.all(sent.map((s) => server.response(s.rpc, 60_000)))
      for (const [i, response] of responses.entries()) {
        expect(response.error, JSON.stringify(response)).toBeUndefined()
        expect(response.result).toMatchObject({ callId: sent[i]!.callId, success: true })
      }
      // Exactly one response per request id.
      const responseIds = server.messages
        .filter((m) => m.method === undefined && typeof m.id === "string" && m.id.startsWith("rq-"))
        .map((m) => m.id)
      expect(new Set(responseIds).size).toBe(responseIds.length)

      let eventsChecked = 0
      for (const [t, threadId] of ids.entries()) {
        const expected = Array.from({ length: callsPerThread }, (_, c) => `th${t}-c${c}`)
        const notes = server.messages.filter((m) => m.params?.threadId === threadId && m.method?.startsWith("item/"))
        const started = notes.filter((m) => m.method === "item/started").map((m) => m.params!.item!.id)
        const completed = notes.filter((m) => m.method === "item/completed").map((m) => m.params!.item!.id)
        expect(started, `thread ${t} started order`).toEqual(expected)
        expect([...completed].sort(), `thread ${t} completed once each`).toEqual([...expected].sort())
        for (const id of expected) {
          const s = notes.findIndex((m) => m.method === "item/started" && m.params!.item!.id === id)
          const c = notes.findIndex((m) => m.method === "item/completed" && m.params!.item!.id === id)
          expect(s).toBeLessThan(c)
        }
        eventsChecked += started.length + completed.length
      }
      expect(
        server.messages.some((m) => m.params?.threadId !== undefined && !ids.includes(m.params.threadId as string))
      ).toBe(false)
      await server.close()

      // A fresh process: every thread resumes, and the history rejects a reused callId.
      server = await AppServerProcess.startInitialized({ config, dataDir: temp.dir })
      for (const threadId of ids) expect((await server.request("thread/resume", { threadId })).result).toBeDefined()
      const reuse = await server.request("tool/call", {
        threadId: ids[0],
        turnId: "t1",
        callId: "th0-c0",
        name: "mcp__srv__echo",
        arguments: "{}"
      })
      expect(reuse.error).toEqual({ code: -32600, message: "duplicate callId: th0-c0" })
      await server.close()

      const stored = await readStore({ driver: "sqlite", filename: join(temp.dir, "state.sqlite") }, ids)
      for (const [t, threadId] of ids.entries()) {
        const expected = Array.from({ length: callsPerThread }, (_, c) => `th${t}-c${c}`)
        const records = stored.get(threadId)!
        const seqs = records.map((r) => r.seq)
        expect(seqs).toEqual(seqs.map((_, i) => i + 1))
        const startedIds = records.flatMap((r) => (r.event._tag === "itemStarted" ? [r.event.item.id] : []))
        const completedIds = records.flatMap((r) => (r.event._tag === "itemCompleted" ? [r.event.item.id] : []))
        expect(startedIds).toEqual(expected)
        expect([...completedIds].sort()).toEqual([...expected].sort())
        eventsChecked += startedIds.length + completedIds.length
      }
      Figures.add("concurrency", {
        "cases concurrent tool calls": threads * callsPerThread,
        threads,
        "events checked (notifications and stored records)": eventsChecked
      })
    } finally {
      await server.close()
    }
  }, 120_000)
})
