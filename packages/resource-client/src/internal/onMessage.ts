/**
 * One way to see every message a transport receives before its consumer does: the response guard and
 * the notification gate both wrap the handler that the SDK client (or a wrapper around it) installs.
 */
import type { Transport } from "@modelcontextprotocol/client"

/** A transport's message handler. */
export type Receive = NonNullable<Transport["onmessage"]>

/** A transport that wraps its handler itself (ours do: no accessor on the instance, which V8 keeps as a slow dictionary object). */
export interface WrapsReceive {
  readonly wrapReceive: (wrap: (receive: Receive) => Receive) => void
}

const wrapsReceive = (transport: Transport): transport is Transport & WrapsReceive =>
  typeof (transport as Partial<WrapsReceive>).wrapReceive === "function"

/**
 * Makes `transport.onmessage` wrap whatever handler is installed with `wrap`. The transport object
 * stays the same (the SDK recognises some transports by class); an accessor installed before (by
 * whoever handed us the transport, or an earlier wrap) keeps working behind this one.
 */
export const wrapOnMessage = (transport: Transport, wrap: (receive: Receive) => Receive): void => {
  if (wrapsReceive(transport)) {
    transport.wrapReceive(wrap)
    return
  }
  const previous = Object.getOwnPropertyDescriptor(transport, "onmessage")
  let current: Receive | undefined
  const set =
    previous?.set === undefined
      ? (handler: Receive | undefined) => {
          current = handler
        }
      : previous.set.bind(transport)
  const get = previous?.get === undefined ? () => current : previous.get.bind(transport)
  Object.defineProperty(transport, "onmessage", {
    configurable: true,
    enumerable: true,
    get,
    set: (handler: Receive | undefined) => set(handler === undefined ? undefined : wrap(handler))
  })
}
