/**
 * The baseline (`baseline.json`): the scenarios still expected to fail, each with its reason and the
 * issue that will fix it, and the timing warnings tolerated on a loaded machine; and the verdict that
 * holds a run to it.
 */
import { Either, ParseResult, Schema } from "effect"
import * as NodeFs from "node:fs"

const NonEmpty = Schema.String.pipe(Schema.minLength(1))

/** A scenario that still fails: why, and which issue (or branch) will make it pass. */
export const ExpectedFailure = Schema.Struct({ scenario: NonEmpty, reason: NonEmpty, issue: NonEmpty })

/** A WARNING check that does not count as a failure of that scenario (wall-clock margins only). */
export const ToleratedWarning = Schema.Struct({ scenario: NonEmpty, check: NonEmpty, reason: NonEmpty })

/** The whole file. `suite` is the `name@version` of the conformance package the baseline was recorded with. */
export const Baseline = Schema.Struct({
  suite: NonEmpty,
  expectedFailures: Schema.Array(ExpectedFailure),
  toleratedWarnings: Schema.Array(ToleratedWarning)
})
export type Baseline = typeof Baseline.Type

/** Reads and checks the baseline; a bad file throws an error naming the file and the problem. */
export const load = (file: string): Baseline => {
  const decoded = Schema.decodeUnknownEither(Baseline, { onExcessProperty: "error" })(
    JSON.parse(NodeFs.readFileSync(file, "utf8"))
  )
  if (Either.isLeft(decoded)) {
    throw new Error(`${file}: ${ParseResult.TreeFormatter.formatErrorSync(decoded.left)}`)
  }
  const seen = new Set<string>()
  for (const entry of decoded.right.expectedFailures) {
    if (seen.has(entry.scenario)) throw new Error(`${file}: scenario '${entry.scenario}' is listed twice`)
    seen.add(entry.scenario)
  }
  return decoded.right
}

/** One check of a scenario's `checks.json`, as the suite writes it. */
export interface Check {
  readonly id: string
  readonly name?: string
  readonly status: string
  readonly description?: string
  readonly errorMessage?: string
}

/** What one scenario run left behind. */
export interface Run {
  readonly scenario: string
  /** The suite CLI's exit code; `null` when our harness had to kill it. */
  readonly exitCode: number | null
  readonly checks: ReadonlyArray<Check>
  /** The suite CLI's stderr (its report, and our client's output when the client exited non-zero). */
  readonly stderr: string
}

/** Whether a run passed, and the lines that say why not. */
export interface Verdict {
  readonly passed: boolean
  readonly problems: ReadonlyArray<string>
  readonly toleratedWarnings: ReadonlyArray<string>
}

const clientMarkers = ["CLIENT TIMED OUT", "CLIENT EXITED WITH ERROR"]

/**
 * A run passes when the suite's CLI exits 0, or when the only thing it held against the client is a
 * WARNING check the baseline tolerates for that scenario (the CLI fails on every warning).
 */
export const verdict = (run: Run, baseline: Baseline): Verdict => {
  const tolerated = new Set(
    baseline.toleratedWarnings.filter((entry) => entry.scenario === run.scenario).map((entry) => entry.check)
  )
  const describe = (check: Check) =>
    `${check.status} ${check.id}: ${check.errorMessage ?? check.description ?? check.name ?? ""}`.trimEnd()
  const toleratedWarnings = run.checks
    .filter((check) => check.status === "WARNING" && tolerated.has(check.id))
    .map(describe)
  const problems = run.checks
    .filter((check) => check.status === "FAILURE" || (check.status === "WARNING" && !tolerated.has(check.id)))
    .map(describe)
  for (const marker of clientMarkers) if (run.stderr.includes(marker)) problems.push(marker)
  if (run.exitCode === null) problems.push("the suite did not finish in time and was killed")
  else if (run.exitCode !== 0 && problems.length === 0 && toleratedWarnings.length === 0) {
    problems.push(`the suite exited with code ${run.exitCode}`)
  }
  return { passed: problems.length === 0, problems, toleratedWarnings }
}

/** What a run means against the baseline: `undefined` when it matches, otherwise why the test fails. */
export const mismatch = (run: Run, baseline: Baseline): string | undefined => {
  const expected = baseline.expectedFailures.find((entry) => entry.scenario === run.scenario)
  const result = verdict(run, baseline)
  if (result.passed && expected !== undefined) {
    return `${run.scenario} passes now, but the baseline expects it to fail (${expected.reason}; ${expected.issue}): remove its entry from baseline.json`
  }
  if (!result.passed && expected === undefined) {
    return `${run.scenario} fails and is not in the baseline:\n  ${result.problems.join("\n  ")}`
  }
  return undefined
}
