/**
 * The line framing of JSON-RPC over a byte stream, part of the wire (`Wire` re-exports it) and shared
 * by the app-server's stdio transport, the client and the bench: a streaming `\n` splitter with a
 * byte cap ({@link LineSplitter}) and a write batcher that joins every message of one event-loop turn
 * into one write ({@link WriteBatcher}). It imports nothing, so that a process that only frames lines
 * (the bench's minimal proxy, a start-up probe) loads neither Effect nor the schemas.
 */

/** The longest accepted line (8 MiB, not counting the newline). */
export const maxLineBytes = 8_388_608

/** One framed input line, or the report of a dropped one. */
export type Frame = { readonly _tag: "line"; readonly text: string } | { readonly _tag: "oversize" }

/** Splits byte chunks into lines of at most `maxBytes` bytes (the newline and a trailing `\r` not counted). */
export class LineSplitter {
  private chunks: Array<Buffer> = []
  private size = 0
  private discarding = false

  constructor(private readonly maxBytes: number) {}

  /** Feeds one chunk; returns the frames it completed, in order. */
  push(chunk: Buffer): Array<Frame> {
    const frames: Array<Frame> = []
    let start = 0
    while (start <= chunk.length) {
      const nl = chunk.indexOf(0x0a, start)
      const end = nl === -1 ? chunk.length : nl
      if (nl !== -1 && !this.discarding && this.size === 0) {
        // A whole line inside this chunk: decoded straight from it, no copy.
        frames.push(this.line(chunk, start, end))
        start = nl + 1
        continue
      }
      if (!this.discarding) {
        const piece = chunk.subarray(start, end)
        // One byte of slack for a `\r` before the newline.
        if (this.size + piece.length > this.maxBytes + 1) {
          this.discarding = true
          this.chunks = []
          this.size = 0
        } else if (piece.length > 0) {
          this.chunks.push(Buffer.from(piece))
          this.size += piece.length
        }
      }
      if (nl === -1) break
      frames.push(this.finish())
      start = nl + 1
    }
    return frames
  }

  /** The frame of the line `chunk[start, end)` (a trailing `\r` dropped). */
  private line(chunk: Buffer, start: number, end: number): Frame {
    const stop = end > start && chunk[end - 1] === 0x0d ? end - 1 : end
    if (stop - start > this.maxBytes) return { _tag: "oversize" }
    return { _tag: "line", text: chunk.toString("utf8", start, stop) }
  }

  /** The unterminated rest at end of input, if any. */
  end(): Array<Frame> {
    if (this.discarding || this.size > 0) return [this.finish()]
    return []
  }

  private finish(): Frame {
    if (this.discarding) {
      this.discarding = false
      return { _tag: "oversize" }
    }
    let buf = Buffer.concat(this.chunks, this.size)
    this.chunks = []
    this.size = 0
    if (buf.length > 0 && buf[buf.length - 1] === 0x0d) buf = buf.subarray(0, buf.length - 1)
    if (buf.length > this.maxBytes) return { _tag: "oversize" }
    return { _tag: "line", text: buf.toString("utf8") }
  }
}

/**
 * Queues messages (JSON texts, without their newline) and writes every message queued in one
 * event-loop turn with one call of `write`, in order, one per line. `flush` writes what is queued now
 * (for a close); `clear` drops it (for a peer that stopped reading).
 */
export class WriteBatcher {
  private queued: Array<string> = []
  private bytes = 0
  private scheduled: NodeJS.Immediate | undefined = undefined

  constructor(private readonly write: (text: string) => void) {}

  /** The UTF-16 length of the messages queued and not written yet. */
  get queuedLength(): number {
    return this.bytes
  }

  /** Queues one message; the batch is written on the next turn of the event loop. */
  push(message: string): void {
    this.queued.push(message)
    this.bytes += message.length
    if (this.scheduled === undefined) this.scheduled = setImmediate(() => this.flush())
  }

  /** Writes what is queued now, as one string of `\n`-terminated lines. */
  flush(): void {
    if (this.scheduled !== undefined) clearImmediate(this.scheduled)
    this.scheduled = undefined
    if (this.queued.length === 0) return
    const text = this.queued.length === 1 ? `${this.queued[0]!}\n` : `${this.queued.join("\n")}\n`
    this.queued = []
    this.bytes = 0
    this.write(text)
  }

  /** Drops what is queued without writing it. */
  clear(): void {
    if (this.scheduled !== undefined) clearImmediate(this.scheduled)
    this.scheduled = undefined
    this.queued = []
    this.bytes = 0
  }
}
