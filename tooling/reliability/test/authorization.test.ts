/**
 * Authorization at the app-server: call-scoped widget reads (`mcp/resource/read` with `originCallId`)
 * never cross threads, never trust a client-sent connectorId, and refuse a wrong URI, a failed call, an
 * ambiguous account, a removed or re-linked tool and a disabled app with their exact messages;
 * WebSocket upgrades without the token or from a foreign Origin are refused; non-loopback binds need
 * --allow-remote.
 */
import { type FixtureSpec, stdioCommand, widgetAppsSpec, widgetUri } from "@mcp-resources/fixtures"
import WebSocket from "ws"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { AppServerProcess, Figures } from "../src/index.js"
import { freePort, tempDir, writeConfig } from "./utils/app.js"

const temp = tempDir("authz")
let server: AppServerProcess.AppServer
let threadA = ""
let threadB = ""
let cases = 0

const withTools = (edit: (spec: FixtureSpec) => void): FixtureSpec => {
  const spec = widgetAppsSpec()
  edit(spec)
  return spec
}

const configWith = (spec: FixtureSpec, extra = "") => writeConfig(temp.dir, { codex_apps: stdioCommand(spec) }, extra)

const read = (params: Record<string, unknown>) => server.request("mcp/resource/read", params, 15_000)

const expectRefused = async (params: Record<string, unknown>, code: number, message: string | RegExp) => {
  const answer = await read(params)
  cases++
  expect(answer.result, JSON.stringify(params)).toBeUndefined()
  expect(answer.error?.code, JSON.stringify(answer)).toBe(code)
  if (typeof message === "string") expect(answer.error?.message).toBe(message)
  else expect(answer.error?.message).toMatch(message)
}

const expectWidget = async (params: Record<string, unknown>, connector: string) => {
  const answer = await read(params)
  cases++
  expect(answer.error, JSON.stringify(answer)).toBeUndefined()
  expect(answer.result).toEqual({
    contents: [{ uri: widgetUri, mimeType: "text/html", text: `<html>${connector}</html>` }],
    originCallId: params.originCallId
  })
}

const call = async (threadId: string, callId: string, name: string, args: unknown) => {
  const answer = await server.request(
    "tool/call",
    { threadId, turnId: "t1", callId, name, arguments: JSON.stringify(args) },
    15_000
  )
  expect(answer.error, JSON.stringify(answer)).toBeUndefined()
  return answer.result as { success: boolean; output: string }
}

beforeAll(async () => {
  const config = configWith(widgetAppsSpec())
  server = await AppServerProcess.startInitialized({ config, dataDir: temp.dir })
  threadA = ((await server.request("thread/start", {})).result!.thread as { id: string }).id
  threadB = ((await server.request("thread/start", {})).result!.thread as { id: string }).id
  await server.request("turn/start", { threadId: threadA, turnId: "t1" })
  await server.request("turn/start", { threadId: threadB, turnId: "t1" })
  expect(
    (await call(threadA, "best-buy-call", "mcp__codex_apps__best_buy_product_search", { query: "tv" })).success
  ).toBe(true)
  expect(
    (await call(threadA, "walmart-call", "mcp__codex_apps__walmart_product_search", { query: "tv" })).success
  ).toBe(true)
  expect(
    (await call(threadA, "failed-call", "mcp__codex_apps__best_buy_product_search", { query: "fail" })).success
  ).toBe(false)
  await call(threadA, "ambiguous-account-call", "mcp__codex_apps__walmart_product_search", {
    query: "tv",
    link_id: "link_other"
  })
}, 60_000)

afterAll(async () => {
  await server?.close()
  temp.remove()
  Figures.add("authorization", { "cases authorization": cases })
})

const notFound = "originating MCP tool call was not found or did not complete successfully"

describe("call-scoped widget reads", () => {
  it("an origin from one thread is never usable from another, even with a matching connectorId", async () => {
    await expectWidget(
      { threadId: threadA, originCallId: "best-buy-call", server: "codex_apps", uri: widgetUri },
      "best_buy"
    )
    await expectRefused(
      { threadId: threadB, originCallId: "best-buy-call", server: "codex_apps", uri: widgetUri },
      -32603,
      notFound
    )
    await expectRefused(
      {
        threadId: threadB,
        originCallId: "best-buy-call",
        server: "codex_apps",
        uri: widgetUri,
        connectorId: "best_buy"
      },
      -32603,
      notFound
    )
    await expectRefused(
      { originCallId: "best-buy-call", server: "codex_apps", uri: widgetUri },
      -32600,
      "originCallId requires threadId"
    )
  })

  it("a client-sent connectorId never unlocks or redirects a call-scoped read", async () => {
    // The origin's own scope is used: walmart-call reads walmart even when the client names best_buy.
    await expectWidget(
      {
        threadId: threadA,
        originCallId: "walmart-call",
        server: "codex_apps",
        uri: widgetUri,
        connectorId: "best_buy"
      },
      "walmart"
    )
    // A plain read with only a connectorId carries no account link: the widget refuses it.
    await expectRefused(
      { threadId: threadB, server: "codex_apps", uri: widgetUri, connectorId: "best_buy" },
      -32603,
      /wrong account scope$/
    )
    await expectRefused(
      {
        threadId: threadB,
        originCallId: "no-such-call",
        server: "codex_apps",
        uri: widgetUri,
        connectorId: "best_buy"
      },
      -32603,
      notFound
    )
  })

  it("a wrong URI, a failed call and an ambiguous account are each refused with their message", async () => {
    await expectRefused(
      { threadId: threadA, originCallId: "best-buy-call", server: "codex_apps", uri: "ui://widget/wrong.html" },
      -32603,
      "originating MCP tool call does not match the requested resource"
    )
    await expectRefused(
      { threadId: threadA, originCallId: "failed-call", server: "codex_apps", uri: widgetUri },
      -32603,
      notFound
    )
    await expectRefused(
      { threadId: threadA, originCallId: "ambiguous-account-call", server: "codex_apps", uri: widgetUri },
      -32603,
      "originating MCP tool call has ambiguous account selection"
    )
  })

  it("a removed tool, a re-linked tool and a disabled app are each refused after a reload", async () => {
    // best_buy's tool removed, walmart's tool linked to another account.
    configWith(
      withTools((spec) => {
        spec.tools = spec
          .tools!.filter((t) => t.name !== "best_buy_product_search")
          .map((t) => ({ ...t, _meta: { ...t._meta, link_id: "link_someone_else" } }))
      })
    )
    expect((await server.request("config/mcpServer/reload", {}, 20_000)).result).toEqual({})
    await expectRefused(
      { threadId: threadA, originCallId: "best-buy-call", server: "codex_apps", uri: widgetUri },
      -32603,
      "originating MCP tool is unavailable"
    )
    await expectRefused(
      { threadId: threadA, originCallId: "walmart-call", server: "codex_apps", uri: widgetUri },
      -32603,
      "originating MCP tool link does not match its app context"
    )
    // Original tools back, the best_buy app disabled by configuration.
    configWith(widgetAppsSpec(), "[apps.connectors.best_buy]\nenabled = false\n")
    expect((await server.request("config/mcpServer/reload", {}, 20_000)).result).toEqual({})
    await expectRefused(
      { threadId: threadA, originCallId: "best-buy-call", server: "codex_apps", uri: widgetUri },
      -32603,
      "originating MCP tool is disabled by app configuration"
    )
    await expectWidget(
      { threadId: threadA, originCallId: "walmart-call", server: "codex_apps", uri: widgetUri },
      "walmart"
    )
  }, 60_000)
})

/** Opens a WebSocket and resolves with the HTTP status of a refused upgrade, or 101 when it opened. */
const upgrade = (url: string, options: WebSocket.ClientOptions, protocols?: string | Array<string>): Promise<number> =>
  new Promise((resolve, reject) => {
    const ws = protocols === undefined ? new WebSocket(url, options) : new WebSocket(url, protocols, options)
    const timer = setTimeout(() => {
      ws.terminate()
      reject(new Error("upgrade timed out"))
    }, 10_000)
    ws.once("unexpected-response", (_req, res) => {
      clearTimeout(timer)
      resolve(res.statusCode ?? 0)
      res.resume()
      ws.terminate()
    })
    ws.once("open", () => {
      clearTimeout(timer)
      ws.close()
      resolve(101)
    })
    ws.once("error", (error) => {
      clearTimeout(timer)
      if (!/Unexpected server response/.test(error.message)) reject(error)
    })
  })

const waitListening = async (url: string, token: string) => {
  for (let i = 0; i < 50; i++) {
    try {
      if ((await upgrade(url, { headers: { Authorization: `Bearer ${token}` } })) === 101) return
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100))
  }
  throw new Error(`${url} never accepted the token`)
}

describe("transport boundaries", () => {
  it("WebSocket upgrades without the token get 401 and from a foreign Origin get 403", async () => {
    const port = await freePort()
    const dir = tempDir("ws")
    const token = "s3cret-token-value"
    const app = await AppServerProcess.start({
      dataDir: dir.dir,
      args: ["--listen", `ws://127.0.0.1:${port}`, "--no-stdio", "--token-env", "RELIABILITY_TOKEN"],
      env: { RELIABILITY_TOKEN: token }
    })
    try {
      const url = `ws://127.0.0.1:${port}`
      await waitListening(url, token)
      expect(await upgrade(url, {})).toBe(401)
      expect(await upgrade(url, { headers: { Authorization: "Bearer wrong" } })).toBe(401)
      expect(await upgrade(url, {}, "bearer.wrong")).toBe(401)
      expect(await upgrade(url, { headers: { Authorization: `Bearer ${token}`, Origin: "http://evil.example" } })).toBe(
        403
      )
      expect(await upgrade(url, {}, `bearer.${token}`)).toBe(101)
      expect(app.stderr()).not.toContain(token)
      cases += 5
    } finally {
      await app.close()
      dir.remove()
    }
  }, 30_000)

  it("a non-loopback bind without --allow-remote, or --allow-remote without a token, exits non-zero with a message", async () => {
    for (const [args, message] of [
      [["--listen", "ws://0.0.0.0:0", "--no-stdio"], /0\.0\.0\.0 is not a loopback address; pass --allow-remote/],
      [["--listen", "ws://0.0.0.0:0", "--no-stdio", "--allow-remote"], /--allow-remote requires --token-env/]
    ] as const) {
      const dir = tempDir("bind")
      const app = await AppServerProcess.start({ dataDir: dir.dir, args })
      try {
        const exit = await Promise.race([
          app.exited,
          new Promise<never>((_, reject) =>
            setTimeout(() => reject(new Error(`still running: ${args.join(" ")}`)), 10_000)
          )
        ])
        expect(exit.code, args.join(" ")).not.toBe(0)
        expect(exit.code).not.toBeNull()
        expect(app.stderr().length, app.stderr()).toBeGreaterThan(0)
        const first = app.stderr().trim().split("\n")[0] ?? ""
        expect(first).toMatch(message)
        Figures.note("authorization", `\`${args.join(" ")}\` → exit ${exit.code}: ${first.slice(0, 160)}`)
        cases++
      } finally {
        await app.close("SIGKILL")
        dir.remove()
      }
    }
  }, 30_000)
})
