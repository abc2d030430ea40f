/** vitest global setup: starts a fresh figures file, and renders RELIABILITY.md from it at the end. */
import { Figures } from "../../src/index.js"

export default function setup(): () => void {
  Figures.reset()
  return () => {
    const missing = Figures.writeReport()
    if (missing.length === 0) {
      process.stderr.write(`reliability: wrote ${Figures.reportFile}\n`)
    } else {
      process.stderr.write(
        `reliability: RELIABILITY.md not rewritten (sections not run: ${missing.join(", ")}); figures in ${Figures.figuresFile}\n`
      )
    }
  }
}
