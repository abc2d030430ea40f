import { defineConfig, mergeConfig } from "vitest/config"
import shared from "../../tooling/config/vitest.shared.ts"

// One npm install for the whole file: the tests share its project and run in order.
export default mergeConfig(shared, defineConfig({ test: { fileParallelism: false } }))
