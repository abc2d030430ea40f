/** A server's status as `mcpServer/list` shows it: its state, the negotiated revision, a reconnection. */
import type { ServerStatus } from "./types.js"
import type { ServerEntry } from "../ServerEntry.js"
import type { Handle, State } from "./server.js"

/**
 * `httpTransport` of an HTTP server: `sse` when its entry says `type = "sse"` or its last connection
 * fell back to HTTP+SSE, else `streamable`. Nothing for stdio and in-memory servers.
 */
export const httpTransportOf = (
  entry: ServerEntry,
  handle: Pick<Handle, "httpTransport"> | undefined
): Pick<ServerStatus, "httpTransport"> =>
  entry.transport._tag !== "http"
    ? {}
    : { httpTransport: entry.transport.sse === true || handle?.httpTransport === "sse" ? "sse" : "streamable" }

/** The status of a server in `state`; `base` carries its name, transport kind and HTTP transport. */
export const status = (
  base: Pick<ServerStatus, "name" | "transport" | "httpTransport">,
  state: State
): ServerStatus => {
  switch (state._tag) {
    case "failed":
      return state.reconnectAttempt === undefined
        ? { ...base, status: "failed", error: state.error }
        : { ...base, status: "failed", error: state.error, reconnectAttempt: state.reconnectAttempt }
    case "ready": {
      const version = state.connection.protocolVersion
      return version === undefined
        ? { ...base, status: "ready" }
        : { ...base, status: "ready", protocolVersion: version }
    }
    case "starting":
      return { ...base, status: "starting" }
  }
}
