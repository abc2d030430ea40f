import { assert, describe, it } from "@effect/vitest"
import * as ServerUrl from "../src/ServerUrl.js"

describe("ServerUrl", () => {
  it("redact replaces each query value and drops credentials and the fragment", () => {
    assert.strictEqual(
      ServerUrl.redact("https://u:p@mcp.example:8443/a/mcp?token=abc&flag&x=1#frag"),
      "https://mcp.example:8443/a/mcp?token=REDACTED&flag&x=REDACTED"
    )
    assert.strictEqual(ServerUrl.redact("http://127.0.0.1:3000/mcp"), "http://127.0.0.1:3000/mcp")
    assert.strictEqual(ServerUrl.redact("not a url"), "the server URL")
  })

  it("redactIn replaces every spelling of the URL's secrets a message may quote", () => {
    const url = "https://mcp.example/mcp?token=s3cr3t%2Bvalue&team=blue"
    const quoted = [
      `cannot reach ${url}`,
      "answered: GET /mcp?token=s3cr3t%2Bvalue&team=blue",
      "token=s3cr3t%2Bvalue",
      "resource=https%3A%2F%2Fmcp.example%2Fmcp%3Ftoken%3Ds3cr3t%252Bvalue%26team%3Dblue",
      "the value s3cr3t+value was refused"
    ].map((text) => ServerUrl.redactIn(text, url))
    for (const text of quoted) assert.notInclude(text, "s3cr3t")
    assert.strictEqual(quoted[0], "cannot reach https://mcp.example/mcp?token=REDACTED&team=REDACTED")
    assert.strictEqual(
      ServerUrl.redactIn("http://alice:pw-123456@h/mcp failed", "http://alice:pw-123456@h/mcp"),
      "http://h/mcp failed"
    )
    // a URL without secrets leaves the text as it is
    assert.strictEqual(ServerUrl.redactIn("http://h/x and http://h", "http://h"), "http://h/x and http://h")
  })
})
