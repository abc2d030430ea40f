/**
 * The model-facing messages and the window constants of the extended profile. Text from a server
 * inside a message is escaped (hygiene.ts).
 */
import { Messages } from "@mcp-resources/protocol"
import { escapeControls } from "./hygiene.js"

/** How long a read of the extended profile is kept for its next windows when the server gives no `ttlMs`. */
export const defaultWindowTtlMs = 60_000

/** Bytes of the budget kept for the headers and the note of a window. */
export const windowReserveBytes = 1024

/** The smallest window. */
export const minWindowBytes = 64

/** The model-facing messages of the extended profile. */
export const messages = {
  /** `offset` or `length` that is not an integer >= 0. */
  notByteCount: (field: "offset" | "length", value: unknown) =>
    `failed to parse function arguments: field "${field}" must be an integer >= 0, got ${
      typeof value === "number" ? String(value) : Messages.jsonKind(value)
    }`,
  /** An offset after the end of the text. */
  offsetPastEnd: (offset: number, total: number) =>
    `offset ${offset} is past the end: the text of this resource has ${total} bytes`,
  /** `-32002` (older servers) or `-32602` (2026-07-28) on `resources/read`. */
  resourceNotFound: (server: string, uri: string) =>
    `resources/read failed: MCP server '${escapeControls(server)}' has no resource '${escapeControls(uri)}'`,
  /** A blob or image `data` of a tool result that is not base64. */
  invalidToolBlob: (path: string) => `tools/call failed: invalid tools/call result at ${path}: ${Messages.invalidBlob}`,
  /** The note after a window that is not the last. */
  windowNote: (start: number, end: number, total: number) =>
    `[window: bytes ${start}-${end} of ${total}; to continue, call read_mcp_resource with offset ${end}]`,
  /** The note after the last window. */
  lastWindowNote: (start: number, end: number, total: number) =>
    `[window: bytes ${start}-${end} of ${total}; this is the end]`,
  /** `read_mcp_resource` with both `uri` and `uriTemplate`, or with neither. */
  uriOrTemplate: (both: boolean) =>
    `failed to parse function arguments: give exactly one of "uri" and "uriTemplate"${both ? ", not both" : ""}`,
  /** A field that must be an object of strings (`arguments`, `context`). */
  notStringObject: (field: string, value: unknown) =>
    `failed to parse function arguments: field "${field}" must be an object of strings, got ${Messages.jsonKind(value)}`,
  /** One value of such an object that is not a string. */
  notStringValue: (field: string, name: string, value: unknown) =>
    `failed to parse function arguments: field "${field}.${name}" must be a string, got ${Messages.jsonKind(value)}`,
  /** A template the server does not list. */
  templateNotListed: (server: string, uriTemplate: string) =>
    `MCP server '${escapeControls(server)}' lists no resource template '${escapeControls(uriTemplate)}'; list_mcp_resource_templates gives the templates it lists`,
  /** A variable of the template without a value. */
  missingVariable: (uriTemplate: string, name: string, variables: ReadonlyArray<string>) =>
    `resource template '${escapeControls(uriTemplate)}' needs a value for variable "${escapeControls(name)}"; its variables: ${variableList(variables)}`,
  /** A value for a variable the template does not have. */
  extraVariable: (uriTemplate: string, name: string, variables: ReadonlyArray<string>) =>
    `resource template '${escapeControls(uriTemplate)}' has no variable "${escapeControls(name)}"; its variables: ${variableList(variables)}`,
  /** `complete_mcp_resource_argument` on a server that did not declare `completions`. */
  noCompletions: (server: string) => `MCP server '${escapeControls(server)}' does not offer argument completion`,
  /** The last line of an aggregate `list_mcp_resources` cut to the output budget. */
  aggregateOverflow: (total: number, servers: number) =>
    `[${total} resources on ${servers} servers do not fit in one output; search_mcp_resources finds one by name, title, description or URI (or list one server with server)]`,
  /** `since` that is neither "last" nor `{"callId": "..."}` with a non-blank string. */
  notSince: (value: unknown) =>
    `failed to parse function arguments: field "since" must be "last" or {"callId": "<the call id of an earlier read>"}, got ${
      typeof value === "string" ? JSON.stringify(value) : Messages.jsonKind(value)
    }`,
  /** `since` naming a call that is not an earlier read of this thread. */
  sinceNotARead: (callId: string) =>
    `since: call '${escapeControls(callId)}' is not an earlier read_mcp_resource of this conversation`,
  /** `since` naming a read of another resource. */
  sinceOtherResource: (callId: string, server: string, uri: string) =>
    `since: call '${escapeControls(callId)}' read resource '${escapeControls(uri)}' of MCP server '${escapeControls(server)}', not this one`,
  /** The outer context of a failed completion. */
  completeFailed: (chain: string) => `completion/complete failed: ${chain}`
} as const

const variableList = (variables: ReadonlyArray<string>): string =>
  variables.length === 0 ? "(none)" : variables.map((name) => escapeControls(name)).join(", ")

/** The JSON-RPC codes of "resource not found": `-32002` (older revisions) and `-32602` (2026-07-28). */
export const notFoundCodes: ReadonlyArray<number> = [-32002, -32602]
