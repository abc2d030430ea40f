import { defineConfig, mergeConfig } from "vitest/config"
import shared from "../../tooling/config/vitest.shared.ts"

export default mergeConfig(shared, defineConfig({}))
