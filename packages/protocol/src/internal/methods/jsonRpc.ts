/** The JSON-RPC layer of the app-server protocol: error codes, the exact error messages, `$/cancelRequest`. */
import { Schema } from "effect"

/** JSON-RPC error codes used by the app-server. */
export const ErrorCode = {
  parseError: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  internalError: -32603,
  requestCancelled: -32800
} as const

/** The fixed and templated messages of app-server errors (app-server-protocol.md sections 2 and 3). */
export const messages = {
  /** `-32700` for a line that is not JSON. */
  parseError: "Parse error",
  /** `-32600` for a line over {@link maxLineBytes}. */
  requestTooLarge: "Request too large",
  /** `-32600` for JSON that is not a request or notification. */
  invalidRequest: "Invalid request",
  /** `-32600` for params that do not match the method's schema. */
  invalidParams: (detail: string) => `Invalid request: ${detail}`,
  /** `-32600` before `initialize` succeeded. */
  notInitialized: "Not initialized",
  /** `-32600` for a second `initialize`. */
  alreadyInitialized: "Already initialized",
  /** `-32601` for an unknown method. */
  methodNotFound: (method: string) => `Method not found: ${method}`,
  /** `-32800` for a request cancelled by `$/cancelRequest`. */
  requestCancelled: "Request cancelled",
  /** `-32603` for requests still running when shutdown's grace period ends. */
  shuttingDown: "server shutting down",
  /** `-32600` for an unknown thread. */
  threadNotFound: (threadId: string) => `thread not found: ${threadId}`,
  /** `-32600` for a turn never started in the thread, or rolled back. */
  turnNotFound: (turnId: string) => `turn not found: ${turnId}`,
  /** `-32600` for a call id that already produced items in the thread's current history. */
  duplicateCallId: (callId: string) => `duplicate callId: ${callId}`,
  /** `-32600` for a direct read with `originCallId` and no `threadId`. */
  originCallIdRequiresThreadId: "originCallId requires threadId",
  /** `-32603` when an append lost a race with another process. */
  modifiedConcurrently: (threadId: string) => `thread ${threadId} was modified concurrently`,
  /** `-32600` from `mcp/widget/*` when `[widgets] enabled = false`. */
  widgetsDisabled: "widgets are disabled ([widgets] enabled = false)",
  /** `-32600` from `mcp/widget/*` for a call id with no completed MCP tool call in the thread's current history. */
  widgetCallNotFound: (callId: string) => `no completed MCP tool call ${callId} in this thread`,
  /** `-32600` from `mcp/widget/read` for a completed call whose tool names no `ui://` resource. */
  widgetNoResource: (callId: string) => `MCP tool call ${callId} has no UI resource`,
  /** `-32600` from `mcp/widget/readResource` for a uri that is not `ui://`. */
  widgetNotUiUri: (uri: string) => `a widget may read only ui:// resources of its own server, not ${uri}`,
  /** `-32600` from `mcp/widget/callTool` for a tool its server does not list. */
  widgetToolNotFound: (server: string, name: string) => `tool ${name} is not a tool of MCP server ${server}`,
  /** `-32600` from `mcp/widget/callTool` for a tool whose visibility excludes `app`. */
  widgetToolNotForApps: (name: string) =>
    `tool ${name} is not available to widgets: its _meta.ui.visibility does not include "app"`,
  /** `-32600` from `mcp/widget/callTool` for an apps-server tool the app policy disables (as for the model). */
  widgetToolDisabled: (name: string) =>
    `tool ${name} is disabled by the app policy ([apps.connectors] enabled = false)`,
  /** The error message of a cancelled `tool/call` item. */
  callCancelled: "cancelled",
  /** `-32600` from `mcp/resource/subscribe` and `mcp/resource/unsubscribe` on a thread of the codex tool profile. */
  subscriptionsNeedExtended: (threadId: string) =>
    `thread ${threadId} uses the codex tool profile: resource subscriptions need the extended profile`,
  /** `-32603` for a result its handler built in another shape than the method's result schema (a bug of the server). */
  invalidResult: (method: string, detail: string) =>
    `internal error: the result of ${method} does not match its schema: ${detail}`
} as const

/** `$/cancelRequest` params (a client notification): the id of the request to cancel. */
export const CancelRequestParams = Schema.Struct({ id: Schema.Union(Schema.String, Schema.Number) })
