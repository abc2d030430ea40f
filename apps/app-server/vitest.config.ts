import { defineConfig, mergeConfig } from "vitest/config"
import shared from "../../tooling/config/vitest.shared.ts"

// One throw-away PostgreSQL cluster for the run (postgres.test.ts skips with a printed reason without
// one), and one temporary directory for every test's files, removed after the run.
export default mergeConfig(
  shared,
  defineConfig({ test: { globalSetup: ["../../tooling/config/pgGlobalSetup.ts", "test/utils/tempRoot.ts"] } })
)
