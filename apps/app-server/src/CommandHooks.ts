/**
 * Command hooks from the config (`[[hooks.before_tool]]`, `[[hooks.after_tool]]`, docs/policy.md):
 * each matching hook runs as a process (no shell) with the call as JSON on standard input and prints
 * its decision as JSON on standard output; exit status 2 denies with standard error as the reason.
 * Every run is bounded in time and output, and its process group is killed at its end, whatever the
 * end: what a hook started in the background ends with it (a process that leaves the group with
 * `setsid` or its own process group escapes; docs/policy.md).
 */
import { type Config, ToolHook } from "@mcp-resources/protocol"
import { ToolHooks } from "@mcp-resources/tool-handlers"
import * as ChildProcess from "node:child_process"
import { Context, Effect, Either, Layer, Schema } from "effect"

/** The most bytes of standard output a hook may print. */
export const maxStdoutBytes = 1024 * 1024

/** The most bytes of standard error kept (a deny's reason). */
export const maxStderrBytes = 4096

/** Hook processes running at the same time; the others wait their turn (outside their time-out). */
export const maxConcurrentRuns = 16

/** What one run of a hook process gave. */
interface RunResult {
  readonly code: number | null
  readonly signal: NodeJS.Signals | null
  readonly stdout: string
  readonly stderr: string
}

/**
 * Kills the hook's whole process group, also after the hook itself exited: the group (its id is the
 * hook's pid) lives on while a process the hook started in the background is in it, and the kernel
 * does not give that id to another process meanwhile.
 */
const killGroup = (child: ChildProcess.ChildProcess): void => {
  if (child.pid === undefined) return
  try {
    process.kill(-child.pid, "SIGKILL")
  } catch {
    // no process left in the group
  }
}

/** Runs one hook process with `input` on standard input; fails with the reason the run is unusable. */
const runProcess = (hook: Config.HookCommandConfig, input: string): Effect.Effect<RunResult, ToolHooks.HookError> =>
  Effect.async<RunResult, ToolHooks.HookError>((resume) => {
    let child: ChildProcess.ChildProcess
    try {
      child = ChildProcess.spawn(hook.command, [...hook.args], {
        stdio: ["pipe", "pipe", "pipe"],
        detached: true,
        windowsHide: true
      })
    } catch (e) {
      resume(
        Effect.fail(
          new ToolHooks.HookError({ message: `could not start: ${e instanceof Error ? e.message : String(e)}` })
        )
      )
      return Effect.void
    }
    const stdout: Array<Buffer> = []
    const stderr: Array<Buffer> = []
    let stdoutBytes = 0
    let stderrBytes = 0
    let done = false
    const finish = (effect: Effect.Effect<RunResult, ToolHooks.HookError>) => {
      if (done) return
      done = true
      killGroup(child)
      resume(effect)
    }
    child.on("error", (error) =>
      finish(Effect.fail(new ToolHooks.HookError({ message: `could not start: ${error.message}` })))
    )
    // the hook is done: what it left running in its group ends now, so its output pipes close
    child.on("exit", () => killGroup(child))
    child.stdout!.on("data", (chunk: Buffer) => {
      stdoutBytes += chunk.length
      if (stdoutBytes > maxStdoutBytes) {
        finish(Effect.fail(new ToolHooks.HookError({ message: `its output exceeds ${maxStdoutBytes} bytes` })))
        return
      }
      stdout.push(chunk)
    })
    child.stderr!.on("data", (chunk: Buffer) => {
      if (stderrBytes < maxStderrBytes) stderr.push(chunk.subarray(0, maxStderrBytes - stderrBytes))
      stderrBytes += chunk.length
    })
    child.on("close", (code, signal) =>
      finish(
        Effect.succeed({
          code,
          signal,
          stdout: Buffer.concat(stdout).toString("utf8"),
          stderr: Buffer.concat(stderr).toString("utf8")
        })
      )
    )
    child.stdin!.on("error", () => {
      // a hook that does not read its input: its decision still counts
    })
    child.stdin!.end(input)
    return Effect.sync(() => {
      done = true
      killGroup(child)
    })
  })

const decodeBefore = Schema.decodeUnknownEither(Schema.parseJson(ToolHook.BeforeToolDecision))
const decodeAfter = Schema.decodeUnknownEither(Schema.parseJson(ToolHook.AfterToolDecision))

/** One bounded run: the time-out kills the process; a run past it fails. */
const bounded = (hook: Config.HookCommandConfig, input: string) =>
  runProcess(hook, input).pipe(
    Effect.timeoutFail({
      duration: `${hook.timeoutSec} seconds`,
      onTimeout: () => new ToolHooks.HookError({ message: `timed out after ${hook.timeoutSec}s` })
    })
  )

const reasonOf = (result: RunResult): string =>
  result.signal !== null ? `killed by signal ${result.signal}` : `exited with status ${result.code}`

const firstLine = (text: string): string => {
  const line = text.trim().split("\n")[0] ?? ""
  return line.length > 200 ? `${line.slice(0, 200)}…` : line
}

const matching = (hooks: ReadonlyArray<Config.HookCommandConfig>, name: string) =>
  hooks.flatMap((hook, index) =>
    hook.matcher === undefined || new RegExp(hook.matcher).test(name) ? [{ hook, index }] : []
  )

/** The command hooks of a config as a {@link ToolHooks.Service}; no hooks configured: none. */
export const fromConfig = (config: Config.HooksConfig | undefined, semaphore: Effect.Semaphore): ToolHooks.Service => {
  if (config === undefined || (config.beforeTool.length === 0 && config.afterTool.length === 0)) return ToolHooks.none
  const run = (hook: Config.HookCommandConfig, input: ToolHook.HookInput) =>
    semaphore.withPermits(1)(bounded(hook, JSON.stringify(input)))
  const before: ToolHooks.Service["before"] = (call) =>
    Effect.gen(function* () {
      const steps: Array<ToolHook.HookStep> = []
      let args = call.arguments
      let rewritten = false
      for (const { hook, index } of matching(config.beforeTool, call.name)) {
        const label = `before_tool[${index}]`
        const input: ToolHook.HookInput = {
          hook: "before_tool",
          callId: call.callId,
          tool: call.name,
          ...(call.server === undefined ? {} : { server: call.server }),
          caller: call.caller,
          ...(call.originCallId === undefined ? {} : { originCallId: call.originCallId }),
          arguments: args
        }
        const result = yield* run(hook, input).pipe(
          Effect.mapError((e) => new ToolHooks.HookError({ message: `${label}: ${e.message}` }))
        )
        if (result.code === 2) {
          const reason = result.stderr.trim() === "" ? `${label} denied the call` : result.stderr.trim()
          steps.push({ hook: label, decision: "deny", reason })
          return { decision: "deny" as const, reason, steps }
        }
        if (result.code !== 0)
          return yield* Effect.fail(new ToolHooks.HookError({ message: `${label}: ${reasonOf(result)}` }))
        if (result.stdout.trim() === "") {
          steps.push({ hook: label, decision: "allow" })
          continue
        }
        const decision = decodeBefore(result.stdout)
        if (Either.isLeft(decision)) {
          return yield* Effect.fail(
            new ToolHooks.HookError({
              message: `${label}: printed no valid decision: ${firstLine(String(decision.left.message))}`
            })
          )
        }
        const value = decision.right
        if (value.decision === "deny") {
          const reason = value.reason ?? `${label} denied the call`
          steps.push({ hook: label, decision: "deny", reason })
          return { decision: "deny" as const, reason, steps }
        }
        if (value.decision === "rewrite") {
          steps.push({ hook: label, decision: "rewrite", arguments: value.arguments })
          args = value.arguments
          rewritten = true
        } else {
          steps.push({ hook: label, decision: "allow" })
        }
      }
      return rewritten
        ? { decision: "rewrite" as const, arguments: args as Readonly<Record<string, unknown>>, steps }
        : { decision: "allow" as const, steps }
    })
  const after: ToolHooks.Service["after"] = (call, output) =>
    Effect.gen(function* () {
      const steps: Array<ToolHook.HookStep> = []
      let current = output
      // redactions alone stay a redaction (applied again to the whole result and to a window's text);
      // a replacement makes the chain's output the decision
      const redacted: Array<string> = []
      let replaced = false
      for (const { hook, index } of matching(config.afterTool, call.name)) {
        const label = `after_tool[${index}]`
        const input: ToolHook.HookInput = {
          hook: "after_tool",
          callId: call.callId,
          tool: call.name,
          ...(call.server === undefined ? {} : { server: call.server }),
          caller: call.caller,
          ...(call.originCallId === undefined ? {} : { originCallId: call.originCallId }),
          arguments: call.arguments,
          output: current
        }
        const result = yield* run(hook, input).pipe(
          Effect.mapError((e) => new ToolHooks.HookError({ message: `${label}: ${e.message}` }))
        )
        if (result.code !== 0)
          return yield* Effect.fail(new ToolHooks.HookError({ message: `${label}: ${reasonOf(result)}` }))
        if (result.stdout.trim() === "") {
          steps.push({ hook: label, decision: "pass" })
          continue
        }
        const decision = decodeAfter(result.stdout)
        if (Either.isLeft(decision)) {
          return yield* Effect.fail(
            new ToolHooks.HookError({
              message: `${label}: printed no valid decision: ${firstLine(String(decision.left.message))}`
            })
          )
        }
        const value = decision.right
        if (value.decision === "redact") {
          const applied = ToolHooks.redact(current.output, value.redact)
          steps.push({ hook: label, decision: "redact", redactions: applied.count })
          redacted.push(...value.redact)
          current = { output: applied.text, success: current.success }
        } else if (value.decision === "replace") {
          steps.push({ hook: label, decision: "replace" })
          current = { output: value.output, success: value.success ?? current.success }
          replaced = true
        } else {
          steps.push({ hook: label, decision: "pass" })
        }
      }
      if (replaced) return { decision: "replace" as const, output: current.output, success: current.success, steps }
      return redacted.length > 0
        ? { decision: "redact" as const, redact: redacted, steps }
        : { decision: "pass" as const, steps }
    })
  return {
    ...(config.beforeTool.length === 0 ? {} : { before }),
    ...(config.afterTool.length === 0 ? {} : { after })
  }
}

/** The hooks of loaded configs: one bound on the hook processes running at once, each config's hooks built once. */
export interface Service {
  /** The hooks of a loaded config (built once per config object); no config: none. */
  readonly forConfig: (config: Config.HooksConfig | undefined) => ToolHooks.Service
}

/** The CommandHooks tag. Layer: `layer`. */
export class CommandHooks extends Context.Tag("@mcp-resources/app-server/CommandHooks")<CommandHooks, Service>() {}

/** Builds the service: its semaphore bounds the hook processes of every config to {@link maxConcurrentRuns}. */
export const make: Effect.Effect<Service> = Effect.gen(function* () {
  const runs = yield* Effect.makeSemaphore(maxConcurrentRuns)
  const built = new WeakMap<Config.HooksConfig, ToolHooks.Service>()
  return CommandHooks.of({
    forConfig: (config) => {
      if (config === undefined) return ToolHooks.none
      const cached = built.get(config)
      if (cached !== undefined) return cached
      const service = fromConfig(config, runs)
      built.set(config, service)
      return service
    }
  })
})

/** The CommandHooks layer (the server builds it once: MainLayer.ts). */
export const layer: Layer.Layer<CommandHooks> = Layer.effect(CommandHooks, make)
