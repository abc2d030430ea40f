import { assert, describe, it } from "@effect/vitest"
import { Csp } from "@mcp-resources/widget-host"

describe("Csp.build", () => {
  it("without a declaration allows the widget's own inline code and nothing remote", () => {
    assert.strictEqual(
      Csp.build(undefined),
      "default-src 'none'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self'; media-src 'self' data:; connect-src 'none'; frame-src 'none'; object-src 'none'; base-uri 'self'"
    )
    assert.strictEqual(Csp.build({}), Csp.build(undefined))
  })

  it("adds each declared origin to its directives only", () => {
    const policy = Csp.build({
      connectDomains: ["https://api.example.com"],
      resourceDomains: ["https://*.cdn.example"],
      frameDomains: ["https://youtube.example"],
      baseUriDomains: ["https://base.example"]
    })
    assert.include(policy, "connect-src https://api.example.com;")
    assert.include(policy, "script-src 'self' 'unsafe-inline' https://*.cdn.example;")
    assert.include(policy, "img-src 'self' data: https://*.cdn.example;")
    assert.include(policy, "frame-src https://youtube.example;")
    assert.include(policy, "base-uri https://base.example")
    assert.notInclude(policy.split("; ").find((d) => d.startsWith("connect-src"))!, "cdn")
  })

  it("drops entries that are not plain origins (keywords, wildcards, injected directives)", () => {
    const policy = Csp.build({
      connectDomains: [
        "*",
        "'unsafe-eval'",
        "https://ok.example; script-src *",
        "https://ok.example",
        "data:",
        "https://ok.example"
      ]
    })
    assert.include(policy, "connect-src https://ok.example;")
    assert.notInclude(policy, "unsafe-eval")
    assert.strictEqual(policy.split(";").length, 10)
  })
})

describe("Csp.inject", () => {
  it("puts the policy first in <head>, or first in the document", () => {
    assert.strictEqual(
      Csp.inject('<html><head lang="en"><title>x</title></head></html>', "default-src 'none'"),
      `<html><head lang="en"><meta http-equiv="Content-Security-Policy" content="default-src 'none'"><title>x</title></head></html>`
    )
    assert.isTrue(Csp.inject("<p>hi</p>", "a").startsWith('<meta http-equiv="Content-Security-Policy" content="a">'))
  })
})

describe("Csp.proxyPolicy", () => {
  it("is the widget's own policy, framed by the page only", () => {
    const csp = { connectDomains: ["https://api.example"], frameDomains: ["https://video.example"] }
    assert.strictEqual(
      Csp.proxyPolicy(csp, "http://127.0.0.1:4000"),
      `${Csp.build(csp)}; frame-ancestors http://127.0.0.1:4000`
    )
    assert.include(Csp.proxyPolicy(undefined, "http://127.0.0.1:4000"), "connect-src 'none'; frame-src 'none';")
  })
})
