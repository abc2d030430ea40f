import { defineConfig, mergeConfig } from "vitest/config"
import shared from "../../tooling/config/vitest.shared.ts"

// One throw-away PostgreSQL cluster for the run: the origin cases also run through the PostgreSQL
// thread store (skipped with a printed reason without server binaries).
export default mergeConfig(shared, defineConfig({ test: { globalSetup: ["../../tooling/config/pgGlobalSetup.ts"] } }))
