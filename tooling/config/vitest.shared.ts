import { defineConfig } from "vitest/config"

/**
 * Shared vitest settings: tests run in forks with bounded timeouts; a JSON report per package feeds
 * the one-line summary that `.ci/run` prints (tooling/config/summarize-tests.mjs).
 */
export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: "forks",
    reporters: ["default", "json"],
    outputFile: { json: ".test-results/report.json" },
    sequence: { concurrent: false }
  }
})
