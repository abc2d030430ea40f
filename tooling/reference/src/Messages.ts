/**
 * Every exact message of the packages, rendered with `{placeholders}` for the reference. The texts come
 * from the message modules themselves (`protocol` Messages and AppServer, `resource-origins`
 * CallScopedRead, `skills` SkillMessages); what this file adds is when each one is produced. A test
 * checks that every export of those modules is listed here, so a new message cannot go undocumented.
 */
import { AppServer, Messages } from "@mcp-resources/protocol"
import { CallScopedRead } from "@mcp-resources/resource-origins"
import { SkillMessages } from "@mcp-resources/skills"

/** One documented message. */
export interface MessageDoc {
  /** The export's path in its module, e.g. `args.invalidJson`. */
  readonly key: string
  readonly text: string
  readonly when: string
}

const m = (key: string, text: string, when: string): MessageDoc => ({ key, text, when })

/** Exports of the message modules that are helpers, not messages. */
export const helpers: Readonly<Record<string, ReadonlyArray<string>>> = {
  Messages: ["formatDuration", "jsonKind"],
  AppServerMessages: [],
  CallScopedRead: ["defaultRequestMetaKey", "callScopedMeta", "plainReadMeta", "readForCall"],
  SkillMessages: []
}

/** `protocol` Messages: the connection runtime and the model tools. */
export const runtimeAndTools: ReadonlyArray<MessageDoc> = [
  m(
    "threadlessLimit",
    Messages.threadlessLimit(8, 30_000),
    "a threadless read found every throw-away connection in use for `[mcp] threadless_wait_sec` (here 8 and 30 s)"
  ),
  m("args.tooDeep", Messages.args.tooDeep(128), "the tool arguments are nested deeper than the limit"),
  m("maxArgumentDepth", String(Messages.maxArgumentDepth), "the nesting limit of tool arguments (a number)"),
  m(
    "authorizationRequired",
    Messages.authorizationRequired("{server}"),
    "an HTTP server asked for OAuth and no usable token is stored (never logged in, logged out, or the refresh failed); `mcp-resources login SERVER` or `mcpServer/oauth/login` fixes it"
  ),
  m("oauth.notHttp", Messages.oauth.notHttp("{server}"), "a login was asked for a stdio server"),
  m(
    "oauth.staticAuthorization",
    Messages.oauth.staticAuthorization("{server}"),
    "a login was asked for an HTTP server with `bearer_token_env_var` or an `Authorization` header"
  ),
  m("oauth.unreachable", Messages.oauth.unreachable("{server}", "{reason}"), "login could not reach the MCP server"),
  m(
    "oauth.failed",
    Messages.oauth.failed("{server}", "{reason}"),
    "discovery, registration or the code exchange failed (the SDK's reason, its first line without the body the server answered with)"
  ),
  m(
    "oauth.notOffered",
    Messages.oauth.notOffered("{server}", 200, "{reason}"),
    "`login` against a server that answered an unauthenticated initialize without a 401 (here HTTP 200) and whose OAuth discovery or registration failed"
  ),
  m(
    "oauth.refused",
    Messages.oauth.refused("{server}", "{reason}"),
    "the redirect carried an OAuth error (`error`, `error_description`)"
  ),
  m("oauth.stateMismatch", Messages.oauth.stateMismatch("{server}"), "the redirect's `state` was not this login's"),
  m("oauth.noCode", Messages.oauth.noCode("{server}"), "the redirect carried neither a code nor an error"),
  m(
    "oauth.timedOut",
    Messages.oauth.timedOut("{server}", 300),
    "no redirect arrived in time (CLI `--timeout`, app-server 300 s)"
  ),
  m(
    "oauth.cannotListen",
    Messages.oauth.cannotListen(8976, "{reason}"),
    "the loopback listener could not be opened (e.g. `oauth_redirect_port` in use)"
  ),
  m(
    "oauth.unsafeAuthorizationEndpoint",
    Messages.oauth.unsafeAuthorizationEndpoint("{server}", "{scheme}"),
    "the authorization server's `authorization_endpoint` is not https (or http on a loopback host); nothing is printed or opened"
  ),
  m(
    "oauth.pageWrongState",
    Messages.oauth.pageWrongState,
    "the browser page (HTTP 400) of a redirect that does not carry the login's `state`; the login goes on waiting"
  ),
  m("oauth.pageDone", Messages.oauth.pageDone, "the browser page after a successful redirect"),
  m("oauth.pageFailed", Messages.oauth.pageFailed, "the browser page after a redirect with an error"),
  m("oauth.loggedIn", Messages.oauth.loggedIn("{server}"), "`mcp-resources login` succeeded"),
  m("oauth.loggedOut", Messages.oauth.loggedOut("{server}"), "`mcp-resources logout` removed the stored login"),
  m("oauth.notLoggedIn", Messages.oauth.notLoggedIn("{server}"), "`mcp-resources logout` found nothing to remove"),
  m(
    "oauth.scopeRequired",
    Messages.oauth.scopeRequired("{server}", "{scopes}"),
    "a server logged in to in a browser refused a request with `403 insufficient_scope`; the server stays ready, the scopes are in `requiredScopes` and the next login asks for them"
  ),
  m(
    "oauth.scopeNotGranted",
    Messages.oauth.scopeNotGranted("{server}", "{scopes}"),
    "a server with a non-interactive grant still refused a request with `403 insufficient_scope` after the grant asked for a token with those scopes"
  ),
  m(
    "oauth.grantFailed",
    Messages.oauth.grantFailed("{server}", "{grant}", "{reason}"),
    "a `client_credentials` or `enterprise` grant got no token; the reason is the authorization server's (or IdP's) error and description"
  ),
  m(
    "oauth.variableNotSet",
    Messages.oauth.variableNotSet("{VARIABLE}", "{what}"),
    "a variable an OAuth entry names (client secret, private key, IdP secret, ID token) is not set; its value is never shown"
  ),
  m(
    "oauth.privateKeyUnusable",
    Messages.oauth.privateKeyUnusable("{the file PATH | variable NAME}", "{reason}"),
    "the private key of `private_key_jwt` cannot be read or is not a PEM private key of a type that signs assertions; its content is never shown"
  ),
  m("startup.http", Messages.startup.http(401, "{reason}"), "an HTTP server refused start-up with that status"),
  m(
    "startup.oauth",
    Messages.startup.oauth("{error}", "{description}"),
    "the refusal carried an OAuth error (e.g. `invalid_token`)"
  ),
  m("startup.jsonRpc", Messages.startup.jsonRpc(-32600, "{message}"), "the refusal carried a JSON-RPC error"),
  m(
    "startup.unsupportedVersion",
    Messages.startup.unsupportedVersion("{requested}", ["{supported}"]),
    "the server refused the protocol revision (`-32022`)"
  ),
  m("startup.html", Messages.startup.html, "the server answered with an HTML page"),
  m(
    "startup.unexpectedContent",
    Messages.startup.unexpectedContent("{contentType}"),
    "the server answered with another content type"
  ),
  m("startup.noBody", Messages.startup.noBody("{statusText}"), "the refusal had no body (its status text)"),
  m(
    "startup.unreachable",
    Messages.startup.unreachable("{target}", "{reason}"),
    "the server could not be reached (the reason carries the system code, e.g. ECONNREFUSED)"
  ),
  m(
    "startup.noModernRevision",
    Messages.startup.noModernRevision("{detail}"),
    '`protocol_version = "2026-07-28"` and the server does not offer it'
  ),
  m("startup.notFoundHint", Messages.startup.notFoundHint, "the server's URL answered 404 at start-up"),
  m(
    "inputRequired",
    Messages.inputRequired("{method}", ["{input}"]),
    "a 2026-07-28 server answered `input_required`; the message names the inputs it wanted"
  ),
  m(
    "inputRequiredRounds",
    Messages.inputRequiredRounds("{method}", 10),
    "a 2026-07-28 server kept answering `input_required` after the host answered its inputs 10 times"
  ),
  m(
    "unsupportedResultType",
    Messages.unsupportedResultType("{method}", "{resultType}"),
    "a result carried a `resultType` this client does not know"
  ),
  m(
    "invalidResponseBody",
    Messages.invalidResponseBody("{method}", "{kind}"),
    "an answer with the request's id has a malformed body (null, an array, a string, neither result nor error)"
  ),
  m(
    "invalidResponse",
    Messages.invalidResponse("{method}", "{what}"),
    "an answer with the request's id is not a JSON-RPC response (`{what}` is one of `invalidResponseWhat`); the request fails at once"
  ),
  m(
    "invalidResponseWhat.both",
    Messages.invalidResponseWhat.both,
    "what `invalidResponse` says when the answer has both `result` and `error`"
  ),
  m(
    "invalidResponseWhat.jsonrpc",
    Messages.invalidResponseWhat.jsonrpc,
    "what `invalidResponse` says when the answer's `jsonrpc` is missing or not `2.0`"
  ),
  m(
    "invalidResponseWhat.unexpectedKey",
    Messages.invalidResponseWhat.unexpectedKey("{key}"),
    "what `invalidResponse` says when the answer has a key JSON-RPC does not define"
  ),
  m(
    "invalidResponseWhat.error",
    Messages.invalidResponseWhat.error("{kind}"),
    "what `invalidResponse` says when `error` is not an object (e.g. a string)"
  ),
  m(
    "invalidResponseWhat.errorMissing",
    Messages.invalidResponseWhat.errorMissing("message"),
    "what `invalidResponse` says when `error` lacks its `code` or `message`"
  ),
  m(
    "invalidResponseWhat.errorCode",
    Messages.invalidResponseWhat.errorCode("{kind}"),
    "what `invalidResponse` says when `error.code` is not an integer"
  ),
  m(
    "invalidResponseWhat.errorMessage",
    Messages.invalidResponseWhat.errorMessage("{kind}"),
    "what `invalidResponse` says when `error.message` is not a string"
  ),
  m(
    "invalidHttpAnswer",
    Messages.invalidHttpAnswer(200, "{what}"),
    "an HTTP server answered a request with a body that is not JSON, JSON that is not JSON-RPC, or another content type (`unexpected content type {type}`)"
  ),
  m(
    "invalidHttpAnswerWhat.notJson",
    Messages.invalidHttpAnswerWhat.notJson,
    "what `invalidHttpAnswer` says when the body of an `application/json` answer is not JSON"
  ),
  m(
    "invalidHttpAnswerWhat.notJsonRpc",
    Messages.invalidHttpAnswerWhat.notJsonRpc,
    "what `invalidHttpAnswer` says when the body is JSON but not a JSON-RPC message (e.g. `[1,2]`, `result: null`)"
  ),
  m("invalidBlob", Messages.invalidBlob, "a read content's `blob` is not base64 (appended to the read's context)"),
  m(
    "reconnectFailed",
    Messages.reconnectFailed(8, "{last}"),
    "an HTTP server that dropped could not be reconnected within the backoff's attempts"
  ),
  m("unknownServer", Messages.unknownServer("{server}"), "the server name is not an enabled server of the set"),
  m(
    "failedToGetClient",
    Messages.failedToGetClient("{error}"),
    "the server is `failed` (startup failure or crash); `{error}` is its status message"
  ),
  m(
    "timedOutAwaiting",
    Messages.timedOutAwaiting("{method}", 300_000),
    "a request ran past the server's `tool_timeout_sec` (here 300 s); the duration is written `300s`, `30s` or `500ms`"
  ),
  m(
    "startupTimedOut",
    Messages.startupTimedOut(10_000),
    "startup (connect, `initialize`, first tool list) ran past `startup_timeout_sec` (here 10 s)"
  ),
  m("connectionClosed", Messages.connectionClosed, "the transport closed without giving a reason"),
  m(
    "processExited",
    Messages.processExited(3, null),
    "a stdio server's process ended, at start or later (`connection closed (the process was killed by SIGKILL)` for a signal); the server becomes `failed`"
  ),
  m(
    "messageExceeds",
    Messages.messageExceeds(67108864),
    "a stdio server sent a message over `max_message_bytes` (here the default); the server becomes `failed`"
  ),
  m(
    "requestContext.resources/list",
    Messages.requestContext["resources/list"]("{server}"),
    "context before the cause of a failed list page"
  ),
  m(
    "requestContext.resources/templates/list",
    Messages.requestContext["resources/templates/list"]("{server}"),
    "context before the cause of a failed template list page"
  ),
  m(
    "requestContext.resources/read",
    Messages.requestContext["resources/read"]("{server}", "{uri}"),
    "context before the cause of a failed read"
  ),
  m(
    "requestContext.tools/call",
    Messages.requestContext["tools/call"]("{server}"),
    "context before the cause of a failed tool call"
  ),
  m(
    "requestContext.tools/list",
    Messages.requestContext["tools/list"]("{server}"),
    "context before the cause of a failed tool catalog page (logged)"
  ),
  m(
    "requestContext.completion/complete",
    Messages.requestContext["completion/complete"]("{server}"),
    "context before the cause of a failed argument completion (extended profile, `mcp/resource/complete`)"
  ),
  m("pagination.pageLimit", Messages.pagination.pageLimit("{method}"), "a list needed more than 100 pages"),
  m("pagination.itemLimit", Messages.pagination.itemLimit("{method}"), "a list held more than 2048 items"),
  m(
    "pagination.cursorTooLarge",
    Messages.pagination.cursorTooLarge("{method}"),
    "a `nextCursor` was longer than 65536 bytes"
  ),
  m(
    "pagination.repeatedCursor",
    Messages.pagination.repeatedCursor("{method}"),
    "a `nextCursor` came back that this collection had already followed"
  ),
  m(
    "pagination.timedOut",
    Messages.pagination.timedOut("{method}", 300_000),
    "all pages together ran past the deadline (the server's `tool_timeout_sec`, here 300 s)"
  ),
  m(
    "aggregateLog.resources",
    Messages.aggregateLog.resources("{server}", "{error}"),
    "warning logged when one server fails in an all-servers resource list"
  ),
  m(
    "aggregateLog.templates",
    Messages.aggregateLog.templates("{server}", "{error}"),
    "warning logged when one server fails in an all-servers template list"
  ),
  m("args.invalidJson", Messages.args.invalidJson, "the argument text is not blank and not JSON"),
  m(
    "args.expectedObject",
    Messages.args.expectedObject("{kind}"),
    "the arguments are JSON but not an object (`{kind}` is `array`, `string`, `number` or `boolean`)"
  ),
  m(
    "args.mustBeString",
    Messages.args.mustBeString("{field}", "{kind}"),
    "a field is present but not a string (for the list tools `null` counts as absent)"
  ),
  m("args.missingField", Messages.args.missingField("{field}"), "`read_mcp_resource` without `server` or `uri`"),
  m("args.serverMustBeProvided", Messages.args.serverMustBeProvided, "`read_mcp_resource` with a blank `server`"),
  m("args.uriMustBeProvided", Messages.args.uriMustBeProvided, "`read_mcp_resource` with a blank `uri`"),
  m("args.cursorWithoutServer", Messages.args.cursorWithoutServer, "a list tool with a `cursor` and no `server`"),
  m(
    "serverDisabledByOrchestrator",
    Messages.serverDisabledByOrchestrator("{server}"),
    "a single-server list or a read of the apps server while `orchestrator.mcp.enabled` is false"
  ),
  m("toolFailure.list", Messages.toolFailure.list("{chain}"), "`list_mcp_resources` failed after its arguments"),
  m(
    "toolFailure.templates",
    Messages.toolFailure.templates("{chain}"),
    "`list_mcp_resource_templates` failed after its arguments"
  ),
  m("toolFailure.read", Messages.toolFailure.read("{chain}"), "`read_mcp_resource` failed after its arguments"),
  m("toolFailure.call", Messages.toolFailure.call("{chain}"), "an `mcp__{server}__{tool}` call's request failed"),
  m("unsupportedCall", Messages.unsupportedCall("{name}"), "`tool/call` with a name that is not offered"),
  m(
    "policy.readDenied",
    Messages.policy.readDenied("{uri}"),
    "a read (model tool, `mcp/resource/read`, widget read, skills read) of a URI the resource rules deny, before any request, whether or not it exists ([policy.md](policy.md))"
  ),
  m(
    "policy.readUnjudgeable",
    Messages.policy.readUnjudgeable("{uri}", "{what}"),
    'a read, while resource rules apply to the server, of a URI the rules cannot judge: `{what}` is one of `an encoded "/" (%2F) in its path`, `an encoded "\\" (%5C) in its path`, `a "\\" before its query`, `an empty path segment ("//")`, `a ".." segment above the root of its path`, `a control character`, `an encoded control character in its path`, `a malformed percent-encoding`, `a space at its start or end` ([policy.md](policy.md))'
  ),
  m(
    "policy.hookDenied",
    Messages.policy.hookDenied("{reason}"),
    "a `before_tool` hook denied the call: its `reason`, its standard error with exit status 2, or without either `before_tool[{i}] denied the call` (a code hook: `the before hook denied the call`)"
  ),
  m(
    "policy.beforeHookFailed",
    Messages.policy.beforeHookFailed("{reason}"),
    "a `before_tool` hook crashed, timed out or printed no valid decision: the call is refused (fail closed)"
  ),
  m(
    "policy.afterHookFailed",
    Messages.policy.afterHookFailed("{reason}"),
    "an `after_tool` hook crashed, timed out or printed no valid decision: the output is withheld"
  ),
  m(
    "config.noServers",
    `${Messages.config.noServers("{file}", true)} / ${Messages.config.noServers("{file}", false)}`,
    "the CLI's `list`, `templates` or `read` with a config that names no MCP server: the file read, or (second form) the default `mcp-resources.toml` looked for and not found"
  ),
  m(
    "config.unreadKeys",
    Messages.config.unreadKeys("{file}", ["{key}", "..."]),
    "a warning on standard error, once per read of another host's file (`mcpServers` or `servers`): the top-level keys besides its server map, which are ignored"
  )
]

/** `protocol` AppServer.messages: the app-server's JSON-RPC errors, with their codes. */
export const appServer: ReadonlyArray<MessageDoc & { readonly code: number | undefined }> = [
  { ...m("parseError", AppServer.messages.parseError, "a line or frame is not JSON (`id: null`)"), code: -32700 },
  {
    ...m("requestTooLarge", AppServer.messages.requestTooLarge, "a line over 8 MiB, discarded unread (`id: null`)"),
    code: -32600
  },
  {
    ...m(
      "invalidRequest",
      AppServer.messages.invalidRequest,
      "JSON that is not a request or notification: a batch array, a bad `jsonrpc`, `method`, `id` or `params`"
    ),
    code: -32600
  },
  {
    ...m(
      "invalidParams",
      AppServer.messages.invalidParams("{detail}"),
      "params that do not match the method's schema; `{detail}` names the first offending field"
    ),
    code: -32600
  },
  {
    ...m("notInitialized", AppServer.messages.notInitialized, "any request but `initialize` before it succeeded"),
    code: -32600
  },
  {
    ...m("alreadyInitialized", AppServer.messages.alreadyInitialized, "a second `initialize` on the connection"),
    code: -32600
  },
  { ...m("methodNotFound", AppServer.messages.methodNotFound("{method}"), "an unknown method"), code: -32601 },
  {
    ...m("requestCancelled", AppServer.messages.requestCancelled, "the request was cancelled by `$/cancelRequest`"),
    code: -32800
  },
  {
    ...m(
      "shuttingDown",
      AppServer.messages.shuttingDown,
      "a request arrived during shutdown, or was still running when the 5 s grace period ended"
    ),
    code: -32603
  },
  { ...m("threadNotFound", AppServer.messages.threadNotFound("{threadId}"), "an unknown thread id"), code: -32600 },
  {
    ...m(
      "turnNotFound",
      AppServer.messages.turnNotFound("{turnId}"),
      "`tool/call` naming a turn never started in the thread, or rolled back"
    ),
    code: -32600
  },
  {
    ...m(
      "duplicateCallId",
      AppServer.messages.duplicateCallId("{callId}"),
      "`tool/call` with a call id that already produced items in the thread's current history"
    ),
    code: -32600
  },
  {
    ...m(
      "originCallIdRequiresThreadId",
      AppServer.messages.originCallIdRequiresThreadId,
      "`mcp/resource/read` with an `originCallId` and no `threadId`"
    ),
    code: -32600
  },
  {
    ...m(
      "modifiedConcurrently",
      AppServer.messages.modifiedConcurrently("{threadId}"),
      "a `turn/start`, `thread/rollback` or `thread/compact` append lost a race with another process sharing the store (a `tool/call` catches up and appends again)"
    ),
    code: -32603
  },
  {
    ...m(
      "widgetsDisabled",
      AppServer.messages.widgetsDisabled,
      "any `mcp/widget/*` method with `[widgets] enabled = false`"
    ),
    code: -32600
  },
  {
    ...m(
      "widgetCallNotFound",
      AppServer.messages.widgetCallNotFound("{callId}"),
      "`mcp/widget/*` naming a call with no completed MCP tool call in the thread's current history"
    ),
    code: -32600
  },
  {
    ...m(
      "widgetNoResource",
      AppServer.messages.widgetNoResource("{callId}"),
      "`mcp/widget/read` for a completed call whose tool names no `ui://` resource"
    ),
    code: -32600
  },
  {
    ...m(
      "widgetNotUiUri",
      AppServer.messages.widgetNotUiUri("{uri}"),
      "`mcp/widget/readResource` of a uri that is not `ui://`"
    ),
    code: -32600
  },
  {
    ...m(
      "widgetToolNotFound",
      AppServer.messages.widgetToolNotFound("{server}", "{name}"),
      "`mcp/widget/callTool` of a tool the call's server does not list"
    ),
    code: -32600
  },
  {
    ...m(
      "widgetToolNotForApps",
      AppServer.messages.widgetToolNotForApps("{name}"),
      "`mcp/widget/callTool` of a tool whose `_meta.ui.visibility` does not include `app` (a model-only tool)"
    ),
    code: -32600
  },
  {
    ...m(
      "widgetToolDisabled",
      AppServer.messages.widgetToolDisabled("{name}"),
      "`mcp/widget/callTool` of an apps-server tool its connector's `[apps.connectors]` entry disables (the model is not offered it either)"
    ),
    code: -32600
  },
  {
    ...m(
      "invalidResult",
      AppServer.messages.invalidResult("{method}", "{detail}"),
      "a bug of the server: a handler built a result that does not match its method's result schema; `{detail}` names the first offending field"
    ),
    code: -32603
  },
  {
    ...m(
      "subscriptionsNeedExtended",
      AppServer.messages.subscriptionsNeedExtended("{threadId}"),
      "`mcp/resource/subscribe` or `mcp/resource/unsubscribe` on a thread of the codex tool profile"
    ),
    code: -32600
  },
  {
    ...m(
      "callCancelled",
      AppServer.messages.callCancelled,
      "not a JSON-RPC error: the `error.message` of the item of a cancelled `tool/call`"
    ),
    code: undefined
  }
]

/** `resource-origins` CallScopedRead: the nine checks of a call-scoped widget read, in order. */
export const origins: ReadonlyArray<MessageDoc> = [
  m("notFound", CallScopedRead.notFound, "1. no remembered origin has that call id"),
  m(
    "serverUnavailable",
    CallScopedRead.serverUnavailable("{appsServerName}"),
    "2. the apps server is not an enabled server of the latest set, or not `ready` once its startup settled"
  ),
  m("resourceMismatch", CallScopedRead.resourceMismatch, "3. the requested `uri` is not the origin's resource"),
  m("ambiguousAccount", CallScopedRead.ambiguousAccount, "4. the original call passed a `link_id` of another account"),
  m("toolUnavailable", CallScopedRead.toolUnavailable, "5. the apps server no longer lists the origin's tool"),
  m(
    "connectorMismatch",
    CallScopedRead.connectorMismatch,
    "6. the tool's `_meta.connector_id` is no longer the origin's connector"
  ),
  m("linkMismatch", CallScopedRead.linkMismatch, "7. the tool's `_meta.link_id` is no longer the origin's link"),
  m(
    "explicitLinkRequired",
    CallScopedRead.explicitLinkRequired,
    "8. the origin has no link and the tool requires one (`_meta._codex_apps.requires_explicit_link_id`)"
  ),
  m(
    "disabledByAppConfiguration",
    CallScopedRead.disabledByAppConfiguration,
    "9. `[apps.connectors.C]` or `[apps.connectors.C.tools.N]` has `enabled = false`"
  )
]

/** `skills` SkillMessages. */
export const skills: ReadonlyArray<MessageDoc> = [
  m("disabled", SkillMessages.disabled, "`skills/read` while `orchestrator.skills.enabled` is false"),
  m("listFailed", SkillMessages.listFailed("{chain}"), "a discovery page failed"),
  m("listFailedContext", SkillMessages.listFailedContext, "the context of `listFailed`"),
  m("discoveryTimedOut", SkillMessages.discoveryTimedOut, "discovery ran past its 10 s deadline"),
  m(
    "discoveryStopped",
    `${SkillMessages.discoveryStopped(2, "{message}").replace("2 resource pages", "{n} resource page(s)")}`,
    "warning: a page after the first failed; `page` when n is 1, else `pages`"
  ),
  m("duplicateCursor", SkillMessages.duplicateCursor, "warning: a `nextCursor` came back twice"),
  m("truncated", SkillMessages.truncated, "warning: a cap was reached (the catalog is `truncated: true`)"),
  m("skipped", SkillMessages.skipped(7).replace("7", "{n}"), "warning: n `mcp/skill` resources were not valid skills"),
  m(
    "resourceMismatch",
    SkillMessages.resourceMismatch,
    "`skills/read`: a URI is not a valid skill URI, or `resource` is not inside `package`"
  ),
  m(
    "clientNotConfigured",
    SkillMessages.clientNotConfigured,
    "library use without a resource client (the app-server always has one)"
  ),
  m("readTimedOut", SkillMessages.readTimedOut, "`skills/read` ran past 10 s"),
  m(
    "readFailedContext",
    SkillMessages.readFailedContext("{resource}"),
    "context before the chain of a failed `skills/read`"
  ),
  m(
    "noMatchingText",
    SkillMessages.noMatchingText("{resource}"),
    "the read returned no text content with the requested `uri`"
  ),
  m("readTooLarge", SkillMessages.readTooLarge("{resource}"), "the text is over 1 MiB")
]

/** The keys a module exports as messages: its exports minus helpers, objects of templates flattened one level. */
export const exportedKeys = (module: Readonly<Record<string, unknown>>, skip: ReadonlyArray<string>) =>
  Object.entries(module)
    .filter(([key]) => !skip.includes(key))
    .flatMap(([key, value]) =>
      typeof value === "object" && value !== null ? Object.keys(value).map((inner) => `${key}.${inner}`) : [key]
    )
    .sort()
