/**
 * The start-up floor our dependency choice sets (scenario 6): import effect and the MCP SDK client,
 * print one line, exit.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { Effect } from "effect"

process.stdout.write(`${JSON.stringify({ ready: typeof Client === "function" && Effect.isEffect(Effect.void) })}\n`)
