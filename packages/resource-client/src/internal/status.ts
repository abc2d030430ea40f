/** A server's status as `mcpServer/list` shows it: its state, the negotiated revision, a reconnection. */
import type { ServerStatus } from "../ResourceClient.js"
import type { State } from "./server.js"

/** The status of a server in `state`; `base` carries its name and transport kind. */
export const status = (base: Pick<ServerStatus, "name" | "transport">, state: State): ServerStatus => {
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
