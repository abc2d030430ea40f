import { defineConfig, mergeConfig } from "vitest/config"
import shared from "../../tooling/config/vitest.shared.ts"

// Each scenario starts the suite's loopback servers and two processes (the suite on Node 22, our
// client on the project's Node): at most two run at once on a shared 2-core machine.
export default mergeConfig(
  shared,
  defineConfig({
    test: {
      maxConcurrency: 2,
      testTimeout: 180_000
    }
  })
)
