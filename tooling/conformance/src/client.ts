#!/usr/bin/env node
/**
 * The client program the conformance suite starts: `node dist/client.js <server-url>`, with the
 * scenario's name in `MCP_CONFORMANCE_SCENARIO`. Logs go to stderr; exit 0 when every step worked, 1
 * otherwise (with the reason on stderr).
 */
import { Cause, Effect, Exit, Logger, LogLevel } from "effect"
import { idTokenVariable, privateKeyVariable, run, type ScenarioContext, secretVariable } from "./ConformanceClient.js"

const url = process.argv[2]
const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? "(no scenario)"

if (url === undefined || process.argv.length !== 3) {
  process.stderr.write("usage: client <server-url> (the conformance suite appends the URL)\n")
  process.exit(2)
}

const context = ((): ScenarioContext => {
  try {
    return JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT ?? "{}") as ScenarioContext
  } catch {
    return {}
  }
})()
// the credentials go where a deployment keeps them: in variables the config names, never in the config
if (context.client_secret !== undefined) process.env[secretVariable] = context.client_secret
if (context.private_key_pem !== undefined) process.env[privateKeyVariable] = context.private_key_pem
if (context.idp_id_token !== undefined) process.env[idTokenVariable] = context.idp_id_token

const program = run(url, context).pipe(
  Effect.annotateLogs({ scenario }),
  Effect.provide(Logger.replace(Logger.defaultLogger, Logger.withConsoleError(Logger.logfmtLogger))),
  Logger.withMinimumLogLevel(LogLevel.Info)
)

Effect.runPromiseExit(program).then((exit) => {
  if (Exit.isSuccess(exit)) {
    process.stderr.write(`${scenario}: done (${exit.value.calls.length} tool calls)\n`)
    process.exit(0)
  }
  const failure = Cause.failureOption(exit.cause)
  const reason = failure._tag === "Some" ? failure.value.message : Cause.pretty(exit.cause)
  process.stderr.write(`${scenario}: failed: ${reason}\n`)
  process.exit(1)
})
