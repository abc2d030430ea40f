import { request } from "node:http"
import { assert, describe, it } from "@effect/vitest"
import { Csp, WidgetHost } from "@mcp-resources/widget-host"

interface Answer {
  readonly status: number
  readonly headers: Record<string, string | Array<string> | undefined>
  readonly body: string
}

/** One request to the loopback port with the given `Host` (fetch cannot set it). */
const ask = (
  port: number,
  host: string,
  path: string,
  options: { method?: string; headers?: Record<string, string>; body?: string } = {}
) =>
  new Promise<Answer>((resolve, reject) => {
    const req = request(
      { host: "127.0.0.1", port, path, method: options.method ?? "GET", headers: { host, ...options.headers } },
      (res) => {
        let body = ""
        res.on("data", (chunk: Buffer) => {
          body += chunk.toString("utf8")
        })
        res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }))
      }
    )
    req.on("error", reject)
    req.end(options.body)
  })

const withHost = async (f: (host: WidgetHost.Running, pagePort: number) => Promise<void>) => {
  const host = await WidgetHost.serve({ appServerUrl: "ws://127.0.0.1:1" })
  try {
    await f(host, Number(new URL(host.pageOrigin).port))
  } finally {
    await host.close()
  }
}

const issue = (pagePort: number, origin: string, csp: unknown) =>
  ask(pagePort, `127.0.0.1:${pagePort}`, "/sandbox", {
    method: "POST",
    headers: { origin, "content-type": "application/json" },
    body: JSON.stringify({ csp })
  })

describe("WidgetHost.serve", () => {
  it("answers only its loopback names (a DNS-rebound Host is refused)", () =>
    withHost(async (host, pagePort) => {
      for (const name of [`127.0.0.1:${pagePort}`, `localhost:${pagePort}`, `[::1]:${pagePort}`]) {
        assert.strictEqual((await ask(pagePort, name, "/")).status, 200, name)
      }
      for (const name of [
        `evil.example:${pagePort}`,
        "127.0.0.1",
        `127.0.0.1:${pagePort + 1}`,
        `x.localhost:${pagePort}`
      ]) {
        assert.strictEqual((await ask(pagePort, name, "/")).status, 421, name)
      }
      // the sandbox port answers only issued widget origins
      const sandbox = host.sandboxPort
      assert.strictEqual((await ask(sandbox, `127.0.0.1:${sandbox}`, "/sandbox.html")).status, 421)
      assert.strictEqual((await ask(sandbox, `${"a".repeat(32)}.localhost:${sandbox}`, "/sandbox.html")).status, 421)
    }))

  it("issues an origin per widget only to the page, and serves its proxy once under the widget's policy", () =>
    withHost(async (host, pagePort) => {
      assert.strictEqual((await issue(pagePort, "http://evil.example", {})).status, 403)
      const csp = { connectDomains: ["https://api.example", "'unsafe-eval'"] }
      const first = await issue(pagePort, host.pageOrigin, csp)
      const second = await issue(pagePort, host.pageOrigin, null)
      assert.strictEqual(first.status, 200)
      const a = (JSON.parse(first.body) as { origin: string }).origin
      const b = (JSON.parse(second.body) as { origin: string }).origin
      assert.match(a, new RegExp(`^http://[a-z0-9]{32}\\.localhost:${host.sandboxPort}$`))
      assert.notStrictEqual(a, b)
      const name = new URL(a).host
      const proxy = await ask(host.sandboxPort, name, "/sandbox.html")
      assert.strictEqual(proxy.status, 200)
      assert.strictEqual(
        proxy.headers["content-security-policy"],
        Csp.proxyPolicy({ connectDomains: ["https://api.example", "'unsafe-eval'"] }, host.pageOrigin)
      )
      assert.include(proxy.headers["content-security-policy"] as string, "connect-src https://api.example;")
      assert.include(proxy.headers["content-security-policy"] as string, `frame-ancestors ${host.pageOrigin}`)
      // a second load of the same proxy (a proxy that navigated itself) gets nothing
      assert.strictEqual((await ask(host.sandboxPort, name, "/sandbox.html")).status, 404)
      assert.strictEqual((await ask(host.sandboxPort, name, "/sandbox.js")).status, 200)
    }))

  it("holds the page's settle script until the page itself releases it", () =>
    withHost(async (host, pagePort) => {
      const name = `127.0.0.1:${pagePort}`
      const id = "0b5e7c4e-2f4e-4d3a-9a51-7d0c2e8f1a23"
      let answered = false
      const held = ask(pagePort, name, `/settle.js?id=${id}`).then((a) => {
        answered = true
        return a
      })
      const release = (origin: string) =>
        ask(pagePort, name, "/settle", {
          method: "POST",
          headers: { origin, "content-type": "application/json" },
          body: JSON.stringify({ id })
        })
      // another origin cannot release it; a malformed id is answered at once
      assert.strictEqual((await release("http://evil.example")).status, 403)
      assert.strictEqual((await ask(pagePort, name, "/settle.js?id=nope")).status, 200)
      assert.isFalse(answered)
      assert.strictEqual((await release(host.pageOrigin)).status, 204)
      const script = await held
      assert.strictEqual(script.status, 200)
      assert.strictEqual(script.headers["content-type"], "text/javascript; charset=utf-8")
      assert.strictEqual(script.body, "")
    }))

  it("refuses a host that is not a loopback address its sandbox names can reach", async () => {
    let error: unknown
    await WidgetHost.serve({ appServerUrl: "ws://x", host: "0.0.0.0" }).catch((e: unknown) => {
      error = e
    })
    assert.include(String(error), "host must be 127.0.0.1 or ::1")
  })
})
