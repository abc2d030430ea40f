#!/usr/bin/env node
/**
 * The app-server program: `node dist/main.js --config PATH --data-dir DIR [--listen ws://HOST:PORT]
 * [--no-stdio] [--allow-remote] [--token-env VAR] [--allow-origin ORIGIN]... [--thread-idle-timeout SECONDS]` plus `wss://` and the
 * transport limits (`usage` lists every flag; the README explains them). Runs until standard
 * input ends or SIGINT/SIGTERM, then shuts down gracefully and exits 0; `--help` prints the usage and exits 0.
 */
// The module itself, not the package index (which loads every Node platform module: HTTP, cluster, sockets…).
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { Cause, Effect, Exit } from "effect"
import { parseArgs, UsageError, usage } from "./AppOptions.js"
import * as HostSecrets from "./HostSecrets.js"
import * as MainLayer from "./MainLayer.js"
import { StopSignal } from "./StopSignal.js"

const fatal = (message: string, code: number) =>
  Effect.sync(() => {
    process.stderr.write(`mcp-resources-app-server: ${message}\n`)
    return code
  })

/** Parses the command line, runs the server until it is asked to stop, and returns the exit code. */
export const program: Effect.Effect<number> = Effect.gen(function* () {
  const argv = process.argv.slice(2)
  if (argv.includes("--help") || argv.includes("-h")) {
    // Nothing is served, so standard output is free for the usage text.
    yield* Effect.sync(() => process.stdout.write(`${usage}\n`))
    return 0
  }
  const options = yield* Effect.try({
    try: () => parseArgs(argv, process.env, process.cwd()),
    catch: (error) => (error instanceof UsageError ? error : new UsageError(String(error)))
  })
  // the token is read: no MCP server or hook this process spawns inherits it
  if (options.tokenEnv !== undefined) yield* Effect.sync(() => delete process.env[options.tokenEnv!])
  // so are the app-server's own secrets: read through Config from here on, inherited by no child
  yield* Effect.flatMap(StopSignal, (signal) => signal.awaitStop).pipe(
    Effect.provide(MainLayer.layer(options)),
    HostSecrets.withheld
  )
  return 0
}).pipe(
  Effect.catchAll((error) =>
    error instanceof UsageError ? fatal(`${error.message}\n${usage}`, 2) : fatal(error.message, 1)
  ),
  Effect.catchAllDefect((defect) => fatal(Cause.pretty(Cause.die(defect)), 1))
)

NodeRuntime.runMain(program, {
  disableErrorReporting: true,
  disablePrettyLogger: true,
  teardown: (exit) => {
    process.exit(
      Exit.isSuccess(exit)
        ? typeof exit.value === "number"
          ? exit.value
          : 0
        : Cause.isInterruptedOnly(exit.cause)
          ? 0
          : 1
    )
  }
})
