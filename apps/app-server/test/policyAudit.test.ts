/** The audit trail (docs/policy.md): recorded with the thread's items, kept across a restart and a compaction, printed by the CLI. */
import { execFile } from "node:child_process"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { assert, describe, it } from "@effect/vitest"
import { stdioCommand } from "@mcp-resources/fixtures"
import { Effect } from "effect"
import { inject } from "vitest"
import {
  type AppServer,
  resultOf,
  startInitialized,
  tempDir,
  threadWithTurn,
  waitSettled,
  WaitTimeout,
  writeConfig
} from "./utils/AppServerProcess.js"
import { freshDatabase } from "./utils/pg.js"

const cliJs = fileURLToPath(new URL("../dist/Cli.js", import.meta.url))

const cli = (args: ReadonlyArray<string>) =>
  Effect.async<{ code: number | null; stdout: string; stderr: string }, WaitTimeout>((resume) => {
    const child = execFile(
      process.execPath,
      [cliJs, ...args],
      { cwd: tempDir(), timeout: 60_000, encoding: "utf8" },
      (error, stdout, stderr) => {
        if (error?.killed) return resume(Effect.fail(new WaitTimeout({ message: `audit timed out: ${stderr}` })))
        resume(
          Effect.succeed({ code: error ? (typeof error.code === "number" ? error.code : null) : 0, stdout, stderr })
        )
      }
    )
    return Effect.sync(() => {
      child.kill("SIGKILL")
    })
  })

const srvSpec = {
  name: "srv",
  resourcePages: [
    {
      result: {
        resources: [
          { uri: "file:///repo/a.txt", name: "a" },
          { uri: "file:///home/ann/notes", name: "notes" }
        ]
      }
    }
  ],
  reads: [
    { uri: "file:///repo/a.txt", result: { contents: [{ uri: "file:///repo/a.txt", text: "token hunter2" }] } },
    { uri: "file:///repo/b.txt", result: { contents: [{ uri: "file:///repo/b.txt", text: "B" }] } }
  ]
}

const call = (app: AppServer, threadId: string, turnId: string, callId: string, name: string, args: unknown) =>
  Effect.map(
    app.request("tool/call", { threadId, turnId, callId, name, arguments: JSON.stringify(args) }, "60 seconds"),
    resultOf
  )

describe("audit", () => {
  it.scopedLive(
    "the record survives a compaction and a restart; `mcp-resources audit THREAD` prints listed, read, denied and hook changes",
    () =>
      Effect.gen(function* () {
        const dir = tempDir()
        const dataDir = tempDir()
        const rewrite = join(dir, "rewrite.cjs")
        writeFileSync(
          rewrite,
          `let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{const c=JSON.parse(s);
if(c.arguments&&c.arguments.uri==="file:///repo/old.txt")process.stdout.write(JSON.stringify({decision:"rewrite",arguments:{...c.arguments,uri:"file:///repo/b.txt"}}))})`
        )
        const redact = join(dir, "redact.cjs")
        writeFileSync(
          redact,
          `process.stdin.resume();process.stdin.on("end",()=>process.stdout.write('{"decision":"redact","redact":["hunter2"]}'))`
        )
        const config = writeConfig(dir, {
          resources: { deny: ["file:///home/**"] },
          hooks: {
            before_tool: [{ command: process.execPath, args: [rewrite], matcher: "^read_mcp_resource$" }],
            after_tool: [{ command: process.execPath, args: [redact], matcher: "^read_mcp_resource$" }]
          },
          mcp_servers: { srv: { ...stdioCommand(srvSpec), env: { SECRET_TOKEN: "s3cr3t-value" } } }
        })
        const threadId = yield* Effect.scoped(
          Effect.gen(function* () {
            const app = yield* startInitialized({ config, dataDir })
            yield* waitSettled(app)
            const { threadId } = yield* threadWithTurn(app)
            yield* call(app, threadId, "t1", "c-list", "list_mcp_resources", { server: "srv" })
            yield* call(app, threadId, "t1", "c-denied", "read_mcp_resource", {
              server: "srv",
              uri: "file:///home/ann/notes"
            })
            assert.deepStrictEqual(resultOf(yield* app.request("thread/compact", { threadId })), {})
            yield* call(app, threadId, "t1", "c-rewrite", "read_mcp_resource", {
              server: "srv",
              uri: "file:///repo/old.txt"
            })
            return threadId
          })
        )
        // a restart on the same data directory: the thread goes on
        yield* Effect.scoped(
          Effect.gen(function* () {
            const app = yield* startInitialized({ config, dataDir })
            yield* waitSettled(app)
            resultOf(yield* app.request("thread/resume", { threadId }))
            resultOf(yield* app.request("turn/start", { threadId, turnId: "t2" }))
            const redacted = yield* call(app, threadId, "t2", "c-redact", "read_mcp_resource", {
              server: "srv",
              uri: "file:///repo/a.txt"
            })
            assert.include(redacted.output as string, "token [redacted]")
          })
        )
        const printed = yield* cli(["audit", threadId, "--config", config, "--data-dir", dataDir])
        assert.strictEqual(printed.code, 0, printed.stderr)
        assert.strictEqual(
          printed.stdout,
          [
            `thread ${threadId}: 4 calls`,
            "t1  c-list  list_mcp_resources  srv  completed",
            "  listed file:///repo/a.txt",
            "  hidden by rules: 1",
            "  server request: yes",
            "t1  c-denied  read_mcp_resource  srv  failed",
            "  read file:///home/ann/notes: denied (file:///home/**)",
            "  before_tool[0]: allow",
            "  after_tool[0]: redact: 0 strings",
            "  server request: no",
            "t1  c-rewrite  read_mcp_resource  srv  completed",
            "  read file:///repo/b.txt: allowed",
            '  before_tool[0]: rewrite: arguments {"server":"srv","uri":"file:///repo/b.txt"}',
            "  after_tool[0]: redact: 0 strings",
            "  server request: yes",
            "t2  c-redact  read_mcp_resource  srv  completed",
            "  read file:///repo/a.txt: allowed",
            "  before_tool[0]: allow",
            "  after_tool[0]: redact: 1 string",
            "  server request: yes",
            ""
          ].join("\n")
        )
        assert.notInclude(printed.stdout, "s3cr3t-value")
        assert.notInclude(printed.stdout, "hunter2")
        const json = yield* cli(["audit", threadId, "--json", "--config", config, "--data-dir", dataDir])
        const entries = JSON.parse(json.stdout) as Array<{ callId: string; audit: { serverRequest: boolean } }>
        assert.deepStrictEqual(
          entries.map((e) => [e.callId, e.audit.serverRequest]),
          [
            ["c-list", true],
            ["c-denied", false],
            ["c-rewrite", true],
            ["c-redact", true]
          ]
        )
        const missing = yield* cli(["audit", "no-such-thread", "--config", config, "--data-dir", dataDir])
        assert.strictEqual(missing.code, 1)
        assert.include(missing.stderr, "thread not found: no-such-thread")
      }),
    240_000
  )
})

const cluster = inject("pgCluster")
const clusterUrl = "url" in cluster ? cluster.url : undefined
if (clusterUrl === undefined && "skipped" in cluster) {
  console.warn(`PostgreSQL audit tests skipped: ${cluster.skipped}`)
}

describe.skipIf(clusterUrl === undefined)("audit with driver postgres", () => {
  it.scopedLive(
    "two app-servers on one database write one audit trail: `mcp-resources audit` from any data dir prints the calls of both",
    () =>
      Effect.gen(function* () {
        const url = yield* freshDatabase(clusterUrl!)
        const config = writeConfig(tempDir(), {
          resources: { deny: ["file:///home/**"] },
          mcp_servers: { srv: stdioCommand(srvSpec) },
          persistence: { driver: "postgres", url }
        })
        const a = yield* startInitialized({ config, dataDir: tempDir() })
        const b = yield* startInitialized({ config, dataDir: tempDir() })
        yield* waitSettled(a)
        yield* waitSettled(b)
        // one thread used through both: A lists, then B resumes it and is denied a read
        const { threadId } = yield* threadWithTurn(a)
        yield* call(a, threadId, "t1", "c-on-a", "list_mcp_resources", { server: "srv" })
        resultOf(yield* b.request("thread/resume", { threadId }))
        resultOf(yield* b.request("turn/start", { threadId, turnId: "t2" }))
        yield* call(b, threadId, "t2", "c-on-b", "read_mcp_resource", { server: "srv", uri: "file:///home/ann/notes" })
        // a thread of B's alone
        const other = yield* threadWithTurn(b)
        yield* call(b, other.threadId, "t1", "c-only-b", "read_mcp_resource", {
          server: "srv",
          uri: "file:///repo/b.txt"
        })
        const expected = [
          `thread ${threadId}: 2 calls`,
          "t1  c-on-a  list_mcp_resources  srv  completed",
          "  listed file:///repo/a.txt",
          "  hidden by rules: 1",
          "  server request: yes",
          "t2  c-on-b  read_mcp_resource  srv  failed",
          "  read file:///home/ann/notes: denied (file:///home/**)",
          "  server request: no",
          ""
        ].join("\n")
        // the CLI on a data dir neither app-server used reads the same trail (the database is the store)
        for (const dataDir of [tempDir(), tempDir()]) {
          const printed = yield* cli(["audit", threadId, "--config", config, "--data-dir", dataDir])
          assert.strictEqual(printed.code, 0, printed.stderr)
          assert.strictEqual(printed.stdout, expected)
        }
        const onlyB = yield* cli(["audit", other.threadId, "--config", config, "--data-dir", tempDir(), "--json"])
        assert.strictEqual(onlyB.code, 0, onlyB.stderr)
        assert.deepStrictEqual(
          (JSON.parse(onlyB.stdout) as Array<{ callId: string; status: string }>).map((e) => [e.callId, e.status]),
          [["c-only-b", "completed"]]
        )
      }),
    60000
  )
})
