/**
 * Host policy under attack: the resource rules' matcher on URIs built to make a backtracking matcher
 * try every split (steps counted, up to the longest request line), such a URI read through the
 * app-server while another request is answered, and a thread whose first call's `before_tool` hook
 * waits while 19 later calls of the same thread are sent. Figures are steps and orderings; times are
 * informative notes.
 */
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { stdioCommand } from "@mcp-resources/fixtures"
import { AppServer, ResourcePolicy } from "@mcp-resources/protocol"
import { afterAll, describe, expect, it } from "vitest"
import { AppServerProcess, Figures } from "../src/index.js"
import { tempDir, writeConfig } from "./utils/app.js"

const temp = tempDir("policy")
afterAll(() => temp.remove())

const kib = 1024
const sizes = [64 * kib, 1024 * kib, AppServer.maxLineBytes - 64]
const label = (n: number): string => (n >= 1024 * kib ? `${Math.round(n / (1024 * kib))} MiB` : `${n / kib} KiB`)

const patterns = [
  { name: "two **", pattern: "file:///**a**b", uri: (n: number) => `file:///${"a".repeat(n - 8)}` },
  { name: "three **", pattern: "file:///**a**a**b", uri: (n: number) => `file:///${"a".repeat(n - 8)}` },
  {
    name: "three ** over segments",
    pattern: "file:///**/x/**/y/**/.env",
    uri: (n: number) => `file:///${"x/y/".repeat(Math.ceil((n - 8) / 4))}`
  }
]

describe("host policy", () => {
  it("the matcher's steps grow linearly with the URI, up to the longest request line", () => {
    for (const { name, pattern, uri } of patterns) {
      let perCharacter: number | undefined
      for (const n of sizes) {
        const text = uri(n)
        const steps = ResourcePolicy.matchSteps(pattern, text)
        const ratio = steps / text.length
        // linear: the same steps per character at every size (within the pattern's start-up)
        if (perCharacter !== undefined) expect(Math.abs(ratio - perCharacter)).toBeLessThan(0.01)
        perCharacter = ratio
        Figures.add("policy", { [`matcher steps, ${name}, ${label(n)} URI`]: steps })
        const started = performance.now()
        const decision = ResourcePolicy.decide({ deny: [pattern] }, text)
        Figures.note(
          "policy",
          `matcher ${name} (\`${pattern}\`) on ${label(n)}: ${ratio.toFixed(2)} steps per character, decided (${decision.allowed ? "allowed" : "denied"}) in ${Math.round(performance.now() - started)} ms (informative)`
        )
        Figures.add("policy", { "cases adversarial URIs": 1 })
      }
    }
  }, 300_000)

  it("a 1 MiB adversarial URI read through the app-server is refused while another request is answered", async () => {
    const config = writeConfig(
      temp.dir,
      { srv: stdioCommand({ name: "srv", reads: [{ uri: "file:///a", result: { contents: [] } }] }) },
      '[resources]\ndeny = ["file:///**a**a**b", "file:///**/.env"]\n',
      "matcher.toml"
    )
    const server = await AppServerProcess.startInitialized({ config, dataDir: join(temp.dir, "matcher") })
    try {
      const uri = `file:///${"a/".repeat(512 * kib)}.env`
      const started = performance.now()
      const read = server.send("mcp/resource/read", { server: "srv", uri })
      const list = server.send("mcpServer/list", {})
      const listed = await server.response(list, 60_000)
      expect(listed.result).toBeDefined()
      const refused = await server.response(read, 60_000)
      expect(refused.error?.message).toBe(`resources/read failed: access to ${uri} is denied by host policy`)
      const answers = server.messages.filter((m) => m.method === undefined).map((m) => m.id)
      const listFirst = answers.indexOf(list) < answers.indexOf(read)
      Figures.add("policy", { "1 MiB adversarial URIs refused through mcp/resource/read": 1 })
      Figures.note(
        "policy",
        `a 1 MiB adversarial read (deny \`file:///**a**a**b\`, \`file:///**/.env\`) refused by the app-server ${Math.round(performance.now() - started)} ms after it was sent; an mcpServer/list sent right after it was answered ${listFirst ? "first" : "after it"} (informative)`
      )
    } finally {
      await server.close()
    }
  }, 120_000)

  it("20 calls of one thread: the 19 after a call whose before hook waits are all answered first", async () => {
    const gate = join(temp.dir, "gate.cjs")
    const release = join(temp.dir, "slow.release")
    writeFileSync(
      gate,
      `const fs=require("node:fs");let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{const c=JSON.parse(s);
if(c.callId!=="slow"){process.stdout.write('{"decision":"allow"}');return}
const t0=Date.now();const w=setInterval(()=>{if(fs.existsSync(${JSON.stringify(release)})||Date.now()-t0>90000){clearInterval(w);process.stdout.write('{"decision":"allow"}')}},10)})`
    )
    const config = writeConfig(
      temp.dir,
      { srv: stdioCommand({ name: "srv", tools: [{ name: "echo" }] }) },
      `[[hooks.before_tool]]\ncommand = ${JSON.stringify(process.execPath)}\nargs = [${JSON.stringify(gate)}]\ntimeout_sec = 120\n`,
      "hooks.toml"
    )
    const server = await AppServerProcess.startInitialized({ config, dataDir: join(temp.dir, "hooks") })
    try {
      const threadId = ((await server.request("thread/start", {})).result!.thread as { id: string }).id
      await server.request("turn/start", { threadId, turnId: "t1" })
      const call = (callId: string) =>
        server.send("tool/call", { threadId, turnId: "t1", callId, name: "mcp__srv__echo", arguments: "{}" })
      const started = performance.now()
      const slow = call("slow")
      const others = Array.from({ length: 19 }, (_, i) => call(`c${i}`))
      let slowest = 0
      for (const id of others) {
        const answer = await server.response(id, 60_000)
        expect(answer.result).toMatchObject({ success: true })
        slowest = Math.max(slowest, performance.now() - started)
      }
      const slowAnswered = server.messages.some((m) => m.id === slow && m.method === undefined)
      expect(slowAnswered).toBe(false)
      writeFileSync(release, "")
      expect((await server.response(slow, 120_000)).result).toMatchObject({ success: true })
      Figures.add("policy", {
        "calls of one thread sent behind a waiting before hook": 19,
        "of them answered while the hook still waited": 19,
        "cases hooks outside the thread's ordering": 20
      })
      Figures.note(
        "policy",
        `19 calls answered behind a waiting before_tool hook, the last after ${Math.round(slowest)} ms (informative; before the fix they waited for the hook)`
      )
    } finally {
      await server.close()
    }
  }, 240_000)
})
