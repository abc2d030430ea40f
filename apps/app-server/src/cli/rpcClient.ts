/**
 * A small JSON-RPC client for the app-server over a child process's stdio, used by the demo. Every
 * wait is bounded; the child is ended when the client closes.
 */
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process"
import * as NodeFs from "node:fs"
import { createInterface } from "node:readline"

/** A JSON-RPC error answer. */
export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string
  ) {
    super(message)
  }
}

/** A notification the server sent. */
export interface Notification {
  readonly method: string
  readonly params: Record<string, unknown>
}

/** A running app-server child and a way to talk to it. */
export interface RpcClient {
  readonly request: (method: string, params?: unknown, timeoutMs?: number) => Promise<Record<string, unknown>>
  /** Notifications received since the last call (and clears them). */
  readonly takeNotifications: () => Array<Notification>
  /** Ends standard input and waits for the process to exit (killing it after `timeoutMs`). */
  readonly close: (timeoutMs?: number) => Promise<number | null>
}

/** Starts `node main.js ...args`, stderr appended to `logFile`. */
export const startServer = (mainJs: string, args: ReadonlyArray<string>, logFile: string): RpcClient => {
  const log = NodeFs.openSync(logFile, "a")
  const child: ChildProcessWithoutNullStreams = spawn(process.execPath, [mainJs, ...args], {
    stdio: ["pipe", "pipe", "pipe"]
  })
  child.stderr.on("data", (chunk: Buffer) => NodeFs.writeSync(log, chunk))
  const pending = new Map<number, { resolve: (v: Record<string, unknown>) => void; reject: (e: Error) => void }>()
  let notifications: Array<Notification> = []
  let nextId = 1
  let exited = false
  const exit = new Promise<number | null>((resolve) =>
    child.on("exit", (code) => {
      exited = true
      for (const p of pending.values()) p.reject(new Error("the app-server exited"))
      pending.clear()
      NodeFs.closeSync(log)
      resolve(code)
    })
  )
  createInterface({ input: child.stdout }).on("line", (line) => {
    const message = JSON.parse(line) as Record<string, unknown>
    if (typeof message.id === "number" && pending.has(message.id)) {
      const p = pending.get(message.id)!
      pending.delete(message.id)
      const error = message.error as { code: number; message: string } | undefined
      if (error) p.reject(new RpcError(error.code, error.message))
      else p.resolve(message.result as Record<string, unknown>)
    } else if (typeof message.method === "string") {
      notifications.push({ method: message.method, params: (message.params ?? {}) as Record<string, unknown> })
    }
  })
  return {
    request: (method, params = {}, timeoutMs = 30_000) =>
      new Promise((resolve, reject) => {
        if (exited) return reject(new Error("the app-server is not running"))
        const id = nextId++
        const timer = setTimeout(() => {
          pending.delete(id)
          reject(new Error(`no answer to ${method} within ${timeoutMs} ms`))
        }, timeoutMs)
        pending.set(id, {
          resolve: (v) => {
            clearTimeout(timer)
            resolve(v)
          },
          reject: (e) => {
            clearTimeout(timer)
            reject(e)
          }
        })
        child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id, method, params })}\n`)
      }),
    takeNotifications: () => {
      const taken = notifications
      notifications = []
      return taken
    },
    close: async (timeoutMs = 10_000) => {
      if (!exited) child.stdin.end()
      const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs)
      const code = await exit
      clearTimeout(timer)
      return code
    }
  }
}
