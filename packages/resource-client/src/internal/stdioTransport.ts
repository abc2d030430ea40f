/**
 * The client side of an MCP server over standard input/output: spawns the server, writes every
 * message sent in one event-loop turn with one write (one line each), and reads `\n`-terminated
 * messages of at most `maxMessageBytes` without copying a line more than once. Its start, stderr and
 * close behave as the SDK's `StdioClientTransport`: stdin ended first, then SIGTERM, then SIGKILL,
 * each after a 2 s grace.
 */
import type { ChildProcess } from "node:child_process"
import type { JSONRPCMessage, Transport } from "@modelcontextprotocol/client"
import { Messages } from "@mcp-resources/protocol"
import spawn from "cross-spawn"
import { droppableLine } from "./notificationGate.js"
import type { Receive, WrapsReceive } from "./onMessage.js"

/** What starts the server and where its standard error goes. */
export interface StdioParameters {
  readonly command: string
  readonly args: ReadonlyArray<string>
  readonly env: Readonly<Record<string, string>>
  readonly cwd?: string
  /** The longest message accepted from the server, in bytes (without its line ending). */
  readonly maxMessageBytes: number
  /** Receives the server's standard error as it arrives. */
  readonly stderr: (text: string) => void
}

/** The server sent a message over the limit: the stream cannot be resynchronised, so the transport closes. */
export class MessageTooLargeError extends Error {
  constructor(readonly maxMessageBytes: number) {
    super(`message exceeds ${maxMessageBytes} bytes`)
    this.name = "MessageTooLargeError"
  }
}

/** How long the server gets after stdin ends, and again after SIGTERM, before the next step. */
const closeGraceMillis = 2000

const newline = 0x0a
const carriageReturn = 0x0d

/**
 * A JSON-RPC 2.0 message as far as the transport needs to know. The SDK's protocol checks the exact
 * shape of every message it is given (result, error, request or notification) and reports any other
 * as an unknown message, so validating it here as well would only do that work twice. An answer
 * (an `id` and no `method`) is passed on whatever its `jsonrpc`: the response guard fails the request
 * it answers, naming what is wrong, instead of leaving it to wait for its timeout.
 */
const isJsonRpcMessage = (value: unknown): value is JSONRPCMessage =>
  typeof value === "object" &&
  value !== null &&
  !Array.isArray(value) &&
  (Reflect.get(value, "jsonrpc") === "2.0" || (Object.hasOwn(value, "id") && !Object.hasOwn(value, "method")))

/** Waits for `done` or `millis`, whichever comes first (the timer does not keep the process alive). */
const within = (done: Promise<void>, millis: number): Promise<void> =>
  new Promise((resolve) => {
    const timer = setTimeout(resolve, millis)
    timer.unref()
    void done.then(() => {
      clearTimeout(timer)
      resolve()
    })
  })

/**
 * Spawns the server (outside of any closure that outlives the start, so that nothing keeps the
 * environment object, a copy of the host's whole environment, for the life of the child).
 */
const spawnServer = ({ command, args, env, cwd }: StdioParameters): ChildProcess =>
  spawn(command, [...args], {
    env: { ...env },
    stdio: ["pipe", "pipe", "pipe"],
    shell: false,
    windowsHide: process.platform === "win32",
    ...(cwd === undefined ? {} : { cwd })
  })

/** An MCP client transport over a spawned server's standard input and output. */
export class StdioTransport implements Transport, WrapsReceive {
  onclose?: (() => void) | undefined
  onerror?: ((error: Error) => void) | undefined

  /** The handler installed (by the SDK client), what wraps it, and the two composed. */
  private handler: Receive | undefined = undefined
  private wraps: Array<(receive: Receive) => Receive> = []
  private receive: Receive | undefined = undefined

  private child: ChildProcess | undefined = undefined
  private exited: Promise<void> | undefined = undefined
  /** The pieces of a line that has not ended yet, and their total length. */
  private parts: Array<Buffer> = []
  private partBytes = 0
  /** Set once a message was over the limit: nothing more is read. */
  private refused = false
  /** Messages of this turn not written yet, and the promise their senders wait on. */
  private queued: Array<string> = []
  private batch: { readonly promise: Promise<void>; readonly resolve: () => void } | undefined = undefined
  private scheduled: NodeJS.Immediate | undefined = undefined
  private closing: Promise<void> | undefined = undefined
  private exitReason: string | undefined = undefined

  /** What starts the server, until it is started: the environment is not kept beside the child. */
  private parameters: StdioParameters | undefined
  private readonly maxMessageBytes: number
  private readonly stderr: (text: string) => void

  constructor(parameters: StdioParameters) {
    this.parameters = parameters
    this.maxMessageBytes = parameters.maxMessageBytes
    this.stderr = parameters.stderr
  }

  get onmessage(): Receive | undefined {
    return this.receive
  }

  set onmessage(handler: Receive | undefined) {
    this.handler = handler
    this.receive = handler === undefined ? undefined : this.wraps.reduceRight((inner, wrap) => wrap(inner), handler)
  }

  /** Every handler installed from now on (and the current one) is wrapped; the first wrap sees messages first. */
  wrapReceive(wrap: (receive: Receive) => Receive): void {
    this.wraps.push(wrap)
    this.onmessage = this.handler
  }

  /** Once the server's process ended: `connection closed (the process exited with code 3)` (or the signal that killed it). */
  get closeReason(): string | undefined {
    return this.exitReason
  }

  /** The server's process id once started. */
  get pid(): number | undefined {
    return this.child?.pid
  }

  start(): Promise<void> {
    const parameters = this.parameters
    if (parameters === undefined) return Promise.reject(new Error("StdioTransport already started"))
    this.parameters = undefined
    const stderr = this.stderr
    let child: ChildProcess
    try {
      child = spawnServer(parameters)
    } catch (error) {
      return Promise.reject(error)
    }
    return new Promise((resolve, reject) => {
      this.child = child
      this.exited = new Promise((done) => child.once("close", () => done()))
      let spawned = false
      child.once("spawn", () => {
        spawned = true
        resolve()
      })
      child.on("error", (error) => {
        reject(error)
        this.onerror?.(error)
      })
      child.once("close", (code, signal) => {
        // a process that never started (ENOENT) has no exit to tell: its spawn error says why
        if (spawned) this.exitReason = Messages.processExited(code, signal)
        this.child = undefined
        this.batch?.resolve()
        this.batch = undefined
        this.onclose?.()
      })
      child.stdin?.on("error", (error) => this.onerror?.(error))
      child.stdout?.on("data", (chunk: Buffer) => this.received(chunk))
      child.stdout?.on("error", (error) => this.onerror?.(error))
      child.stderr?.on("data", (chunk: Buffer) => stderr(chunk.toString("utf8")))
    })
  }

  /** Queues the message; every message of this event-loop turn is written at once, in order. */
  send(message: JSONRPCMessage): Promise<void> {
    if (this.child?.stdin == null || this.child.stdin.writableEnded) {
      return Promise.reject(new Error("Not connected"))
    }
    this.queued.push(JSON.stringify(message))
    if (this.batch === undefined) {
      let resolve!: () => void
      const promise = new Promise<void>((done) => {
        resolve = done
      })
      this.batch = { promise, resolve }
      this.scheduled = setImmediate(() => this.flush())
    }
    return this.batch.promise
  }

  /** Writes the queued messages with one write; their senders resume once the pipe accepted them. */
  private flush(): void {
    this.scheduled = undefined
    const batch = this.batch
    this.batch = undefined
    const stdin = this.child?.stdin
    if (this.queued.length === 0 || stdin == null || stdin.writableEnded) {
      this.queued = []
      batch?.resolve()
      return
    }
    const text = this.queued.length === 1 ? `${this.queued[0]!}\n` : `${this.queued.join("\n")}\n`
    this.queued = []
    if (stdin.write(text)) batch?.resolve()
    else if (batch !== undefined) stdin.once("drain", batch.resolve)
  }

  /** Splits standard output into lines; the pieces of a line are joined once, when it ends. */
  private received(chunk: Buffer): void {
    if (this.refused) return
    const max = this.maxMessageBytes
    let start = 0
    let end = chunk.indexOf(newline, start)
    while (end !== -1) {
      let line = chunk.subarray(start, end)
      if (this.partBytes > 0) {
        this.parts.push(line)
        line = Buffer.concat(this.parts, this.partBytes + line.length)
        this.parts = []
        this.partBytes = 0
      }
      const length = line.length > 0 && line[line.length - 1] === carriageReturn ? line.length - 1 : line.length
      if (length > max) {
        this.tooLarge()
        return
      }
      this.deliver(line.toString("utf8", 0, length))
      // a handler may have closed the transport
      if (this.refused || this.child === undefined) return
      start = end + 1
      end = chunk.indexOf(newline, start)
    }
    if (start < chunk.length) {
      const rest = chunk.subarray(start)
      // the line ending may still follow, so a partial line may hold one byte more (a carriage return)
      if (this.partBytes + rest.length > max + 1) {
        this.tooLarge()
        return
      }
      this.parts.push(rest)
      this.partBytes += rest.length
    }
  }

  private deliver(line: string): void {
    // a notification nobody handles is dropped unparsed (a flood of them costs a string test each)
    if (droppableLine(line)) return
    let message: unknown
    try {
      message = JSON.parse(line)
    } catch (error) {
      this.onerror?.(error instanceof Error ? error : new Error(String(error)))
      return
    }
    if (!isJsonRpcMessage(message)) {
      this.onerror?.(new Error(`not a JSON-RPC 2.0 message: ${line.slice(0, 200)}`))
      return
    }
    this.receive?.(message)
  }

  private tooLarge(): void {
    this.refused = true
    this.parts = []
    this.partBytes = 0
    this.onerror?.(new MessageTooLargeError(this.maxMessageBytes))
    void this.close()
  }

  /** Writes what is queued, ends stdin and waits for the exit; SIGTERM, then SIGKILL, after each grace. */
  close(): Promise<void> {
    this.closing ??= this.closeChild()
    return this.closing
  }

  private async closeChild(): Promise<void> {
    const child = this.child
    const exited = this.exited
    if (child === undefined || exited === undefined) return
    if (this.scheduled !== undefined) clearImmediate(this.scheduled)
    this.flush()
    try {
      child.stdin?.end()
    } catch {
      // already closed
    }
    await within(exited, closeGraceMillis)
    if (child.exitCode === null && child.signalCode === null) {
      child.kill("SIGTERM")
      await within(exited, closeGraceMillis)
    }
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL")
    this.parts = []
    this.partBytes = 0
  }
}
