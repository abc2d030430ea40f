import { defineConfig, mergeConfig } from "vitest/config"
import shared from "../../tooling/config/vitest.shared.ts"

// Files run one after another: they drive child processes on a shared 2-core machine, and they add
// to one figures file that the global teardown renders into RELIABILITY.md.
export default mergeConfig(
  shared,
  defineConfig({
    test: {
      fileParallelism: false,
      globalSetup: ["../../tooling/config/pgGlobalSetup.ts", "./test/utils/reportSetup.ts"]
    }
  })
)
