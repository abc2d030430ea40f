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

/**
 * `connection closed (the process exited with code {code})` or `connection closed (the process was
 * killed by {signal})`: a stdio server's process ended (at start or later).
 */
export const processExited = (code: number | null, signal: string | null): string =>
  `${connectionClosed} (the process ${signal !== null ? `was killed by ${signal}` : `exited with code ${code ?? "unknown"}`})`

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
  "tools/list": (server: string) => `tools/list failed for \`${server}\``,
  "completion/complete": (server: string) => `completion/complete failed for \`${server}\``
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
  cursorWithoutServer: "cursor can only be used when a server is specified",
  tooDeep: (max: number) => `failed to parse function arguments: arguments are nested deeper than ${max} levels`
} as const

/** The deepest nesting of objects and arrays accepted in tool arguments (serde_json's default limit). */
export const maxArgumentDepth = 128

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

/** Host policy (docs/policy.md): resource rules and tool hooks. */
export const policy = {
  /** A read of a URI the resource rules deny: refused before any request, whether or not it exists. */
  readDenied: (uri: string) => `resources/read failed: access to ${uri} is denied by host policy`,
  /**
   * A read, while resource rules apply to the server, of a URI the rules cannot judge (its meaning
   * depends on how the server reads it): refused before any request; `what` says what in it.
   */
  readUnjudgeable: (uri: string, what: string) =>
    `resources/read failed: access to ${uri} is denied by host policy: the resource rules cannot judge a URI with ${what}`,
  /** A `before_tool` hook denied the call; the reason is the hook's. */
  hookDenied: (reason: string) => `denied by host policy: ${reason}`,
  /** A `before_tool` hook failed: the call is refused (fail closed). */
  beforeHookFailed: (reason: string) => `denied by host policy: the before-tool hook failed: ${reason}`,
  /** An `after_tool` hook failed: the output is withheld. */
  afterHookFailed: (reason: string) => `tool output withheld by host policy: the after-tool hook failed: ${reason}`
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

/**
 * An HTTP server that asks for OAuth has no usable token (none stored, or its refresh failed); the
 * same text for the CLI, the model and app-server clients.
 */
export const authorizationRequired = (server: string): string =>
  `authorization required for MCP server '${server}': run mcp-resources login ${server}`

/** OAuth login (`mcp-resources login`, `mcpServer/oauth/login`): its failures and its browser pages. */
export const oauth = {
  notHttp: (server: string) => `MCP server '${server}' is not a streamable HTTP server; only those log in with OAuth`,
  staticAuthorization: (server: string) =>
    `MCP server '${server}' sends its own Authorization (bearer_token_env_var or an Authorization header); it does not log in with OAuth`,
  unreachable: (server: string, reason: string) => `cannot reach MCP server '${server}' to log in: ${reason}`,
  failed: (server: string, reason: string) => `login to MCP server '${server}' failed: ${reason}`,
  /** The server answered an unauthenticated `initialize` without a 401, and OAuth discovery failed. */
  notOffered: (server: string, status: number, reason: string) =>
    `MCP server '${server}' does not offer OAuth: it answered an unauthenticated initialize with HTTP ${status}, not 401, and the OAuth discovery failed: ${reason}`,
  refused: (server: string, reason: string) =>
    `login to MCP server '${server}' failed: the authorization server refused: ${reason}`,
  stateMismatch: (server: string) =>
    `login to MCP server '${server}' failed: the redirect's state does not match this login`,
  noCode: (server: string) => `login to MCP server '${server}' failed: the redirect carried no authorization code`,
  timedOut: (server: string, seconds: number) =>
    `login to MCP server '${server}' timed out: no redirect arrived within ${seconds} s`,
  cannotListen: (port: number, reason: string) =>
    `cannot listen for the login redirect on 127.0.0.1:${port}: ${reason}`,
  /** The authorization endpoint the login would open is not https (or http on a loopback host). */
  unsafeAuthorizationEndpoint: (server: string, scheme: string) =>
    `login to MCP server '${server}' failed: its authorization endpoint is a ${scheme} URL; only https (or http on a loopback host) is opened`,
  /** The page of a redirect whose `state` is not the login's: answered 400 and ignored (the login goes on waiting). */
  pageWrongState: "This redirect does not belong to the login in progress; it was ignored.",
  pageDone: "Logged in to the MCP server. You can close this window.",
  pageFailed: "The login did not succeed. You can close this window and see mcp-resources for the reason.",
  loggedIn: (server: string) => `logged in to MCP server '${server}'`,
  loggedOut: (server: string) => `logged out of MCP server '${server}'`,
  notLoggedIn: (server: string) => `MCP server '${server}' had no stored login`,
  /** A request refused with 403 `insufficient_scope` by a server logged in to in a browser. */
  scopeRequired: (server: string, scope: string) =>
    `MCP server '${server}' requires the OAuth scope "${scope}": run mcp-resources login ${server} to grant it, then retry`,
  /** The same refusal for a non-interactive grant, after it asked for a token with the wider scope. */
  scopeNotGranted: (server: string, scope: string) =>
    `MCP server '${server}' requires the OAuth scope "${scope}", which its authorization server did not grant`,
  /** A non-interactive grant (`client_credentials`, `enterprise`) that got no token. */
  grantFailed: (server: string, grant: string, reason: string) =>
    `OAuth ${grant} grant for MCP server '${server}' failed: ${reason}`,
  /** A variable a grant reads its credential from is not set (its value is never shown). */
  variableNotSet: (variable: string, what: string) => `environment variable ${variable} for ${what} is not set`,
  /** `oauth_private_key_file` or `oauth_private_key_env_var` holds no usable private key (its content is never shown). */
  privateKeyUnusable: (source: string, reason: string) => `the OAuth private key of ${source} cannot be used: ${reason}`
}

/**
 * Why an MCP server could not be reached or refused to start (resource-client 2.0). They follow
 * `failed to get client: ` in the model-facing chain and appear as `error` in `mcpServer/list`.
 */
export const startup = {
  /** An HTTP answer that is not a success: `HTTP {status}: {reason}`. */
  http: (status: number, reason: string) => `HTTP ${status}: ${reason}`,
  /** The reason of an OAuth-style refusal: the error code, then its description when given. */
  oauth: (error: string, description: string | undefined) =>
    description === undefined || description === "" ? error : `${error} (${description})`,
  /** A JSON-RPC error in an HTTP answer or on stdio: `JSON-RPC error {code}: {message}`. */
  jsonRpc: (code: number, message: string) => `JSON-RPC error ${code}: ${message}`,
  /** `-32022`: the server refused the revision the client offered. */
  unsupportedVersion: (requested: string, supported: ReadonlyArray<string>) =>
    supported.length === 0
      ? `unsupported protocol version ${requested}`
      : `unsupported protocol version ${requested}; the server supports ${supported.join(", ")}`,
  /** An answer that is an HTML page (a login page, a proxy's error page, a wrong URL). */
  html: "the server answered with an HTML page, not MCP",
  /** A success with a body that is neither JSON nor an event stream. */
  unexpectedContent: (contentType: string) => `unexpected content type ${contentType}`,
  /** An answer without a body to quote. */
  noBody: (statusText: string) => (statusText === "" ? "no reason given" : statusText),
  /** The server could not be reached at all (refused, reset, unresolvable, out of file descriptors). */
  unreachable: (target: string, reason: string) => `cannot connect to ${target}: ${reason}`,
  /** `protocol_version = "2026-07-28"` against a server that does not offer it. */
  noModernRevision: (detail: string) => `the server does not speak protocol revision 2026-07-28: ${detail}`,
  /** A 404 on the only endpoint: the URL's path is likely wrong. */
  notFoundHint: "not found (check the path of the server's URL)"
} as const

/** A request still answered `input_required` after the host answered its inputs `rounds` times. */
export const inputRequiredRounds = (method: string, rounds: number) =>
  `${method} still needed input after ${rounds} rounds of answers from the host`

/** A request answered `input_required` (2026-07-28) that the client cannot fulfil yet. */
export const inputRequired = (method: string, inputs: ReadonlyArray<string>) =>
  inputs.length === 0
    ? `${method} needs input the client cannot provide yet (the server sent no input request)`
    : `${method} needs input the client cannot provide yet: the server asked for ${inputs.join(", ")}`

/** A result kind (`resultType`) this client does not know. */
export const unsupportedResultType = (method: string, resultType: string) =>
  `invalid ${method} result: unsupported resultType '${resultType}'`

/** A response with the right id whose body is not a result object (and not an error either). */
export const invalidResponseBody = (method: string, kind: string) =>
  kind === "missing"
    ? `invalid ${method} response: it carries neither a result nor an error`
    : `invalid ${method} result: expected a JSON object, got ${kind}`

/** A response with the right id that is not a JSON-RPC response (`what` from {@link invalidResponseWhat}). */
export const invalidResponse = (method: string, what: string) => `invalid ${method} response: ${what}`

/** What is wrong with a response of {@link invalidResponse}. */
export const invalidResponseWhat = {
  both: "it carries both a result and an error",
  jsonrpc: 'jsonrpc is not "2.0"',
  unexpectedKey: (key: string) => `unexpected key ${JSON.stringify(key)}`,
  error: (kind: string) => `error: expected a JSON object, got ${kind}`,
  errorMissing: (field: "code" | "message") => `error.${field} is missing`,
  errorCode: (kind: string) => `error.code: expected an integer, got ${kind}`,
  errorMessage: (kind: string) => `error.message: expected a string, got ${kind}`
} as const

/**
 * An HTTP MCP server's answer to a request that cannot be read as a JSON-RPC answer:
 * `HTTP {status}: invalid answer: {what}` (`what` from {@link invalidHttpAnswerWhat}, or the content type).
 */
export const invalidHttpAnswer = (status: number, what: string) => `HTTP ${status}: invalid answer: ${what}`

/** What was wrong with an answer of {@link invalidHttpAnswer}. */
export const invalidHttpAnswerWhat = {
  notJson: "the body is not JSON",
  notJsonRpc: "the body is not a JSON-RPC message"
} as const

/** A `blob` that is not base64 (the MCP schema requires it). */
export const invalidBlob = "is not valid base64"

/** A dropped remote server that every reconnection attempt failed to reach. */
export const reconnectFailed = (attempts: number, last: string) =>
  `reconnecting failed after ${attempts} attempts: ${last}`

/** Lines about the config file that the CLI and the app-server print. */
export const config = {
  /**
   * No MCP server is configured: `no MCP server is configured in {file}` for a file read, or
   * `no MCP server is configured: no config file at {file} (pass --config PATH)` when the default
   * file was looked for and not found.
   */
  noServers: (file: string, found: boolean) =>
    found
      ? `no MCP server is configured in ${file}`
      : `no MCP server is configured: no config file at ${file} (pass --config PATH)`,
  /** Another host's file: only its server map is read; its other top-level keys are named once. */
  unreadKeys: (file: string, keys: ReadonlyArray<string>) =>
    `${file}: another host's file: only its MCP servers are read; ignored top-level keys: ${keys.join(", ")}`
} as const
