/**
 * Drives the app-server's shipped bin (`apps/app-server/dist/bundle/main.js`) as a child process over stdio, on the typed client's stdio
 * transport (`@mcp-resources/app-server-client`: one spawn, one line framer, one write batcher in the
 * repository). Unlike the client it keeps every message as received and sends raw bytes, since the
 * cases send what no client would. Every wait is bounded; the child is always ended by `close()`
 * (SIGTERM, then SIGKILL after a grace). Plain async Node: this is test tooling that drives
 * processes, not library code.
 */
import type { ChildProcess } from "node:child_process"
import { readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { LineSplitter } from "@mcp-resources/app-server-client/LineFramer"
import * as Transport from "@mcp-resources/app-server-client/Transport"
import { Effect, Exit, Queue, Scope } from "effect"

/**
 * The app-server entry point users run: the bundled bin of the package (`mcp-resources-app-server`).
 * Its heap after start is about half that of the unbundled `dist/main.js` (15 against 31 MiB here),
 * which loads every module file of the workspace separately.
 */
export const mainJs: string = fileURLToPath(new URL("../../../apps/app-server/dist/bundle/main.js", import.meta.url))

/** A JSON-RPC message as received. */
export interface Message {
  readonly jsonrpc?: string
  readonly id?: string | number | null
  readonly method?: string
  readonly params?: Record<string, unknown> & { item?: Record<string, unknown> }
  readonly result?: Record<string, unknown>
  readonly error?: { readonly code: number; readonly message: string }
}

/** Options of {@link start}. */
export interface StartOptions {
  readonly config?: string
  readonly dataDir?: string
  readonly args?: ReadonlyArray<string>
  readonly env?: Readonly<Record<string, string>>
}

/** A running app-server. */
export interface AppServer {
  readonly child: ChildProcess
  readonly pid: number
  /** Every message received, in order. */
  readonly messages: Array<Message>
  /** Non-JSON stdout lines (the spec allows none). */
  readonly strayLines: Array<string>
  /** Standard error so far. */
  readonly stderr: () => string
  /** Sends one request and waits for its response (rejects after `timeoutMs`). */
  readonly request: (method: string, params?: unknown, timeoutMs?: number) => Promise<Message>
  /** Sends a request without waiting; returns its id. */
  readonly send: (method: string, params?: unknown) => string
  /** Waits for the response to an id sent with `send`. */
  readonly response: (id: string | number, timeoutMs?: number) => Promise<Message>
  /** Writes raw bytes to standard input. */
  readonly write: (data: string | Buffer) => Promise<void>
  /** Waits until a message matching `predicate` has arrived (already or later). */
  readonly waitFor: (predicate: (m: Message) => boolean, timeoutMs?: number) => Promise<Message>
  /** Waits until `count` lines of standard error (from the start) matched `pattern`. */
  readonly waitForStderr: (pattern: RegExp, count?: number, timeoutMs?: number) => Promise<void>
  /** Resident set size of the child in KiB (`/proc/PID/status` VmRSS), undefined when gone. */
  readonly rssKiB: () => number | undefined
  /** Resolves with the exit code/signal. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>
  /** Ends the child: SIGTERM (or `signal`), SIGKILL after `graceMs`; always resolves. */
  readonly close: (
    signal?: NodeJS.Signals,
    graceMs?: number
  ) => Promise<{ code: number | null; signal: NodeJS.Signals | null }>
}

/**
 * Starts the app-server (resolves once the process runs); `initialize` is not sent (see
 * {@link startInitialized}).
 */
export const start = async (options: StartOptions = {}): Promise<AppServer> => {
  const args = [mainJs]
  if (options.config !== undefined) args.push("--config", options.config)
  if (options.dataDir !== undefined) args.push("--data-dir", options.dataDir)
  args.push(...(options.args ?? []))
  const messages: Array<Message> = []
  const strayLines: Array<string> = []
  const waiters = new Set<{ predicate: (m: Message) => boolean; resolve: (m: Message) => void }>()
  let stderr = ""
  const stderrWaiters = new Set<{ readonly pattern: RegExp; seen: number; readonly check: () => void }>()
  const stderrLines: Array<string> = []
  const stderrSplitter = new LineSplitter(Number.MAX_SAFE_INTEGER)
  const onStderr = (text: string): void => {
    // Keep a bounded tail: enough to explain a failure, never unbounded.
    stderr = (stderr + text).slice(-64 * 1024)
    for (const frame of stderrSplitter.push(Buffer.from(text, "utf8"))) {
      if (frame._tag !== "line") continue
      // Lines are kept (bounded) so that a waiter registered later still counts the earlier ones.
      if (stderrLines.length < 10_000) stderrLines.push(frame.text.slice(0, 500))
      for (const waiter of [...stderrWaiters]) {
        if (waiter.pattern.test(frame.text)) {
          waiter.seen++
          waiter.check()
        }
      }
    }
  }
  const onLine = (line: string): void => {
    let message: Message
    try {
      message = JSON.parse(line) as Message
    } catch {
      strayLines.push(line.slice(0, 200))
      return
    }
    messages.push(message)
    for (const waiter of [...waiters]) {
      if (waiter.predicate(message)) {
        waiters.delete(waiter)
        waiter.resolve(message)
      }
    }
  }
  const scope = Effect.runSync(Scope.make())
  const transportExit = await Effect.runPromiseExit(
    Scope.extend(
      Transport.stdio({
        command: process.execPath,
        args,
        env: { ...process.env, MCP_RESOURCES_LOG: "warn", ...options.env },
        stderr: onStderr,
        // No length cap worth the name: the cases measure the server, not the harness.
        maxMessageBytes: Number.MAX_SAFE_INTEGER,
        // Each message goes out with its own write, as a client that sends one request at a time would.
        batchWrites: false
      }),
      scope
    )
  )
  if (Exit.isFailure(transportExit)) {
    await Effect.runPromise(Scope.close(scope, Exit.void))
    throw new Error(`cannot start the app-server: ${String(transportExit.cause)}`)
  }
  const transport = transportExit.value
  const child = transport.child
  // Every line the child writes, in order, until the transport reports the end.
  void Effect.runPromise(
    Effect.iterate(true, {
      while: (open) => open,
      body: () =>
        Effect.map(Queue.take(transport.incoming), (incoming) => {
          if (incoming._tag === "closed") return false
          onLine(incoming.text)
          return true
        })
    })
  )
  const exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }> = Effect.runPromise(transport.exit!)
  let nextId = 1

  const waitFor = (predicate: (m: Message) => boolean, timeoutMs = 10_000): Promise<Message> => {
    const found = messages.find(predicate)
    if (found !== undefined) return Promise.resolve(found)
    return new Promise((resolve, reject) => {
      const waiter = {
        predicate,
        resolve: (m: Message) => {
          clearTimeout(timer)
          resolve(m)
        }
      }
      const timer = setTimeout(() => {
        waiters.delete(waiter)
        reject(new Error(`timed out after ${timeoutMs} ms waiting for a message; stderr: ${stderr.slice(-2000)}`))
      }, timeoutMs)
      waiters.add(waiter)
      void exited.then(() =>
        setTimeout(() => {
          if (waiters.delete(waiter)) {
            clearTimeout(timer)
            reject(new Error(`app-server exited while waiting; stderr: ${stderr.slice(-2000)}`))
          }
        }, 50)
      )
    })
  }
  const write = (data: string | Buffer): Promise<void> => Effect.runPromise(transport.writeRaw(data))
  // String ids with a prefix, so that they never meet the ids of fuzzed lines.
  const send = (method: string, params?: unknown): string => {
    const id = `rq-${nextId++}`
    transport.unsafeSend(JSON.stringify(params === undefined ? { id, method } : { id, method, params }))
    return id
  }
  const response = (id: string | number, timeoutMs = 10_000) =>
    waitFor((m) => m.id === id && m.method === undefined, timeoutMs)
  const request = (method: string, params?: unknown, timeoutMs = 10_000) => response(send(method, params), timeoutMs)
  const waitForStderr = (pattern: RegExp, count = 1, timeoutMs = 10_000): Promise<void> =>
    new Promise((resolve, reject) => {
      const waiter = {
        pattern,
        seen: stderrLines.filter((line) => pattern.test(line)).length,
        check: () => {
          if (waiter.seen < count) return
          stderrWaiters.delete(waiter)
          clearTimeout(timer)
          resolve()
        }
      }
      const timer = setTimeout(() => {
        stderrWaiters.delete(waiter)
        reject(
          new Error(
            `timed out after ${timeoutMs} ms waiting for ${count} stderr lines matching ${pattern} (saw ${waiter.seen}); stderr: ${stderr.slice(-2000)}`
          )
        )
      }, timeoutMs)
      stderrWaiters.add(waiter)
      waiter.check()
    })
  const rssKiB = (): number | undefined => {
    try {
      const status = readFileSync(`/proc/${child.pid}/status`, "utf8")
      const match = /VmRSS:\s+(\d+) kB/.exec(status)
      return match === null ? undefined : Number(match[1])
    } catch {
      return undefined
    }
  }
  const close = async (signal: NodeJS.Signals = "SIGTERM", graceMs = 5_000) => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill(signal)
      const timer = setTimeout(() => child.kill("SIGKILL"), graceMs)
      await exited
      clearTimeout(timer)
    }
    // The child is gone: the transport's own close has nothing left to wait for.
    await Effect.runPromise(Scope.close(scope, Exit.void))
    return exited
  }
  return {
    child,
    pid: child.pid ?? -1,
    messages,
    strayLines,
    stderr: () => stderr,
    request,
    send,
    response,
    write,
    waitFor,
    waitForStderr,
    rssKiB,
    exited,
    close
  }
}

/** Starts the app-server and sends `initialize`. */
export const startInitialized = async (options: StartOptions = {}): Promise<AppServer> => {
  const server = await start(options)
  try {
    const init = await server.request("initialize", { clientInfo: { name: "reliability" } }, 20_000)
    if (init.error !== undefined) throw new Error(`initialize failed: ${init.error.message}`)
    return server
  } catch (error) {
    await server.close("SIGKILL")
    throw error
  }
}
