/**
 * How the client reaches an app-server: {@link stdio} spawns a command (the app-server bin, or anything
 * that speaks its protocol on standard input/output) and {@link webSocket} opens a `ws://` or `wss://`
 * URL with an optional bearer token. Both are scoped: closing the scope ends the child (standard input
 * ended, then SIGKILL after a grace) or closes the socket. Every wait is bounded.
 */
import { type ChildProcess, spawn } from "node:child_process"
import { Wire } from "@mcp-resources/protocol"
import { Deferred, Duration, Effect, Queue, type Scope } from "effect"
import { ClientError } from "./Errors.js"
import { socketTransport } from "./internal/socket.js"
import type { Incoming, ProcessExit, Transport } from "./internal/transport.js"

export type { Incoming, ProcessExit, Transport } from "./internal/transport.js"

/** The longest message accepted from the server by default (64 MiB; the server's own limit is on requests). */
export const defaultMaxMessageBytes = 64 * 1024 * 1024

/** Options of {@link stdio}. */
export interface StdioOptions {
  /** The program to start, e.g. `process.execPath` or `mcp-resources-app-server`. */
  readonly command: string
  readonly args?: ReadonlyArray<string>
  /** The child's environment (default: this process's). */
  readonly env?: Readonly<Record<string, string | undefined>>
  readonly cwd?: string
  /**
   * Where the child's standard error goes: this process's standard error (`"inherit"`, the default),
   * nowhere (`"ignore"`), or a function called with each chunk. The last lines are kept either way
   * and named when the child exits with requests unanswered.
   */
  readonly stderr?: "inherit" | "ignore" | ((text: string) => void)
  /** The longest message accepted from the child, in bytes (default {@link defaultMaxMessageBytes}). */
  readonly maxMessageBytes?: number
  /** How long closing waits for the child to exit after its standard input ended, before SIGKILL (default 10 s). */
  readonly closeTimeout?: Duration.DurationInput
  /**
   * Whether the messages sent in one event-loop turn go out with one write (the default), or each with
   * its own write as soon as it is sent.
   */
  readonly batchWrites?: boolean
  /**
   * Whether blank (empty or whitespace-only) output lines are delivered as messages too (default: they
   * are skipped). For tests that check every line the child writes.
   */
  readonly keepBlankLines?: boolean
}

/**
 * The transport of {@link stdio}: a {@link Transport} plus the raw wire, for tests and tools that must
 * send bytes that are not a well-formed message or drive the child directly.
 */
export interface StdioTransport extends Transport {
  /** The child process (to send it signals, pause its output, read its standard error as it comes). */
  readonly child: ChildProcess
  /**
   * Writes `data` to the child's standard input exactly as given (no newline added), after the messages
   * already sent; completes when the data is handed to the pipe, at once when the child is gone.
   */
  readonly writeRaw: (data: string | Uint8Array) => Effect.Effect<void>
  /** Ends the child's standard input (the app-server's graceful shutdown), after the messages already sent. */
  readonly endInput: Effect.Effect<void>
}

/** How much of the child's standard error is kept for error messages. */
const stderrTailChars = 1000

const lastLines = (text: string): string => {
  const lines = text.trimEnd().split("\n")
  return lines.slice(-3).join(" | ").slice(-500)
}

/**
 * Waits for `done`, at most `timeout`; true when it completed. Interruptible inside, so that the timeout
 * also holds in a finalizer (which runs uninterruptibly).
 */
const within = <A>(done: Deferred.Deferred<A>, timeout: Duration.DurationInput): Effect.Effect<boolean> =>
  Effect.interruptible(Deferred.await(done)).pipe(
    Effect.as(true),
    Effect.timeoutTo({ duration: timeout, onSuccess: (x) => x, onTimeout: () => false })
  )

/** Spawns `command` and speaks JSON-RPC on its standard input/output, one message per line. */
export const stdio = (options: StdioOptions): Effect.Effect<StdioTransport, ClientError, Scope.Scope> =>
  Effect.gen(function* () {
    const incoming = yield* Queue.unbounded<Incoming>()
    const exited = yield* Deferred.make<ProcessExit>()
    const maxBytes = options.maxMessageBytes ?? defaultMaxMessageBytes
    let stderrTail = ""
    let closed = false
    let child: ChildProcess | undefined
    const close = (reason: string) => {
      if (closed) return
      closed = true
      incoming.unsafeOffer({ _tag: "closed", reason })
    }
    const started = yield* Effect.acquireRelease(
      Effect.async<ChildProcess, ClientError>((resume) => {
        const spawned = spawn(options.command, [...(options.args ?? [])], {
          stdio: ["pipe", "pipe", "pipe"],
          env: (options.env ?? process.env) as NodeJS.ProcessEnv,
          ...(options.cwd === undefined ? {} : { cwd: options.cwd })
        })
        child = spawned
        spawned.once("spawn", () => resume(Effect.succeed(spawned)))
        spawned.once("error", (error) => {
          close(`process could not run: ${error.message}`)
          resume(
            Effect.fail(
              new ClientError({ reason: "transport", message: `cannot start ${options.command}: ${error.message}` })
            )
          )
        })
      }).pipe(
        Effect.timeoutFail({
          duration: Duration.seconds(30),
          onTimeout: () =>
            new ClientError({ reason: "transport", message: `${options.command} did not start within 30 s` })
        }),
        Effect.onError(() => Effect.sync(() => child?.kill("SIGKILL")))
      ),
      (proc) =>
        Effect.gen(function* () {
          if (proc.exitCode !== null || proc.signalCode !== null) return
          batcher.flush()
          proc.stdin?.end()
          if (yield* within(exited, options.closeTimeout ?? Duration.seconds(10))) return
          proc.kill("SIGKILL")
          yield* within(exited, Duration.seconds(5))
        })
    )
    const peer = `process ${started.pid}`
    const batcher = new Wire.WriteBatcher((text) => started.stdin?.write(text))
    const splitter = new Wire.LineSplitter(maxBytes)
    const stderr = options.stderr ?? "inherit"
    const keepBlank = options.keepBlankLines ?? false
    started.stdin?.on("error", () => {}) // a child that exited: its close is reported below
    started.stderr?.on("data", (chunk: Buffer) => {
      const text = chunk.toString("utf8")
      stderrTail = (stderrTail + text).slice(-stderrTailChars)
      if (stderr === "inherit") process.stderr.write(chunk)
      else if (typeof stderr === "function") stderr(text)
    })
    started.stdout?.on("data", (chunk: Buffer) => {
      if (closed) return
      for (const frame of splitter.push(chunk)) {
        if (frame._tag === "oversize") {
          close(`${peer} sent a message over ${maxBytes} bytes`)
          started.kill("SIGKILL")
          return
        }
        if (keepBlank || frame.text.trim() !== "") incoming.unsafeOffer({ _tag: "message", text: frame.text })
      }
    })
    started.once("exit", (code, signal) => Deferred.unsafeDone(exited, Effect.succeed({ code, signal })))
    // `close` comes after the last stdout data: every answer the child wrote is delivered first.
    started.once("close", (code, signal) => {
      batcher.clear()
      const how = signal !== null ? `was killed by ${signal}` : `exited with code ${code}`
      const tail = lastLines(stderrTail)
      close(`${peer} ${how}${tail === "" ? "" : ` (stderr: ${tail})`}`)
    })
    const batch = options.batchWrites ?? true
    const unsafeSend = (text: string): boolean => {
      if (closed || started.stdin === null || started.stdin.writableEnded) return false
      if (batch) batcher.push(text)
      else started.stdin.write(`${text}\n`)
      return true
    }
    const send = (text: string): Effect.Effect<void, ClientError> =>
      Effect.suspend(() =>
        unsafeSend(text)
          ? Effect.void
          : Effect.fail(new ClientError({ reason: "closed", message: `${peer} is no longer running` }))
      )
    const writeRaw = (data: string | Uint8Array): Effect.Effect<void> =>
      Effect.async<void>((resume) => {
        batcher.flush()
        const stdin = started.stdin
        if (stdin === null || stdin.writableEnded || stdin.destroyed || started.exitCode !== null) {
          return resume(Effect.void)
        }
        stdin.write(data, () => resume(Effect.void))
      })
    const endInput = Effect.sync(() => {
      batcher.flush()
      started.stdin?.end()
    })
    return {
      send,
      unsafeSend,
      incoming,
      peer,
      pid: started.pid,
      exit: Deferred.await(exited),
      child: started,
      writeRaw,
      endInput
    }
  })

/** Options of {@link webSocket}. */
export interface WebSocketOptions {
  /** `ws://HOST:PORT` or `wss://HOST:PORT`, as given to the server's `--listen`. */
  readonly url: string
  /** The token of a server started with `--token-env`; sent as `Authorization: Bearer <token>`. */
  readonly token?: string
  /** More headers of the upgrade request (an `Origin` the server allows, for example). */
  readonly headers?: Readonly<Record<string, string>>
  /** How long the connection may take to open (default 10 s). */
  readonly connectTimeout?: Duration.DurationInput
  /** How long closing waits for the server's close frame before dropping the socket (default 5 s). */
  readonly closeTimeout?: Duration.DurationInput
  /** The longest message accepted from the server, in bytes (default {@link defaultMaxMessageBytes}). */
  readonly maxMessageBytes?: number
}

/** Opens a WebSocket to the app-server: one JSON-RPC message per text frame. */
export const webSocket = (options: WebSocketOptions): Effect.Effect<Transport, ClientError, Scope.Scope> =>
  Effect.gen(function* () {
    // `ws` is loaded only by clients that use WebSocket.
    const { WebSocket } = yield* Effect.tryPromise({
      try: () => import("ws"),
      catch: (e) => new ClientError({ reason: "transport", message: `cannot load the ws package: ${String(e)}` })
    })
    const peer = options.url
    const headers: Record<string, string> = { ...options.headers }
    if (options.token !== undefined) headers.authorization = `Bearer ${options.token}`
    return yield* socketTransport({
      peer,
      connectTimeout: options.connectTimeout,
      closeTimeout: options.closeTimeout,
      open: (events) => {
        const ws = new WebSocket(options.url, {
          headers,
          maxPayload: options.maxMessageBytes ?? defaultMaxMessageBytes
        })
        const failed = (error: Error) => events.failed(error.message)
        ws.once("error", failed)
        ws.once("open", () => {
          ws.off("error", failed)
          ws.on("error", (error) => events.closed(`the WebSocket to ${peer} failed: ${error.message}`))
          ws.on("message", (data, isBinary) => {
            if (isBinary) return
            events.message(
              Buffer.isBuffer(data)
                ? data.toString("utf8")
                : Array.isArray(data)
                  ? Buffer.concat(data).toString("utf8")
                  : Buffer.from(data).toString("utf8")
            )
          })
          events.opened({
            isOpen: () => ws.readyState === WebSocket.OPEN,
            send: (text) => ws.send(text),
            close: () => ws.close(1000),
            terminate: () => ws.terminate()
          })
        })
        ws.on("close", (code, reason) =>
          events.closed(
            `the WebSocket to ${peer} closed (${code}${reason.length > 0 ? ` ${reason.toString("utf8")}` : ""})`
          )
        )
        return () => ws.terminate()
      }
    })
  })
