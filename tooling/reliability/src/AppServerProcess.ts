/**
 * Drives `apps/app-server/dist/main.js` as a child process over stdio: JSON-RPC one object per line,
 * every wait bounded, the child always ended by `close()` (SIGTERM, then SIGKILL after a grace).
 * Plain async Node: this is test tooling that drives processes, not library code.
 */
import { type ChildProcess, spawn } from "node:child_process"
import { readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { LineSplitter } from "@mcp-resources/app-server-client/LineFramer"

/** The compiled app-server entry point. */
export const mainJs: string = fileURLToPath(new URL("../../../apps/app-server/dist/main.js", import.meta.url))

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
 * A chunk handler that calls `onLine` with each complete line (without its newline), in order: the
 * repository's one line framer (`@mcp-resources/app-server-client`), with no length cap worth the name
 * (the cases measure the server, not the harness).
 */
const splitLines = (onLine: (line: string) => void) => {
  const splitter = new LineSplitter(Number.MAX_SAFE_INTEGER)
  return (chunk: Buffer): void => {
    for (const frame of splitter.push(chunk)) if (frame._tag === "line") onLine(frame.text)
  }
}

/** Starts the app-server; `initialize` is not sent (see {@link startInitialized}). */
export const start = (options: StartOptions = {}): AppServer => {
  const args = [mainJs]
  if (options.config !== undefined) args.push("--config", options.config)
  if (options.dataDir !== undefined) args.push("--data-dir", options.dataDir)
  args.push(...(options.args ?? []))
  const child = spawn(process.execPath, args, {
    stdio: ["pipe", "pipe", "pipe"],
    env: { ...process.env, MCP_RESOURCES_LOG: "warn", ...options.env }
  })
  const messages: Array<Message> = []
  const strayLines: Array<string> = []
  const waiters = new Set<{ predicate: (m: Message) => boolean; resolve: (m: Message) => void }>()
  let stderr = ""
  let stderrBytes = 0
  const stderrWaiters = new Set<{ readonly pattern: RegExp; seen: number; readonly check: () => void }>()
  const stderrLines: Array<string> = []
  const stderrChunk = splitLines((line) => {
    // Lines are kept (bounded) so that a waiter registered later still counts the earlier ones.
    if (stderrLines.length < 10_000) stderrLines.push(line.slice(0, 500))
    for (const waiter of [...stderrWaiters]) {
      if (waiter.pattern.test(line)) {
        waiter.seen++
        waiter.check()
      }
    }
  })
  child.stderr!.on("data", (chunk: Buffer) => {
    // Keep the head and a bounded tail: enough to explain a failure, never unbounded.
    stderrBytes += chunk.length
    stderr = (stderr + chunk.toString("utf8")).slice(-64 * 1024)
    stderrChunk(chunk)
  })
  child.stdout!.on(
    "data",
    splitLines((line) => {
      if (line.trim() === "") return
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
    })
  )
  // Writes after the child died must not crash the test process.
  child.stdin!.on("error", () => {})
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once("exit", (code, signal) => resolve({ code, signal }))
  )
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
  const write = (data: string | Buffer): Promise<void> =>
    new Promise((resolve) => {
      if (child.stdin!.destroyed || child.exitCode !== null) return resolve()
      child.stdin!.write(data, () => resolve())
    })
  // String ids with a prefix, so that they never meet the ids of fuzzed lines.
  const send = (method: string, params?: unknown): string => {
    const id = `rq-${nextId++}`
    void write(`${JSON.stringify(params === undefined ? { id, method } : { id, method, params })}\n`)
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
      const result = await exited
      clearTimeout(timer)
      return result
    }
    return exited
  }
  void stderrBytes
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
  const server = start(options)
  try {
    const init = await server.request("initialize", { clientInfo: { name: "reliability" } }, 20_000)
    if (init.error !== undefined) throw new Error(`initialize failed: ${init.error.message}`)
    return server
  } catch (error) {
    await server.close("SIGKILL")
    throw error
  }
}
