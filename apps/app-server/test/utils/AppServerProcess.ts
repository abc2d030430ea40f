/**
 * A test client for the app-server as a real child process (`node dist/main.js`) over stdio, a thin
 * adapter over the typed client's transport and request table: sends requests and raw lines, collects
 * every stdout message in order, and waits with bounded timeouts. The child is killed in the scope's
 * finalizer.
 */
import type { ChildProcess } from "node:child_process"
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs"
import { createServer } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { AppServerClient, Transport } from "@mcp-resources/app-server-client"
import { inject } from "vitest"
import { Data, Duration, Effect, type Scope } from "effect"
import * as ServerStatus from "./serverStatus.js"

/** The built server entry point. */
export const mainJs = fileURLToPath(new URL("../../dist/main.js", import.meta.url))

/** A message the server wrote (every stdout line, parsed). */
export type Message = Record<string, unknown> & {
  readonly jsonrpc?: unknown
  readonly id?: unknown
  readonly method?: unknown
}

/** A wait that did not complete in time. */
export class WaitTimeout extends Data.TaggedError("WaitTimeout")<{ readonly message: string }> {}

/** A fresh temporary directory. */
/** A TCP port nothing listens on at the moment, on `host` (a loopback address unless told). */
export const freePort = (host = "127.0.0.1"): Effect.Effect<number> =>
  Effect.async<number>((resume) => {
    const listener = createServer()
    listener.on("error", (error) => resume(Effect.die(error)))
    listener.listen(0, host, () => {
      const address = listener.address()
      const port = typeof address === "object" && address !== null ? address.port : 0
      listener.close(() => resume(Effect.succeed(port)))
    })
  })

export const tempDir = (prefix = "app-server-test-"): string => mkdtempSync(join(tempRoot(), prefix))

/** The run's temporary directory (test/utils/tempRoot.ts, removed after the run), else the system's. */
const tempRoot = (): string => {
  try {
    return inject("tempRoot") ?? tmpdir()
  } catch {
    // outside a vitest run (a script reusing these helpers)
    return tmpdir()
  }
}

/** Writes a config file (JSON, `mcp_servers` form, or raw TOML text) and returns its path. */
export const writeConfig = (dir: string, config: Record<string, unknown> | string, name?: string): string => {
  mkdirSync(dir, { recursive: true })
  const file = join(dir, name ?? (typeof config === "string" ? "config.toml" : "config.json"))
  writeFileSync(file, typeof config === "string" ? config : JSON.stringify(config))
  return file
}

/** A running server and its stdout/stderr. */
export interface AppServer {
  readonly child: ChildProcess
  /** Every stdout line, raw. */
  readonly lines: Array<string>
  /** Every stdout line, parsed (lines that are not JSON are kept as `{__raw: line}`). */
  readonly messages: Array<Message>
  readonly stderr: () => string
  /** Writes one raw line (a newline is appended). */
  readonly sendLine: (line: string) => Effect.Effect<void>
  /** Writes raw bytes. */
  readonly sendRaw: (data: string | Buffer) => Effect.Effect<void>
  /** Sends a request and waits for its response. */
  readonly request: (
    method: string,
    params?: unknown,
    timeout?: Duration.DurationInput
  ) => Effect.Effect<Message, WaitTimeout>
  /** Sends a request without waiting; returns its id. */
  readonly send: (method: string, params?: unknown) => Effect.Effect<number>
  /** Sends a notification. */
  readonly notify: (method: string, params?: unknown) => Effect.Effect<void>
  /** Waits for the response with that id. */
  readonly response: (id: unknown, timeout?: Duration.DurationInput) => Effect.Effect<Message, WaitTimeout>
  /** Waits until a message matches. */
  readonly waitFor: (
    predicate: (message: Message) => boolean,
    timeout?: Duration.DurationInput,
    what?: string
  ) => Effect.Effect<Message, WaitTimeout>
  /** Waits until the server's stderr matches `pattern` (a log line it writes). */
  readonly waitForStderr: (pattern: RegExp, timeout?: Duration.DurationInput) => Effect.Effect<void, WaitTimeout>
  /** Sends `initialize` and checks it succeeded. */
  readonly initialize: Effect.Effect<void, WaitTimeout>
  /** Notifications with that method, in order. */
  readonly notifications: (method?: string) => Array<Message>
  /** Closes the server's standard input. */
  readonly endInput: Effect.Effect<void>
  /** Waits for the process to exit; returns its exit code. */
  readonly exited: (timeout?: Duration.DurationInput) => Effect.Effect<number | null, WaitTimeout>
}

/** Options of {@link start}. */
export interface StartOptions {
  readonly args: ReadonlyArray<string>
  /** The script to run instead of {@link mainJs} (e.g. the CLI, `dist/Cli.js`). */
  readonly script?: string
  readonly env?: Record<string, string>
  /** The child's working directory (default: this process's). */
  readonly cwd?: string
}

/**
 * Starts `node dist/main.js ARGS` (or `node SCRIPT ARGS`) over the typed client's stdio transport
 * (`@mcp-resources/app-server-client`): its spawn, line framing, standard error and exit detection, its
 * request table for `request`/`send`, and its raw wire (`onMessage`, `writeRaw`) for the lines tests
 * forge. The child is killed (SIGKILL) when the scope closes if still running.
 */
export const start = (options: StartOptions): Effect.Effect<AppServer, never, Scope.Scope> =>
  Effect.gen(function* () {
    const lines: Array<string> = []
    const messages: Array<Message> = []
    const listeners = new Set<() => void>()
    const notify = () => {
      for (const listener of [...listeners]) listener()
    }
    let stderr = ""
    // Set once the client has read the child's last output line (after its stdout closed).
    let outputDone = false
    const transport = yield* Transport.stdio({
      command: process.execPath,
      args: [options.script ?? mainJs, ...options.args],
      env: { ...process.env, MCP_RESOURCES_LOG: "debug", ...options.env },
      ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
      stderr: (text) => {
        stderr += text
        notify()
      },
      // Every line as written, however long or blank: the tests judge the server's output.
      maxMessageBytes: Number.MAX_SAFE_INTEGER,
      keepBlankLines: true
    }).pipe(Effect.orDie)
    const child = transport.child
    // Added after the transport's own finalizer, so it runs first: a kill, not a graceful close.
    // The wait is bounded (interruptible inside, so that the timeout holds in a finalizer).
    yield* Effect.addFinalizer(() =>
      Effect.async<void>((resume) => {
        if (child.exitCode !== null || child.signalCode !== null) return resume(Effect.void)
        child.once("exit", () => resume(Effect.void))
        child.kill("SIGKILL")
      }).pipe(Effect.interruptible, Effect.timeout("10 seconds"), Effect.ignore)
    )
    const client = yield* AppServerClient.make(transport, {
      // The harness's waits bound every request; the client's own timeout only as a last resort.
      requestTimeout: "1 hour",
      onMessage: (message, text) => {
        lines.push(text)
        messages.push(message === undefined ? { __raw: text } : (message as Message))
        notify()
      }
    })
    child.on("exit", notify)
    yield* Effect.forkScoped(
      Effect.flatMap(client.closed, () =>
        Effect.sync(() => {
          outputDone = true
          notify()
        })
      )
    )

    const waitUntil = <A>(check: () => A | undefined, timeout: Duration.DurationInput, what: string) =>
      Effect.async<A, WaitTimeout>((resume) => {
        const now = check()
        if (now !== undefined) return resume(Effect.succeed(now))
        const listener = () => {
          const value = check()
          if (value !== undefined) {
            listeners.delete(listener)
            clearTimeout(timer)
            resume(Effect.succeed(value))
          }
        }
        const timer = setTimeout(() => {
          listeners.delete(listener)
          resume(
            Effect.fail(
              new WaitTimeout({
                message: `timed out waiting for ${what}; stdout: ${lines.slice(-5).join("\n")}; stderr tail: ${stderr.slice(-1500)}`
              })
            )
          )
        }, Duration.toMillis(timeout))
        listeners.add(listener)
        return Effect.sync(() => {
          listeners.delete(listener)
          clearTimeout(timer)
        })
      })

    const sendRaw = (data: string | Buffer) => transport.writeRaw(data)
    const sendLine = (line: string) => sendRaw(`${line}\n`)
    const closedFailure = (error: { readonly message: string }) =>
      new WaitTimeout({ message: `${error.message}; stderr tail: ${stderr.slice(-1500)}` })
    // Well-formed requests go through the client's request table (its ids, from 1).
    const send = (method: string, params?: unknown) =>
      client.startRequest(method, params).pipe(
        Effect.map((started) => started.id),
        Effect.orDie
      )
    const waitFor = (
      predicate: (message: Message) => boolean,
      timeout: Duration.DurationInput = "20 seconds",
      what = "a message"
    ) => waitUntil(() => messages.find(predicate), timeout, what)
    const response = (id: unknown, timeout: Duration.DurationInput = "20 seconds") =>
      waitFor(
        (m) => m.id === id && (m.result !== undefined || m.error !== undefined),
        timeout,
        `the response to ${String(id)}`
      )
    const request = (method: string, params?: unknown, timeout: Duration.DurationInput = "20 seconds") =>
      client.startRequest(method, params, { timeout }).pipe(
        Effect.flatMap((started) => started.response),
        Effect.map((answer) => answer as Message),
        Effect.mapError((error) =>
          error.reason === "timeout"
            ? new WaitTimeout({
                message: `timed out waiting for the response to ${method}; stdout: ${lines.slice(-5).join("\n")}; stderr tail: ${stderr.slice(-1500)}`
              })
            : closedFailure(error)
        )
      )
    const server: AppServer = {
      child,
      lines,
      messages,
      stderr: () => stderr,
      sendLine,
      sendRaw,
      send,
      request,
      notify: (method, params) => Effect.orDie(client.notify(method, params)),
      response,
      waitFor,
      waitForStderr: (pattern, timeout = "20 seconds") =>
        waitUntil(() => (pattern.test(stderr) ? true : undefined), timeout, `stderr to match ${pattern}`).pipe(
          Effect.asVoid
        ),
      initialize: Effect.flatMap(request("initialize", { clientInfo: { name: "test" } }), (m) =>
        m.result !== undefined
          ? Effect.void
          : Effect.fail(new WaitTimeout({ message: `initialize failed: ${JSON.stringify(m)}` }))
      ),
      notifications: (method) =>
        messages.filter((m) => m.id === undefined && (method === undefined || m.method === method)),
      endInput: transport.endInput,
      exited: (timeout = "20 seconds") =>
        // Exited and every line it wrote read, so that `lines` and `messages` are complete.
        waitUntil(
          () =>
            (child.exitCode !== null || child.signalCode !== null) && outputDone ? { code: child.exitCode } : undefined,
          timeout,
          "the process to exit"
        ).pipe(Effect.map((e) => e.code))
    }
    return server
  })

/** The result of a response, or a failure naming the error it carried. */
export const resultOf = (message: Message): Record<string, unknown> => {
  if (message.result === undefined) throw new Error(`expected a result, got ${JSON.stringify(message)}`)
  return message.result as Record<string, unknown>
}

/** The error of a response. */
export const errorOf = (message: Message): { code: number; message: string } => {
  if (message.error === undefined) throw new Error(`expected an error, got ${JSON.stringify(message)}`)
  return message.error as { code: number; message: string }
}

/** Starts a server on `dataDir` (a fresh one by default) with an optional config, and initializes it. */
export const startInitialized = (options: {
  readonly config?: string
  readonly dataDir?: string
  readonly args?: ReadonlyArray<string>
  readonly env?: Record<string, string>
}): Effect.Effect<AppServer, WaitTimeout, Scope.Scope> =>
  Effect.gen(function* () {
    const args = [
      ...(options.config !== undefined ? ["--config", options.config] : []),
      "--data-dir",
      options.dataDir ?? tempDir(),
      ...(options.args ?? [])
    ]
    const server = yield* start({ args, ...(options.env !== undefined ? { env: options.env } : {}) })
    yield* server.initialize
    return server
  })

/** `thread/start` then `turn/start`; returns the ids. */
export const threadWithTurn = (
  server: AppServer,
  params: Record<string, unknown> = {},
  turnId = "t1"
): Effect.Effect<{ threadId: string; turnId: string }, WaitTimeout> =>
  Effect.gen(function* () {
    const started = resultOf(yield* server.request("thread/start", params))
    const threadId = (started.thread as { id: string }).id
    resultOf(yield* server.request("turn/start", { threadId, turnId }))
    return { threadId, turnId }
  })

/** The server's `mcpServer/list` entries once `done` holds for them, awaited through `mcpServer/statusChanged` (`serverStatus.ts`). */
export const waitServers = (
  server: AppServer,
  done: (servers: Array<Record<string, unknown>>) => boolean,
  what: string,
  timeout: Duration.DurationInput = "10 seconds"
): Effect.Effect<Array<Record<string, unknown>>, WaitTimeout> =>
  ServerStatus.waitServers(
    {
      messages: server.messages,
      list: Effect.map(
        server.request("mcpServer/list", {}),
        (m) => resultOf(m).servers as Array<Record<string, unknown>>
      ),
      awaitMessage: (predicate, description) => server.waitFor(predicate, timeout, description)
    },
    done,
    what
  )

/** Waits until no server is `starting` (aggregate lists never wait for startup); no polling. */
export const waitSettled = (
  server: AppServer,
  timeout: Duration.DurationInput = "10 seconds"
): Effect.Effect<Array<Record<string, unknown>>, WaitTimeout> =>
  waitServers(server, ServerStatus.noneStarting, "no server starting", timeout)
