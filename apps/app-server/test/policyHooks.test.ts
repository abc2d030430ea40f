/** Command hooks through the app-server with real hook programs (docs/policy.md), and the audit trail. */
import { existsSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { readLog, stdioCommand } from "@mcp-resources/fixtures"
import { Messages } from "@mcp-resources/protocol"
import { Effect } from "effect"
import fc from "fast-check"
import {
  type AppServer,
  errorOf,
  resultOf,
  startInitialized,
  tempDir,
  threadWithTurn,
  waitSettled,
  writeConfig
} from "./utils/AppServerProcess.js"

const srvSpec = {
  name: "srv",
  resourcePages: [{ result: { resources: [{ uri: "file:///repo/a.txt", name: "a" }] } }],
  reads: [
    { uri: "file:///repo/a.txt", result: { contents: [{ uri: "file:///repo/a.txt", text: "token hunter2 here" }] } },
    { uri: "file:///repo/b.txt", result: { contents: [{ uri: "file:///repo/b.txt", text: "B" }] } }
  ],
  tools: [{ name: "echo", result: { content: [{ type: "text", text: "echo hunter2" }] } }]
}

/** Hook programs: small node scripts reading the call on stdin. */
const scripts: Record<string, string> = {
  "deny.mjs": `let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{const c=JSON.parse(s);
if(JSON.stringify(c.arguments).includes("secret")){process.stderr.write("no secrets here");process.exit(2)}
if(JSON.stringify(c.arguments).includes("forbidden"))process.stdout.write(JSON.stringify({decision:"deny",reason:"forbidden by the test hook"}));
else process.stdout.write(JSON.stringify({decision:"allow"}))})`,
  "rewrite.mjs": `let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{const c=JSON.parse(s);
if(c.arguments&&c.arguments.uri==="file:///repo/old.txt")process.stdout.write(JSON.stringify({decision:"rewrite",arguments:{...c.arguments,uri:"file:///repo/b.txt"}}))})`,
  "redact.mjs": `let s="";process.stdin.on("data",d=>s+=d).on("end",()=>process.stdout.write(JSON.stringify({decision:"redact",redact:["hunter2"]})))`,
  "hang.mjs": `require("node:fs").writeFileSync(process.argv[2],String(process.pid));setInterval(()=>{},1000)`,
  "crash.mjs": `throw new Error("hook crashed on purpose")`,
  "garbage.mjs": `process.stdout.write("this is not json {")`,
  "flood.mjs": `const b=Buffer.alloc(65536,120);function w(){while(process.stdout.write(b));process.stdout.once("drain",w)}w()`,
  "gate.mjs": `const fs=require("node:fs"),path=require("node:path");const dir=process.argv[2];let s="";
process.stdin.on("data",d=>s+=d).on("end",()=>{const c=JSON.parse(s);
if(c.callId.startsWith("slow")){fs.writeFileSync(path.join(dir,c.callId+".pid"),String(process.pid));const t0=Date.now();
const w=setInterval(()=>{if(fs.existsSync(path.join(dir,c.callId+".release"))||Date.now()-t0>90000){clearInterval(w);process.stdout.write('{"decision":"allow"}')}},10)}
else if(c.tool==="list_mcp_resource_templates")process.stdout.write('{"decision":"deny"}');
else process.stdout.write('{"decision":"allow"}')})`,
  "background.mjs": `const {spawn}=require("node:child_process");const fs=require("node:fs");
const idle=["-e","setInterval(()=>{},1000);setTimeout(()=>process.exit(0),120000)"];
const quiet=spawn(process.execPath,idle,{stdio:"ignore"});
const holding=spawn(process.execPath,idle,{stdio:["ignore","inherit","inherit"]});
fs.writeFileSync(process.argv[2],JSON.stringify([quiet.pid,holding.pid]));
process.stdin.resume();process.stdin.on("end",()=>{process.stdout.write('{"decision":"allow"}');process.exit(0)})`,
  "scripted.mjs": `const o=JSON.parse(require("node:fs").readFileSync(process.argv[2],"utf8"));process.stdin.resume();process.stdin.on("end",()=>{process.stdout.write(o.stdout);process.stderr.write(o.stderr);process.exitCode=o.code})`
}

const writeScripts = (dir: string) => {
  for (const [name, text] of Object.entries(scripts)) {
    writeFileSync(join(dir, name.replace(".mjs", ".cjs")), text)
  }
  return (name: string) => join(dir, name.replace(".mjs", ".cjs"))
}

const hook = (path: string, matcher?: string, extra: Record<string, unknown> = {}) => ({
  command: process.execPath,
  args: [path],
  ...(matcher === undefined ? {} : { matcher }),
  ...extra
})

const caller = (app: AppServer, threadId: string) => (callId: string, name: string, args: unknown) =>
  Effect.map(
    app.request("tool/call", { threadId, turnId: "t1", callId, name, arguments: JSON.stringify(args) }, "180 seconds"),
    resultOf
  )

const isAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

describe("command hooks", () => {
  it.scopedLive(
    "deny (decision and exit 2), rewrite, redact through the app-server; the items and the reads show it",
    () =>
      Effect.gen(function* () {
        const dir = tempDir()
        const script = writeScripts(dir)
        const srvLog = join(dir, "srv.log")
        const config = writeConfig(dir, {
          hooks: {
            before_tool: [hook(script("deny.mjs")), hook(script("rewrite.mjs"), "^read_mcp_resource$")],
            after_tool: [hook(script("redact.mjs"), "^(read_mcp_resource|mcp__srv__echo)$")]
          },
          mcp_servers: { srv: stdioCommand(srvSpec, { logFile: srvLog }) }
        })
        const app = yield* startInitialized({ config })
        yield* waitSettled(app)
        const { threadId } = yield* threadWithTurn(app)
        const call = caller(app, threadId)
        const denied = yield* call("d1", "read_mcp_resource", { server: "srv", uri: "file:///repo/secret" })
        assert.deepStrictEqual(denied, {
          callId: "d1",
          output: Messages.policy.hookDenied("no secrets here"),
          success: false
        })
        const forbidden = yield* call("d2", "mcp__srv__echo", { forbidden: true })
        assert.deepStrictEqual(forbidden, {
          callId: "d2",
          output: Messages.policy.hookDenied("forbidden by the test hook"),
          success: false
        })
        const rewritten = yield* call("r1", "read_mcp_resource", { server: "srv", uri: "file:///repo/old.txt" })
        assert.isTrue(rewritten.success as boolean)
        assert.include(rewritten.output as string, '"text":"B"')
        const redacted = yield* call("x1", "read_mcp_resource", { server: "srv", uri: "file:///repo/a.txt" })
        assert.isTrue(redacted.success as boolean)
        assert.include(redacted.output as string, "token [redacted] here")
        const echo = yield* call("x2", "mcp__srv__echo", {})
        assert.notInclude(echo.output as string, "hunter2")
        // the denied calls made no request; the rewritten one read b.txt
        const reads = readLog(srvLog).filter((r) => r.method === "resources/read" || r.method === "tools/call")
        assert.deepStrictEqual(
          reads.map((r) => [
            r.method,
            (r.params as { uri?: string; name?: string }).uri ?? (r.params as { name: string }).name
          ]),
          [
            ["resources/read", "file:///repo/b.txt"],
            ["resources/read", "file:///repo/a.txt"],
            ["tools/call", "echo"]
          ]
        )
        // items: the started and failed completed of a denied call; the rewritten call keeps the model's arguments
        const completed = app.messages
          .filter((m) => m.method === "item/completed")
          .map((m) => (m.params as { item: Record<string, unknown> }).item)
        const byId = (id: string) => completed.find((item) => item.id === id)!
        assert.deepStrictEqual(
          [byId("d1").status, byId("d1").error],
          ["failed", { message: Messages.policy.hookDenied("no secrets here") }]
        )
        assert.deepStrictEqual(byId("r1").arguments, { server: "srv", uri: "file:///repo/old.txt" })
        assert.notInclude(JSON.stringify(byId("x1")), "hunter2")
        assert.strictEqual(app.messages.filter((m) => m.method === "item/started").length, 5)
      }),
    120_000
  )

  it.scopedLive(
    "a hook that hangs, crashes, prints garbage or floods: before fails closed, after withholds; every process ends",
    () =>
      Effect.gen(function* () {
        const dir = tempDir()
        const script = writeScripts(dir)
        const pidFile = join(dir, "hang.pid")
        const config = writeConfig(dir, {
          hooks: {
            before_tool: [
              hook(script("hang.mjs"), "^list_mcp_resources$", { args: [script("hang.mjs"), pidFile], timeout_sec: 1 }),
              hook(script("crash.mjs"), "^list_mcp_resource_templates$"),
              hook(script("garbage.mjs"), "^mcp__srv__echo$")
            ],
            after_tool: [hook(script("flood.mjs"), "^read_mcp_resource$", { timeout_sec: 20 })]
          },
          mcp_servers: { srv: stdioCommand(srvSpec) }
        })
        const app = yield* startInitialized({ config })
        yield* waitSettled(app)
        const { threadId } = yield* threadWithTurn(app)
        const call = caller(app, threadId)
        const hung = yield* call("h1", "list_mcp_resources", {})
        assert.deepStrictEqual(hung, {
          callId: "h1",
          output: Messages.policy.beforeHookFailed("before_tool[0]: timed out after 1s"),
          success: false
        })
        const pid = Number(readFileSync(pidFile, "utf8"))
        // the kill is sent before the answer; the process is gone once the kernel reaps it
        // polled (bounded): the hook is the app-server's child, not ours, so no exit event reaches the test
        for (let i = 0; i < 100 && isAlive(pid); i++) yield* Effect.sleep("20 millis")
        assert.isFalse(isAlive(pid), "the hung hook process was killed")
        const crashed = yield* call("h2", "list_mcp_resource_templates", {})
        assert.deepStrictEqual(crashed, {
          callId: "h2",
          output: Messages.policy.beforeHookFailed("before_tool[1]: exited with status 1"),
          success: false
        })
        const garbage = yield* call("h3", "mcp__srv__echo", {})
        assert.isFalse(garbage.success as boolean)
        assert.match(
          garbage.output as string,
          /^denied by host policy: the before-tool hook failed: before_tool\[2\]: printed no valid decision: /
        )
        const flooded = yield* call("h4", "read_mcp_resource", { server: "srv", uri: "file:///repo/a.txt" })
        assert.deepStrictEqual(flooded, {
          callId: "h4",
          output: Messages.policy.afterHookFailed("after_tool[0]: its output exceeds 1048576 bytes"),
          success: false
        })
        assert.notInclude(JSON.stringify(app.messages), "hunter2")
      }),
    120_000
  )

  it.scopedLive(
    "100 concurrent calls with before and after hooks all answer, each redacted",
    () =>
      Effect.gen(function* () {
        const dir = tempDir()
        const script = writeScripts(dir)
        const config = writeConfig(dir, {
          hooks: { before_tool: [hook(script("deny.mjs"))], after_tool: [hook(script("redact.mjs"))] },
          mcp_servers: { srv: stdioCommand(srvSpec) }
        })
        const app = yield* startInitialized({ config })
        yield* waitSettled(app)
        const { threadId } = yield* threadWithTurn(app)
        const call = caller(app, threadId)
        const results = yield* Effect.forEach(
          Array.from({ length: 100 }, (_, i) => i),
          (i) => call(`c${i}`, "read_mcp_resource", { server: "srv", uri: "file:///repo/a.txt" }),
          { concurrency: "unbounded" }
        )
        assert.strictEqual(results.length, 100)
        for (const result of results) {
          assert.isTrue(result.success as boolean)
          assert.include(result.output as string, "[redacted]")
        }
        assert.strictEqual(app.messages.filter((m) => m.method === "item/completed").length, 100)
      }),
    240_000
  )

  it.scopedLive(
    "property: any hook output and exit status gives a model-facing result, never a crash or a hang",
    () =>
      Effect.gen(function* () {
        const dir = tempDir()
        const script = writeScripts(dir)
        const scriptFile = join(dir, "script.json")
        writeFileSync(scriptFile, JSON.stringify({ stdout: "", stderr: "", code: 0 }))
        const config = writeConfig(dir, {
          hooks: {
            before_tool: [
              hook(script("scripted.mjs"), "^list_mcp_resources$", { args: [script("scripted.mjs"), scriptFile] })
            ],
            after_tool: [
              hook(script("scripted.mjs"), "^read_mcp_resource$", { args: [script("scripted.mjs"), scriptFile] })
            ]
          },
          mcp_servers: { srv: stdioCommand(srvSpec) }
        })
        const app = yield* startInitialized({ config })
        yield* waitSettled(app)
        const { threadId } = yield* threadWithTurn(app)
        const call = caller(app, threadId)
        const stdout = fc.oneof(
          fc.string(),
          fc.jsonValue().map((v) => JSON.stringify(v)),
          fc.constantFrom(
            '{"decision":"allow"}',
            '{"decision":"deny","reason":"r"}',
            '{"decision":"rewrite","arguments":{"server":"srv"}}',
            '{"decision":"pass"}',
            '{"decision":"redact","redact":["token"]}',
            '{"decision":"replace","output":"x"}',
            '{"decision":"redact","redact":[""]}'
          )
        )
        const samples = fc.sample(
          fc.record({ stdout, stderr: fc.string(), code: fc.constantFrom(0, 0, 0, 1, 2, 3, 255) }),
          { numRuns: 16, seed: 23 }
        )
        let n = 0
        for (const sample of samples) {
          writeFileSync(scriptFile, JSON.stringify(sample))
          for (const [name, args] of [
            ["list_mcp_resources", {}],
            ["read_mcp_resource", { server: "srv", uri: "file:///repo/a.txt" }]
          ] as const) {
            const result = yield* call(`p${n++}`, name, args)
            assert.isString(result.output)
            assert.isBoolean(result.success)
          }
        }
        // the server is still there and answers
        assert.isArray(resultOf(yield* app.request("mcpServer/list", {})).servers)
      }),
    240_000
  )

  it.scopedLive(
    "hooks run outside the thread's ordering: calls after a call whose before hook waits are answered first",
    () =>
      Effect.gen(function* () {
        const dir = tempDir()
        const script = writeScripts(dir)
        const config = writeConfig(dir, {
          hooks: {
            before_tool: [hook(script("gate.mjs"), undefined, { args: [script("gate.mjs"), dir], timeout_sec: 60 })]
          },
          mcp_servers: { srv: stdioCommand(srvSpec) }
        })
        const app = yield* startInitialized({ config })
        yield* waitSettled(app)
        const { threadId } = yield* threadWithTurn(app)
        const send = (callId: string, name: string, args: unknown) =>
          app.send("tool/call", { threadId, turnId: "t1", callId, name, arguments: JSON.stringify(args) })
        const slow = yield* send("slow-1", "read_mcp_resource", { server: "srv", uri: "file:///repo/a.txt" })
        const fast = yield* Effect.forEach(
          Array.from({ length: 8 }, (_, i) => i),
          (i) =>
            send(
              `fast-${i}`,
              i % 2 === 0 ? "mcp__srv__echo" : "list_mcp_resources",
              i % 2 === 0 ? {} : { server: "srv" }
            )
        )
        // every later call of the thread is answered while the first one's hook still waits
        for (const id of fast) {
          const answer = resultOf(yield* app.response(id, "30 seconds"))
          assert.isTrue(answer.success as boolean, JSON.stringify(answer))
        }
        assert.isUndefined(app.messages.find((m) => m.id === slow && m.method === undefined))
        // the started items are still in arrival order
        const started = app.notifications("item/started").map((m) => (m.params as { item: { id: string } }).item.id)
        assert.deepStrictEqual(started, ["slow-1", ...fast.map((_, i) => `fast-${i}`)])
        writeFileSync(join(dir, "slow-1.release"), "")
        const released = resultOf(yield* app.response(slow, "60 seconds"))
        assert.isTrue(released.success as boolean)
        assert.include(released.output as string, "token hunter2 here")
        // a deny without a reason is a deny, with a reason naming the hook
        const quiet = resultOf(
          yield* app.request("tool/call", {
            threadId,
            turnId: "t1",
            callId: "quiet",
            name: "list_mcp_resource_templates",
            arguments: "{}"
          })
        )
        assert.deepStrictEqual(quiet, {
          callId: "quiet",
          output: Messages.policy.hookDenied("before_tool[0] denied the call"),
          success: false
        })
      }),
    180_000
  )

  it.scopedLive(
    "a call cancelled while its before hook runs: -32800, its started item and a failed cancelled completion, the hook ended",
    () =>
      Effect.gen(function* () {
        const dir = tempDir()
        const script = writeScripts(dir)
        const config = writeConfig(dir, {
          hooks: {
            before_tool: [hook(script("gate.mjs"), undefined, { args: [script("gate.mjs"), dir], timeout_sec: 60 })]
          },
          mcp_servers: { srv: stdioCommand(srvSpec) }
        })
        const app = yield* startInitialized({ config })
        yield* waitSettled(app)
        const { threadId } = yield* threadWithTurn(app)
        const id = yield* app.send("tool/call", {
          threadId,
          turnId: "t1",
          callId: "slow-cancel",
          name: "mcp__srv__echo",
          arguments: "{}"
        })
        const isItem = (method: string) => (m: { method?: unknown; params?: unknown }) =>
          m.method === method && (m.params as { item: { id: string } }).item.id === "slow-cancel"
        yield* app.waitFor(isItem("item/started"), "30 seconds", "the started item")
        // the hook is running (it wrote its pid), then the call is cancelled
        const pidFile = join(dir, "slow-cancel.pid")
        // polled (bounded): the hook's pid file is written by a process of the app-server's, announced by no message
        for (let i = 0; i < 500 && !existsSync(pidFile); i++) yield* Effect.sleep("20 millis")
        const pid = Number(readFileSync(pidFile, "utf8"))
        yield* app.notify("$/cancelRequest", { id })
        assert.deepStrictEqual(errorOf(yield* app.response(id, "30 seconds")), {
          code: -32800,
          message: "Request cancelled"
        })
        const completed = yield* app.waitFor(isItem("item/completed"), "30 seconds", "the completed item")
        const item = (completed.params as { item: Record<string, unknown> }).item
        assert.deepStrictEqual([item.status, item.result, item.error], ["failed", null, { message: "cancelled" }])
        assert.strictEqual(app.notifications("item/completed").filter(isItem("item/completed")).length, 1)
        // polled (bounded): no exit event of another process's child reaches the test
        for (let i = 0; i < 100 && isAlive(pid); i++) yield* Effect.sleep("20 millis")
        assert.isFalse(isAlive(pid), "the hook process was killed")
        // the items are in the thread's history: the call id is taken
        assert.deepStrictEqual(
          errorOf(
            yield* app.request("tool/call", {
              threadId,
              turnId: "t1",
              callId: "slow-cancel",
              name: "mcp__srv__echo",
              arguments: "{}"
            })
          ),
          { code: -32600, message: "duplicate callId: slow-cancel" }
        )
      }),
    180_000
  )

  it.scopedLive(
    "what a hook starts in the background ends with its run, also when it holds the hook's output open",
    () =>
      Effect.gen(function* () {
        const dir = tempDir()
        const script = writeScripts(dir)
        const pidFile = join(dir, "background.json")
        const config = writeConfig(dir, {
          hooks: {
            before_tool: [
              hook(script("background.mjs"), "^list_mcp_resources$", {
                args: [script("background.mjs"), pidFile],
                timeout_sec: 30
              })
            ]
          },
          mcp_servers: { srv: stdioCommand(srvSpec) }
        })
        const app = yield* startInitialized({ config })
        yield* waitSettled(app)
        const { threadId } = yield* threadWithTurn(app)
        const listed = yield* caller(app, threadId)("b1", "list_mcp_resources", { server: "srv" })
        // the hook's decision counts: a process holding its output does not turn the run into a time-out
        assert.isTrue(listed.success as boolean, JSON.stringify(listed))
        const pids = JSON.parse(readFileSync(pidFile, "utf8")) as Array<number>
        assert.strictEqual(pids.length, 2)
        for (const pid of pids) {
          // polled (bounded): a grandchild of the app-server's hook has no exit event the test can await
          for (let i = 0; i < 100 && isAlive(pid); i++) yield* Effect.sleep("20 millis")
          assert.isFalse(isAlive(pid), `background process ${pid} was killed with the hook's group`)
        }
      }),
    120_000
  )
})
