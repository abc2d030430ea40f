/**
 * Preloaded (`node --expose-gc --import dist/memoryProbe.js ...`) into both processes of scenario 12:
 * on SIGUSR2 it forces a GC and writes `process.memoryUsage()` as JSON to the file named by
 * `BENCH_MEMORY_PROBE`, so that the memory figure does not depend on when the last GC ran.
 */
import { renameSync, writeFileSync } from "node:fs"

const file = process.env.BENCH_MEMORY_PROBE
if (file !== undefined && file !== "") {
  process.on("SIGUSR2", () => {
    const gc = (globalThis as { gc?: () => void }).gc
    gc?.()
    gc?.()
    writeFileSync(`${file}.tmp`, JSON.stringify(process.memoryUsage()))
    renameSync(`${file}.tmp`, file)
  })
}
