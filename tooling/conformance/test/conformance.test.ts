/**
 * Every client scenario of the official MCP conformance suite, run against our client program and
 * held to `baseline.json`: a scenario fails this test when it fails and the baseline does not expect
 * it, and also when it passes although the baseline still lists it (so the baseline stays honest).
 */
import * as NodeFs from "node:fs"
import { assert, describe, it } from "vitest"
import * as Baseline from "./utils/baseline.js"
import { baselineFile, clientScript, findTools, listClientScenarios, runScenario } from "./utils/suite.js"

const tools = findTools()

if (tools._tag === "unavailable") {
  console.warn(`conformance suite skipped: ${tools.reason}`)
  describe.skip(`official conformance suite (skipped: ${tools.reason})`, () => {
    it("runs every client scenario", () => {})
  })
} else {
  const baseline = Baseline.load(baselineFile)
  const scenarios = listClientScenarios(tools)

  describe(`official conformance suite ${tools.suite}`, () => {
    it("the baseline was recorded with the installed suite and names only scenarios it lists", () => {
      assert.strictEqual(baseline.suite, tools.suite, "the suite changed: run every scenario and update baseline.json")
      assert.isAbove(scenarios.length, 0, "the suite lists no client scenario")
      const listed = new Set(scenarios)
      const unknown = [...baseline.expectedFailures, ...baseline.toleratedWarnings]
        .map((entry) => entry.scenario)
        .filter((scenario) => !listed.has(scenario))
      assert.deepStrictEqual(unknown, [], "baseline.json names scenarios the suite does not list")
    })

    it("the client program is built", () => {
      assert.isTrue(NodeFs.existsSync(clientScript), `${clientScript} is missing: run pnpm build first`)
    })

    for (const scenario of scenarios) {
      const expected = baseline.expectedFailures.find((entry) => entry.scenario === scenario)
      const title =
        expected === undefined
          ? `${scenario} passes`
          : `${scenario} still fails as the baseline expects (${expected.issue.replace(/ \(.*$/, "")})`
      it.concurrent(title, async () => {
        const run = await runScenario(tools, scenario)
        const result = Baseline.verdict(run, baseline)
        for (const warning of result.toleratedWarnings) console.warn(`${scenario}: tolerated ${warning}`)
        const mismatch = Baseline.mismatch(run, baseline)
        assert.isUndefined(mismatch, `${mismatch}\n--- suite output ---\n${run.stderr.slice(-4000)}`)
      })
    }
  })
}
