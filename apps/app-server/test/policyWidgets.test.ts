/**
 * Host policy on the tool calls widgets make (docs/policy.md, docs/widgets.md): `mcp/widget/callTool`
 * runs the same command hooks as the model's calls of that tool (with `caller: "widget"` in the hook
 * input), redaction keeps the result's `structuredContent`, and the audit records each widget call.
 * The app-server runs in this process (its hooks and MCP server are real child processes); the audit
 * is read through the `mcp-resources audit` command, as a user reads it.
 */
import { execFile } from "node:child_process"
import { readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { assert, describe, it } from "@effect/vitest"
import { type FixtureSpec, readLog, shopWidgetSpec, stdioCommand } from "@mcp-resources/fixtures"
import { Messages } from "@mcp-resources/protocol"
import { Effect } from "effect"
import { errorOf, tempDir, WaitTimeout, writeConfig } from "./utils/AppServerProcess.js"
import { resultOf, startInProcess, threadIdOf, waitSettled } from "./utils/InProcess.js"

process.env.MCP_RESOURCES_LOG = "error"

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

/** The shop with an app tool `buy` (model and app) and an app-only `refresh_price` whose result holds a secret. */
const shopSpec = (): FixtureSpec => {
  const base = shopWidgetSpec()
  return {
    ...base,
    tools: [
      ...(base.tools ?? []).filter((tool) => tool.name !== "refresh_price"),
      {
        name: "refresh_price",
        description: "Refreshes the price (for the price widget only).",
        _meta: { ui: { visibility: ["app"] } },
        result: {
          content: [{ type: "text", text: "price: 42 EUR, coupon hunter2" }],
          structuredContent: { price: 42, currency: "EUR", coupon: "hunter2" }
        }
      },
      {
        name: "buy",
        description: "Buys the cart.",
        _meta: { ui: { visibility: ["model", "app"] } },
        result: { content: [{ type: "text", text: "bought" }] }
      }
    ]
  }
}

/** Logs every input to a file; denies `buy`; the after hook redacts `hunter2`. */
const beforeScript = `const fs=require("node:fs");let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{
fs.appendFileSync(process.argv[2],s+"\\n");const c=JSON.parse(s);
if(c.tool==="mcp__shop__buy")process.stdout.write(JSON.stringify({decision:"deny",reason:"no purchases"}))})`
const afterScript = `process.stdin.resume();process.stdin.on("end",()=>process.stdout.write('{"decision":"redact","redact":["hunter2"]}'))`

describe("host policy on widgets' tool calls", () => {
  it.scopedLive(
    "before hooks deny a widget's call as the model's, after hooks redact its result (structuredContent kept), the audit records it",
    () =>
      Effect.gen(function* () {
        const dir = tempDir()
        const dataDir = tempDir()
        const inputs = join(dir, "inputs.jsonl")
        writeFileSync(join(dir, "before.cjs"), beforeScript)
        writeFileSync(join(dir, "after.cjs"), afterScript)
        const shopLog = join(dir, "shop.log")
        const config = writeConfig(dir, {
          hooks: {
            before_tool: [{ command: process.execPath, args: [join(dir, "before.cjs"), inputs] }],
            after_tool: [{ command: process.execPath, args: [join(dir, "after.cjs")], matcher: "^mcp__shop__" }]
          },
          mcp_servers: { shop: stdioCommand(shopSpec(), { logFile: shopLog }) }
        })
        const threadId = yield* Effect.scoped(
          Effect.gen(function* () {
            const app = yield* startInProcess({ dataDir, configPath: config })
            yield* waitSettled(app)
            const threadId = threadIdOf(yield* app.request("thread/start", {}))
            resultOf(yield* app.request("turn/start", { threadId, turnId: "t1" }))
            const notifications = (method: string) => app.messages.filter((m) => m.method === method)
            const call = (callId: string, name: string) =>
              Effect.map(app.request("tool/call", { threadId, turnId: "t1", callId, name, arguments: "{}" }), resultOf)
            assert.isTrue((yield* call("price-call", "mcp__shop__show_price")).success as boolean)
            // the model may not buy
            assert.deepStrictEqual(yield* call("model-buy", "mcp__shop__buy"), {
              callId: "model-buy",
              output: Messages.policy.hookDenied("no purchases"),
              success: false
            })
            // nor may the widget: refused before any request, recorded as a failed widget item
            const refused = yield* app.request("mcp/widget/callTool", {
              threadId,
              callId: "price-call",
              name: "buy",
              arguments: {}
            })
            assert.deepStrictEqual(errorOf(refused), {
              code: -32603,
              message: Messages.policy.hookDenied("no purchases")
            })
            const items = () =>
              notifications("item/completed").map((m) => (m.params as { item: Record<string, unknown> }).item)
            const widgetBuy = items().find((item) => item.tool === "buy" && item.initiator === "widget")!
            assert.deepStrictEqual(
              [widgetBuy.status, widgetBuy.error, widgetBuy.originCallId],
              ["failed", { message: Messages.policy.hookDenied("no purchases") }, "price-call"]
            )
            assert.isTrue(
              notifications("item/started").some((m) => (m.params as { item: { id: string } }).item.id === widgetBuy.id)
            )
            assert.deepStrictEqual(
              readLog(shopLog)
                .filter((r) => r.method === "tools/call")
                .map((r) => (r.params as { name: string }).name),
              ["show_price"]
            )
            // the widget's allowed call: its result redacted, structuredContent with it
            const refreshed = resultOf(
              yield* app.request("mcp/widget/callTool", { threadId, callId: "price-call", name: "refresh_price" })
            )
            assert.deepStrictEqual(refreshed.result, {
              content: [{ type: "text", text: "price: 42 EUR, coupon [redacted]" }],
              structuredContent: { price: 42, currency: "EUR", coupon: "[redacted]" }
            })
            const stored = items().find((item) => item.id === refreshed.itemId)!
            assert.deepStrictEqual(stored.result, refreshed.result)
            assert.notInclude(JSON.stringify(app.messages), "hunter2")
            // the hook saw who called, as the model knows the tool
            const seen = readFileSync(inputs, "utf8")
              .trim()
              .split("\n")
              .map((line) => JSON.parse(line) as Record<string, unknown>)
            assert.deepStrictEqual(
              seen.map((input) => [input.tool, input.caller, input.originCallId ?? null]),
              [
                ["mcp__shop__show_price", "model", null],
                ["mcp__shop__buy", "model", null],
                ["mcp__shop__buy", "widget", "price-call"],
                ["mcp__shop__refresh_price", "widget", "price-call"]
              ]
            )
            assert.strictEqual(seen[2]!.callId, widgetBuy.id)
            return threadId
          })
        )
        // the audit tells the truth about the widget's calls
        const printed = yield* cli(["audit", threadId, "--config", config, "--data-dir", dataDir])
        assert.strictEqual(printed.code, 0, printed.stderr)
        assert.notInclude(printed.stdout, "no policy configured")
        const blocks = printed.stdout.split("\nt1  ")
        const buyBlock = blocks.find((block) => block.includes("/widget/") && block.includes("  buy  "))!
        assert.include(buyBlock, "  caller: the widget of call price-call")
        assert.include(buyBlock, "  before_tool[0]: deny: no purchases")
        assert.include(buyBlock, "  server request: no")
        const refreshBlock = blocks.find((block) => block.includes("refresh_price"))!
        // the hook judged the JSON text of the result: the text and the structuredContent
        assert.include(refreshBlock, "  after_tool[0]: redact: 2 strings")
        assert.include(refreshBlock, "  server request: yes")
        assert.notInclude(printed.stdout, "hunter2")
      }),
    240_000
  )
})
