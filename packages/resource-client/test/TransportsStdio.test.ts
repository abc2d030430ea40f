/** The transport contract (TransportSuite.ts) over stdio, a child process per test, in both protocol eras. */
import { Effect } from "effect"
import { McpTransport } from "../src/index.js"
import { type Transport, transportSuite } from "./TransportSuite.js"
import { contractStdioCommand } from "./utils/contractServer.mjs"

const stdio: Transport = {
  name: "stdio",
  layer: McpTransport.layer,
  serve: (era) => Effect.succeed({ _tag: "stdio", ...contractStdioCommand(era), env: {} }),
  closedReason: "connection closed (the process exited with code 3)"
}

for (const era of ["legacy", "modern"] as const) transportSuite(stdio, era)
