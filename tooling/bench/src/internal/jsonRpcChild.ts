/** A JSON-RPC client over a child process's stdio (one JSON object per line), as an app-server client. */
import { type ChildProcess, spawn } from "node:child_process"
import * as Readline from "node:readline"

interface Pending {
  readonly resolve: (value: unknown) => void
  readonly reject: (error: Error) => void
}

/** A spawned JSON-RPC server and its pending requests. */
export class JsonRpcChild {
  readonly child: ChildProcess
  private nextId = 1
  private readonly pending = new Map<number, Pending>()
  private readonly exited: Promise<number | null>
  stderr = ""

  constructor(command: string, args: ReadonlyArray<string>, env?: NodeJS.ProcessEnv) {
    this.child = spawn(command, [...args], { stdio: ["pipe", "pipe", "pipe"], env: env ?? process.env })
    this.exited = new Promise((resolve) => this.child.once("exit", (code) => resolve(code)))
    this.child.stderr!.on("data", (chunk: Buffer) => {
      if (this.stderr.length < 20000) this.stderr += chunk.toString("utf8")
    })
    Readline.createInterface({ input: this.child.stdout! }).on("line", (line) => this.onLine(line))
    this.child.once("exit", (code) => {
      for (const p of this.pending.values()) p.reject(new Error(`server exited (${code}): ${this.stderr.slice(-500)}`))
      this.pending.clear()
    })
  }

  private onLine(line: string): void {
    let message: { id?: unknown; result?: unknown; error?: { code: number; message: string } }
    try {
      message = JSON.parse(line)
    } catch {
      return
    }
    if (typeof message.id !== "number") return
    const p = this.pending.get(message.id)
    if (p === undefined) return
    this.pending.delete(message.id)
    if (message.error !== undefined) p.reject(new Error(`${message.error.code} ${message.error.message}`))
    else p.resolve(message.result)
  }

  /** Sends a request and resolves with its result (rejects with `code message` on an error response). */
  request<A = unknown>(method: string, params?: unknown): Promise<A> {
    const id = this.nextId++
    return new Promise<A>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (value: unknown) => void, reject })
      this.child.stdin!.write(
        `${JSON.stringify({ jsonrpc: "2.0", id, method, ...(params === undefined ? {} : { params }) })}\n`
      )
    })
  }

  /** Ends standard input (the server's graceful shutdown) and waits for the exit, killing it after `graceMs`. */
  async close(graceMs = 8000): Promise<number | null> {
    this.child.stdin!.end()
    const timer = setTimeout(() => this.child.kill("SIGKILL"), graceMs)
    const code = await this.exited
    clearTimeout(timer)
    return code
  }
}

/**
 * Spawns a process and resolves with the milliseconds until its first stdout line (which must pass
 * `expect`), then waits for its exit.
 */
export const timeToFirstLine = (
  command: string,
  args: ReadonlyArray<string>,
  input?: string,
  expect: (line: string) => boolean = () => true
): Promise<number> =>
  new Promise((resolve, reject) => {
    const started = performance.now()
    const child = spawn(command, [...args], { stdio: ["pipe", "pipe", "pipe"] })
    let elapsed: number | undefined
    let stderr = ""
    let unexpected: string | undefined
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString("utf8")
    })
    const lines = Readline.createInterface({ input: child.stdout })
    lines.once("line", (line) => {
      elapsed = performance.now() - started
      if (!expect(line)) unexpected = line
      child.stdin.end()
    })
    if (input !== undefined) child.stdin.write(input)
    else child.stdin.end()
    child.once("error", reject)
    child.once("exit", (code) => {
      if (elapsed === undefined)
        reject(new Error(`${command} exited (${code}) before printing a line: ${stderr.slice(-500)}`))
      else if (unexpected !== undefined) reject(new Error(`unexpected first line: ${unexpected.slice(0, 300)}`))
      else resolve(elapsed)
    })
  })
