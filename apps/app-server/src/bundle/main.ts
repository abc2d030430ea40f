#!/usr/bin/env node
/** The `mcp-resources-app-server` command of the package: the bundled `main.ts` (see `load.ts`). */
import { run } from "./load.js"

run("server")
