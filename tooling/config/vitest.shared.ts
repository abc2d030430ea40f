import { defineConfig } from "vitest/config"

/** Shared vitest settings: every package runs its tests in forks with bounded timeouts. */
export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: "forks",
    reporters: ["default"],
    sequence: { concurrent: false }
  }
})
