#!/usr/bin/env node
// The `mcp-resources` command. A committed launcher, so that the command exists as soon as the package is
// installed (in the workspace: before anything is built); the program is the bundle in dist/.
import { fileURLToPath } from "node:url"

const program = new URL("../dist/bundle/Cli.js", import.meta.url)
import(program.href).catch((error) => {
  const missing = error?.code === "ERR_MODULE_NOT_FOUND" && String(error.message).includes(fileURLToPath(program))
  process.stderr.write(
    missing
      ? "mcp-resources: this package is not built yet (dist/bundle/Cli.js is missing): run pnpm build\n"
      : `mcp-resources: ${String(error)}\n`
  )
  process.exitCode = 1
})
