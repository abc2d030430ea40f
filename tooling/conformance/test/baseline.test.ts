/** How a scenario run is judged against the baseline, and the checked-in baseline file itself. */
import { assert, describe, it } from "vitest"
import * as Baseline from "./utils/baseline.js"
import { baselineFile } from "./utils/suite.js"

const baseline: Baseline.Baseline = {
  suite: "@modelcontextprotocol/conformance@0.0.0",
  expectedFailures: [{ scenario: "auth/basic-cimd", reason: "OAuth client support", issue: "issue 19" }],
  toleratedWarnings: [{ scenario: "sse-retry", check: "client-sse-retry-timing", reason: "wall-clock margin" }]
}

const run = (overrides: Partial<Baseline.Run>): Baseline.Run => ({
  scenario: "initialize",
  exitCode: 0,
  checks: [{ id: "mcp-client-initialization", status: "SUCCESS" }],
  stderr: "✅ OVERALL: PASSED",
  ...overrides
})

const lateWarning = { id: "client-sse-retry-timing", status: "WARNING", errorMessage: "slightly late" }

describe("Baseline.verdict and Baseline.mismatch", () => {
  it("a passing scenario outside the baseline matches", () => {
    assert.isTrue(Baseline.verdict(run({}), baseline).passed)
    assert.isUndefined(Baseline.mismatch(run({}), baseline))
  })

  it("a failing scenario outside the baseline is a regression naming the failed checks", () => {
    const failed = run({
      scenario: "tools_call",
      exitCode: 1,
      checks: [{ id: "tool-add-numbers", status: "FAILURE", description: "add_numbers works" }],
      stderr: "⚠️  CLIENT EXITED WITH ERROR (code 1)"
    })
    assert.strictEqual(
      Baseline.mismatch(failed, baseline),
      "tools_call fails and is not in the baseline:\n  FAILURE tool-add-numbers: add_numbers works\n  CLIENT EXITED WITH ERROR"
    )
  })

  it("a baseline scenario that fails matches, and one that passes is stale", () => {
    const failing = run({
      scenario: "auth/basic-cimd",
      exitCode: 1,
      checks: [{ id: "token-request", status: "FAILURE" }]
    })
    assert.isUndefined(Baseline.mismatch(failing, baseline))
    assert.match(
      Baseline.mismatch(run({ scenario: "auth/basic-cimd" }), baseline) ?? "",
      /^auth\/basic-cimd passes now, but the baseline expects it to fail \(OAuth client support; issue 19\)/
    )
  })

  it("a tolerated warning passes only in its own scenario", () => {
    const late = { exitCode: 1, checks: [{ id: "client-sse-graceful-reconnect", status: "SUCCESS" }, lateWarning] }
    const tolerated = Baseline.verdict(run({ scenario: "sse-retry", ...late }), baseline)
    assert.deepStrictEqual(tolerated, {
      passed: true,
      problems: [],
      toleratedWarnings: ["WARNING client-sse-retry-timing: slightly late"]
    })
    assert.isFalse(Baseline.verdict(run({ scenario: "initialize", ...late }), baseline).passed)
  })

  it("a tolerated warning does not hide a client that timed out", () => {
    const timedOut = run({ scenario: "sse-retry", exitCode: 1, checks: [lateWarning], stderr: "⚠️  CLIENT TIMED OUT" })
    assert.deepStrictEqual(Baseline.verdict(timedOut, baseline).problems, ["CLIENT TIMED OUT"])
  })

  it("a killed or crashed suite run fails even without any check", () => {
    assert.deepStrictEqual(Baseline.verdict(run({ exitCode: null, checks: [] }), baseline).problems, [
      "the suite did not finish in time and was killed"
    ])
    assert.deepStrictEqual(Baseline.verdict(run({ exitCode: 1, checks: [] }), baseline).problems, [
      "the suite exited with code 1"
    ])
  })

  it("the checked-in baseline gives every expected failure a reason and an issue, and every tolerated warning a reason", () => {
    const file = Baseline.load(baselineFile)
    for (const entry of file.expectedFailures) assert.match(entry.issue, /^issue \d+/, entry.scenario)
    // only wall-clock margins may be tolerated (see README.md), each with its reason
    assert.deepStrictEqual(
      file.toleratedWarnings.map((entry) => `${entry.scenario} ${entry.check}`),
      ["sse-retry client-sse-retry-timing"]
    )
  })
})
