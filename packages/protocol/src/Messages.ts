/**
 * Exact strings of the specs that several packages produce. They are API: tests compare them byte for
 * byte. Package-specific messages (origin checks, skills) live in their packages.
 */

/** `{n}s` for a whole number of seconds, else `{n}ms` rounded (resource-tools.md 1.4). */
export const formatDuration = (millis: number): string =>
  millis % 1000 === 0 ? `${millis / 1000}s` : `${Math.round(millis)}ms`

/** `unknown MCP server '{server}'` */
export const unknownServer = (server: string): string => `unknown MCP server '${server}'`

/** `failed to get client: {error}` */
export const failedToGetClient = (error: string): string => `failed to get client: ${error}`

/** `timed out awaiting {method} after {duration}` */
export const timedOutAwaiting = (method: string, millis: number): string =>
  `timed out awaiting ${method} after ${formatDuration(millis)}`

/** `timed out awaiting initialize after {duration}`: the startup timeout. */
export const startupTimedOut = (millis: number): string => timedOutAwaiting("initialize", millis)

/** `connection closed`: a transport closed without a reason. */
export const connectionClosed = "connection closed"

/** `message exceeds {n} bytes`: a stdio message over `max_message_bytes`. */
export const messageExceeds = (bytes: number): string => `message exceeds ${bytes} bytes`

/**
 * `too many threadless connections: all {cap} are in use ([mcp] threadless_concurrency = {cap}); waited {duration}`:
 * a threadless read refused after waiting its turn.
 */
export const threadlessLimit = (cap: number, waitedMillis: number): string =>
  `too many threadless connections: all ${cap} are in use ([mcp] threadless_concurrency = ${cap}); waited ${formatDuration(waitedMillis)}`

/** The context of a failed single request, per method (resource-tools.md 1.4). */
export const requestContext = {
  "resources/list": (server: string) => `resources/list failed for \`${server}\``,
  "resources/templates/list": (server: string) => `resources/templates/list failed for \`${server}\``,
  "resources/read": (server: string, uri: string) => `resources/read failed for \`${server}\` (${uri})`,
  "tools/call": (server: string) => `tools/call failed for \`${server}\``,
  "tools/list": (server: string) => `tools/list failed for \`${server}\``
} as const

/** Pagination guard messages (resource-tools.md 2.1). */
export const pagination = {
  pageLimit: (method: string) => `${method} exceeded the pagination limit of 100 pages`,
  itemLimit: (method: string) => `${method} exceeded the catalog limit of 2048 items`,
  cursorTooLarge: (method: string) => `${method} returned a pagination cursor exceeding 65536 bytes`,
  repeatedCursor: (method: string) => `${method} returned a repeated pagination cursor`,
  timedOut: (method: string, millis: number) => `${method} pagination timed out after ${formatDuration(millis)}`
} as const

/** Warn-level log lines of aggregate listing (resource-tools.md 2.2). */
export const aggregateLog = {
  resources: (server: string, error: string) => `Failed to list resources for MCP server '${server}': ${error}`,
  templates: (server: string, error: string) => `Failed to list resource templates for MCP server '${server}': ${error}`
} as const

/** Argument messages of the model tools (resource-tools.md section 5). */
export const args = {
  invalidJson: "failed to parse function arguments: arguments are not valid JSON",
  expectedObject: (kind: string) => `failed to parse function arguments: expected a JSON object, got ${kind}`,
  mustBeString: (field: string, kind: string) =>
    `failed to parse function arguments: field "${field}" must be a string, got ${kind}`,
  missingField: (field: string) => `failed to parse function arguments: missing required field "${field}"`,
  serverMustBeProvided: "server must be provided",
  uriMustBeProvided: "uri must be provided",
  cursorWithoutServer: "cursor can only be used when a server is specified"
} as const

/** `` MCP server '{server}' is disabled by `orchestrator.mcp.enabled` `` */
export const serverDisabledByOrchestrator = (server: string): string =>
  `MCP server '${server}' is disabled by \`orchestrator.mcp.enabled\``

/** Outer contexts of the model tools' phase-2 failures (resource-tools.md 7). */
export const toolFailure = {
  list: (chain: string) => `resources/list failed: ${chain}`,
  templates: (chain: string) => `resources/templates/list failed: ${chain}`,
  read: (chain: string) => `resources/read failed: ${chain}`,
  call: (chain: string) => `tools/call failed: ${chain}`
} as const

/** `unsupported call: {name}` */
export const unsupportedCall = (name: string): string => `unsupported call: ${name}`

/** The JSON kind of a parsed value: `null`, `boolean`, `number`, `string`, `array`, `object`. */
export const jsonKind = (value: unknown): "null" | "boolean" | "number" | "string" | "array" | "object" =>
  value === null
    ? "null"
    : Array.isArray(value)
      ? "array"
      : typeof value === "boolean"
        ? "boolean"
        : typeof value === "number"
          ? "number"
          : typeof value === "string"
            ? "string"
            : "object"
