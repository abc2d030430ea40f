import { defineConfig, mergeConfig } from "vitest/config"
import shared from "../../tooling/config/vitest.shared.ts"

// One throw-away PostgreSQL cluster for the run (TokenStore.pg.test.ts skips with a printed reason without one).
export default mergeConfig(shared, defineConfig({ test: { globalSetup: ["../../tooling/config/pgGlobalSetup.ts"] } }))
