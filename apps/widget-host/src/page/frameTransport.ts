/**
 * The host side of one widget's `postMessage` channel, bound to the frame it was created for: it hears
 * only messages whose source is that frame's window and whose origin is the widget's own sandbox
 * origin, and posts only to that origin. A message from any other window (another widget, the widget's
 * inner document posting to the page directly, a frame of another origin) never reaches the bridge, so
 * no widget can speak as another.
 */
import type { JSONRPCMessage, Transport } from "@modelcontextprotocol/client"

/** A transport over `frame`'s window, for the widget served on `origin`. */
export class FrameTransport implements Transport {
  onclose?: () => void
  onerror?: (error: Error) => void
  onmessage?: (message: JSONRPCMessage) => void
  readonly #window: Window
  readonly #origin: string
  readonly #listener = (event: MessageEvent) => {
    if (event.source !== this.#window || event.origin !== this.#origin) return
    const data = event.data as { jsonrpc?: unknown } | null
    if (typeof data !== "object" || data === null || data.jsonrpc !== "2.0") return
    this.onmessage?.(data as JSONRPCMessage)
  }

  constructor(frame: HTMLIFrameElement, origin: string) {
    this.#window = frame.contentWindow!
    this.#origin = origin
  }

  async start(): Promise<void> {
    window.addEventListener("message", this.#listener)
  }

  async send(message: JSONRPCMessage): Promise<void> {
    this.#window.postMessage(message, this.#origin)
  }

  async close(): Promise<void> {
    window.removeEventListener("message", this.#listener)
    this.onclose?.()
  }
}
