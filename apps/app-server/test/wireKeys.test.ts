/**
 * Keys such as `__proto__`, `constructor` and `prototype` that reach the app-server from the wire stay
 * plain own data through it: a `before_tool` hook's rewritten arguments (hook output) are recorded in
 * the call's audit whole.
 */
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { stdioCommand } from "@mcp-resources/fixtures"
import { ThreadStore } from "@mcp-resources/thread-store"
import { Effect } from "effect"
import { tempDir, writeConfig } from "./utils/AppServerProcess.js"
import { resultOf, startInProcess, threadIdOf } from "./utils/InProcess.js"

process.env.MCP_RESOURCES_LOG = "error"

/** What the hook prints: JSON text, so `__proto__` is an own key of what the app-server parses. */
const rewritten = '{"__proto__":{"polluted":true},"constructor":"c","prototype":"p","text":"x"}'

/** The keys of a message's value, own only, and whether its prototype is the ordinary one. */
const shape = (value: unknown) => ({
  keys: Object.keys(value as object),
  proto: Object.getPrototypeOf(value) === Object.prototype,
  inherited: (value as { polluted?: unknown }).polluted
})

describe("keys that name prototypes, through the app-server", () => {
  it.scopedLive("a before_tool hook's rewritten arguments are recorded in the call's audit whole", () =>
    Effect.gen(function* () {
      const dataDir = tempDir()
      const hook = join(dataDir, "rewrite.cjs")
      writeFileSync(
        hook,
        `process.stdin.resume();process.stdin.on("end",()=>process.stdout.write(${JSON.stringify(
          `{"decision":"rewrite","arguments":${rewritten}}`
        )}))`
      )
      const server = yield* startInProcess({
        dataDir,
        configPath: writeConfig(dataDir, {
          hooks: { before_tool: [{ command: process.execPath, args: [hook], matcher: "^mcp__srv__echo$" }] },
          mcp_servers: { srv: stdioCommand({ name: "srv", tools: [{ name: "echo" }] }) }
        })
      })
      const threadId = threadIdOf(yield* server.request("thread/start", {}))
      resultOf(yield* server.request("turn/start", { threadId, turnId: "t1" }))
      const answer = resultOf(
        yield* server.request("tool/call", {
          threadId,
          turnId: "t1",
          callId: "c1",
          name: "mcp__srv__echo",
          arguments: "{}"
        })
      )
      assert.strictEqual(answer.success, true)
      // The audit record, as stored with the thread: the rewrite's arguments are kept as the hook printed them.
      const records = yield* Effect.flatMap(ThreadStore.ThreadStore, (store) => store.since(threadId, 0)).pipe(
        Effect.provide(ThreadStore.layerSqlite({ filename: join(dataDir, "state.sqlite") }))
      )
      const audits = records.flatMap((r) => (r.event._tag === "toolAudited" ? [r.event.audit] : []))
      assert.strictEqual(audits.length, 1)
      const step = audits[0]!.before[0]
      assert.strictEqual(step?.decision, "rewrite")
      assert.deepStrictEqual(shape(step?.arguments), {
        keys: ["__proto__", "constructor", "prototype", "text"],
        proto: true,
        inherited: undefined
      })
      assert.strictEqual(JSON.stringify(step?.arguments), rewritten)
    })
  )
})
