#!/usr/bin/env node
/** The `mcp-resources` command of the package: the bundled `Cli.ts` (see `load.ts`). */
import { run } from "./load.js"

run("cli")
