#!/usr/bin/env node
/**
 * `node tooling/reference/dist/main.js [--check] [--only schemas|docs]`: regenerates the app-server's
 * JSON Schemas and the generated blocks of `docs/` (or, with `--check`, exits 1 naming each stale file).
 */
import { type Only, repoRoot, stale, write } from "./Reference.js"

const argv = process.argv.slice(2)
const check = argv.includes("--check")
const onlyAt = argv.indexOf("--only")
const only = (onlyAt >= 0 ? argv[onlyAt + 1] : "all") as Only
if (only !== "all" && only !== "schemas" && only !== "docs") {
  process.stderr.write("usage: reference [--check] [--only schemas|docs]\n")
  process.exit(2)
}
const root = repoRoot()
if (check) {
  const files = stale(root, only)
  for (const file of files) process.stderr.write(`stale: ${file} (regenerate with pnpm gen:reference)\n`)
  process.exitCode = files.length > 0 ? 1 : 0
} else {
  for (const file of write(root, only)) process.stdout.write(`wrote ${file}\n`)
}
